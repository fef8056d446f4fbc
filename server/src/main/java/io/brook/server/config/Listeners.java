package io.brook.server.config;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The listeners the broker binds ({@code listeners}), the addresses it tells clients for each
 * ({@code advertised.listeners}) and each one's security protocol
 * ({@code listener.security.protocol.map}), checked together the way Kafka checks them:
 *
 * <ul>
 * <li>listener names are unique, and so are the ports asked for (0, a free port, may repeat);
 * <li>every listener name has a protocol in the map (Kafka's default map names each protocol
 *     after itself, so {@code SSL://...} needs no map);
 * <li>an advertised listener names a bound listener; a bound listener without one is advertised
 *     as bound, which a wildcard host cannot be.
 * </ul>
 */
public final class Listeners {

    /** Kafka's default {@code listener.security.protocol.map}. */
    public static final String DEFAULT_PROTOCOL_MAP = "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL";

    private final List<Listener> bound;
    private final Map<String, Listener> advertised;
    private final Map<String, SecurityProtocol> protocols;

    private Listeners(List<Listener> bound, Map<String, Listener> advertised, Map<String, SecurityProtocol> protocols) {
        this.bound = bound;
        this.advertised = advertised;
        this.protocols = protocols;
    }

    static Listeners parse(List<String> listenerSpecs, List<String> advertisedSpecs, String protocolMap) {
        return parse(listenerSpecs, advertisedSpecs, protocolMap, List.of());
    }

    /**
     * {@code controllerNames}: in cluster mode, the listeners of the metadata quorum
     * ({@code controller.listener.names}), which Ratis binds: left out of what the broker binds and
     * advertises, and they need no security protocol here.
     */
    static Listeners parse(List<String> listenerSpecs, List<String> advertisedSpecs, String protocolMap,
            List<String> controllerNames) {
        Map<String, SecurityProtocol> protocols = parseProtocolMap(protocolMap);
        if (listenerSpecs == null || listenerSpecs.isEmpty()) {
            throw new IllegalArgumentException("Invalid value '' for configuration " + BrokerConfig.LISTENERS
                    + ": at least one listener is needed");
        }
        List<Listener> bound = new ArrayList<>();
        Set<String> names = new HashSet<>();
        Set<Integer> ports = new HashSet<>();
        for (String spec : listenerSpecs) {
            Listener l = Listener.parse(BrokerConfig.LISTENERS, spec.trim());
            if (!names.add(l.name())) {
                throw invalid(BrokerConfig.LISTENERS, listenerSpecs, "listener name " + l.name() + " appears twice");
            }
            if (l.port() != 0 && !ports.add(l.port())) {
                throw invalid(BrokerConfig.LISTENERS, listenerSpecs, "port " + l.port() + " appears twice");
            }
            if (controllerNames.contains(l.name())) {
                continue;
            }
            if (!protocols.containsKey(l.name())) {
                throw invalid(BrokerConfig.LISTENERS, listenerSpecs, "no security protocol for listener " + l.name()
                        + " in " + BrokerConfig.LISTENER_SECURITY_PROTOCOL_MAP + " (" + protocolMap + ")");
            }
            bound.add(l);
        }
        Map<String, Listener> advertised = new LinkedHashMap<>();
        if (advertisedSpecs != null) {
            for (String spec : advertisedSpecs) {
                Listener a = Listener.parse(BrokerConfig.ADVERTISED_LISTENERS, spec.trim());
                if (!names.contains(a.name())) {
                    throw invalid(BrokerConfig.ADVERTISED_LISTENERS, advertisedSpecs, "listener " + a.name()
                            + " is not one of " + BrokerConfig.LISTENERS);
                }
                if (a.wildcardHost() || a.port() == 0) {
                    throw new IllegalArgumentException("Invalid value '" + a + "' for configuration "
                            + BrokerConfig.ADVERTISED_LISTENERS + ": must name a concrete host and port");
                }
                if (advertised.put(a.name(), a) != null) {
                    throw invalid(BrokerConfig.ADVERTISED_LISTENERS, advertisedSpecs, "listener name " + a.name()
                            + " appears twice");
                }
            }
        }
        if (bound.isEmpty()) {
            throw invalid(BrokerConfig.LISTENERS, listenerSpecs, "no listener for clients besides "
                    + BrokerConfig.CONTROLLER_LISTENER_NAMES + " " + controllerNames);
        }
        for (Listener l : bound) {
            if (l.wildcardHost() && !advertised.containsKey(l.name())) {
                throw new IllegalArgumentException("Invalid value '" + l + "' for configuration " + BrokerConfig.LISTENERS
                        + ": a wildcard host needs advertised.listeners with a host clients can reach");
            }
        }
        return new Listeners(List.copyOf(bound), Collections.unmodifiableMap(advertised),
                Collections.unmodifiableMap(protocols));
    }

    private static Map<String, SecurityProtocol> parseProtocolMap(String spec) {
        Map<String, SecurityProtocol> out = new LinkedHashMap<>();
        for (String item : spec.split(",")) {
            String entry = item.trim();
            if (entry.isEmpty()) {
                continue;
            }
            int colon = entry.indexOf(':');
            SecurityProtocol p = colon <= 0 ? null : SecurityProtocol.byName(entry.substring(colon + 1).trim());
            if (p == null) {
                throw new IllegalArgumentException("Invalid value '" + spec + "' for configuration "
                        + BrokerConfig.LISTENER_SECURITY_PROTOCOL_MAP + ": expected NAME:PROTOCOL pairs with a protocol"
                        + " of PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL, got '" + entry + "'");
            }
            out.put(entry.substring(0, colon).trim().toUpperCase(Locale.ROOT), p);
        }
        return out;
    }

    private static IllegalArgumentException invalid(String key, List<String> specs, String why) {
        return new IllegalArgumentException("Invalid value '" + String.join(",", specs) + "' for configuration "
                + key + ": " + why);
    }

    /**
     * What clients are told of each bound listener, by name, in the configured order: its
     * advertised address, or the bound one on the port it got ({@code bound}: listener name to
     * bound address).
     */
    public Map<String, Listener> advertisedAfterBind(Map<String, InetSocketAddress> bound) {
        Map<String, Listener> out = new LinkedHashMap<>();
        for (Listener l : this.bound) {
            Listener adv = advertised.get(l.name());
            out.put(l.name(), adv != null ? adv : l.withPort(bound.get(l.name()).getPort()));
        }
        return out;
    }

    /**
     * The {@code listeners} setting for a restart: each bound listener on the port it got (so that
     * a restart listens where clients were told to connect), and the listeners the broker does not
     * bind (cluster mode's controller listeners) as {@code settings} have them.
     */
    public String rebound(Map<String, String> settings, Map<String, InetSocketAddress> boundAddresses) {
        List<String> out = new ArrayList<>();
        for (Listener l : bound) {
            out.add(l.withPort(boundAddresses.get(l.name()).getPort()).toString());
        }
        String all = settings.get(BrokerConfig.LISTENERS);
        for (String spec : all == null ? new String[0] : all.split(",")) {
            if (!spec.isBlank()) {
                Listener l = Listener.parse(BrokerConfig.LISTENERS, spec.trim());
                if (bound.stream().noneMatch(b -> b.name().equals(l.name()))) {
                    out.add(spec.trim());
                }
            }
        }
        return String.join(",", out);
    }

    /** The listeners to bind, in the configured order (the first is the default one). */
    public List<Listener> bound() {
        return bound;
    }

    /** The advertised listener configured for {@code name}, or null when it is advertised as bound. */
    public Listener advertised(String name) {
        return advertised.get(name);
    }

    public SecurityProtocol protocol(String name) {
        return protocols.get(name);
    }
}
