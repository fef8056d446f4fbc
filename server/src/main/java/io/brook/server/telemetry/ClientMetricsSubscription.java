package io.brook.server.telemetry;

import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One client metrics subscription (KIP-714), a CLIENT_METRICS config resource: which metrics
 * (name prefixes, {@code *} for all) the clients it matches are asked to push, and how often.
 * The keys, defaults, bounds and the errors for bad values are those of Kafka's
 * {@code ClientMetricsConfigs}:
 * <ul>
 *   <li>{@code metrics}: comma-separated list of metric name prefixes, default empty (none);</li>
 *   <li>{@code interval.ms}: the push interval, default 300000 (5 minutes), 100..3600000;</li>
 *   <li>{@code match}: comma-separated {@code selector=regex}, selectors
 *       {@link ClientSelector#SELECTORS}; a client matches when every regex matches the whole of
 *       its value. Default empty: every client.</li>
 * </ul>
 * An unknown key, an empty name or an interval out of range is INVALID_REQUEST; a value that does
 * not parse or an illegal match pattern is INVALID_CONFIG.
 */
public record ClientMetricsSubscription(String name, Map<String, String> configs, List<String> metrics,
        int intervalMs, Map<String, Pattern> match) {

    public static final String METRICS = "metrics";
    public static final String INTERVAL_MS = "interval.ms";
    public static final String MATCH = "match";
    public static final Set<String> KEYS = Set.of(METRICS, INTERVAL_MS, MATCH);

    /** The subscription of all metrics. */
    public static final String ALL_METRICS = "*";
    public static final int DEFAULT_INTERVAL_MS = 5 * 60 * 1000;
    public static final int MIN_INTERVAL_MS = 100;
    public static final int MAX_INTERVAL_MS = 3_600_000;
    /** A stored value is at most this long (the same bound as a topic config's value). */
    public static final int MAX_VALUE_CHARS = 32 * 1024;

    public ClientMetricsSubscription {
        configs = Collections.unmodifiableMap(new TreeMap<>(configs));
        metrics = List.copyOf(metrics);
        match = Collections.unmodifiableMap(new LinkedHashMap<>(match));
    }

    /** Validates and parses the configs of subscription {@code name}. */
    public static ClientMetricsSubscription parse(String name, Map<String, String> configs)
            throws InvalidSubscriptionException {
        if (name == null || name.isEmpty()) {
            throw new InvalidSubscriptionException(Errors.INVALID_REQUEST, "Subscription name can't be empty");
        }
        for (Map.Entry<String, String> e : configs.entrySet()) {
            if (!KEYS.contains(e.getKey())) {
                throw new InvalidSubscriptionException(Errors.INVALID_REQUEST,
                        "Unknown client metrics configuration: " + e.getKey());
            }
            if (e.getValue() == null) {
                throw new InvalidSubscriptionException(Errors.INVALID_REQUEST,
                        "Null value not supported for " + e.getKey());
            }
            if (e.getValue().length() > MAX_VALUE_CHARS) {
                throw new InvalidSubscriptionException(Errors.INVALID_CONFIG, "Value of " + e.getKey()
                        + " is longer than " + MAX_VALUE_CHARS + " characters");
            }
        }
        int interval = DEFAULT_INTERVAL_MS;
        String iv = configs.get(INTERVAL_MS);
        if (iv != null) {
            try {
                interval = Integer.parseInt(iv.trim());
            } catch (NumberFormatException e) {
                throw new InvalidSubscriptionException(Errors.INVALID_CONFIG, "Invalid value " + iv
                        + " for configuration " + INTERVAL_MS + ": Not a number of type INT");
            }
            if (interval < MIN_INTERVAL_MS || interval > MAX_INTERVAL_MS) {
                throw new InvalidSubscriptionException(Errors.INVALID_REQUEST, "Invalid value " + interval + " for "
                        + INTERVAL_MS + ", interval must be between 100 and 3600000 (1 hour)");
            }
        }
        Map<String, Pattern> match = new LinkedHashMap<>();
        for (String p : list(configs.get(MATCH))) {
            String[] pair = p.split("=");
            String selector = pair.length == 2 ? pair[0].trim() : null;
            if (selector == null || !ClientSelector.SELECTORS.contains(selector)) {
                throw new InvalidSubscriptionException(Errors.INVALID_CONFIG, "Illegal client matching pattern: " + p);
            }
            try {
                match.put(selector, Pattern.compile(pair[1].trim()));
            } catch (PatternSyntaxException e) {
                throw new InvalidSubscriptionException(Errors.INVALID_CONFIG, "Illegal client matching pattern: " + p);
            }
        }
        return new ClientMetricsSubscription(name, configs, list(configs.get(METRICS)), interval, match);
    }

    /** Whether the client described by {@code client} matches every pattern. */
    public boolean matches(ClientSelector client) {
        for (Map.Entry<String, Pattern> e : match.entrySet()) {
            if (!e.getValue().matcher(client.value(e.getKey())).matches()) {
                return false;
            }
        }
        return true;
    }

    /** A list config's items as Kafka's ConfigDef reads them: comma-separated, trimmed, "" = none. */
    static List<String> list(String value) {
        List<String> out = new ArrayList<>();
        if (value == null || value.isBlank()) {
            return out;
        }
        for (String s : value.split(",", -1)) {
            out.add(s.trim());
        }
        return out;
    }
}
