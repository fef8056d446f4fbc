package io.brook.server.security;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which TLS versions a listener offers, decided the same way whichever engine encrypts, so that a
 * Kafka configuration gets what Kafka's JDK engine would give it:
 *
 * <ul>
 * <li>SSLv3, TLSv1 and TLSv1.1 in {@code ssl.enabled.protocols} are dropped with a warning. The
 *     JDK refuses them ({@code jdk.tls.disabledAlgorithms}), so Kafka never serves them, while
 *     BoringSSL would. A list with nothing else stops the start.
 * <li>{@code ssl.cipher.suites} decides the versions too: a list with no TLS 1.3 suite turns
 *     TLSv1.3 off, one with only TLS 1.3 suites TLSv1.2, as the JDK does when no suite of a
 *     version is enabled. BoringSSL would otherwise keep its own suites for the version the list
 *     says nothing about.
 * </ul>
 */
final class TlsProtocols {

    private static final Logger LOG = LoggerFactory.getLogger(TlsProtocols.class);

    static final String TLS_1_2 = "TLSv1.2";
    static final String TLS_1_3 = "TLSv1.3";
    private static final Set<String> OBSOLETE = Set.of("SSLV2HELLO", "SSLV3", "TLSV1", "TLSV1.1");

    private TlsProtocols() {
    }

    /**
     * The versions to offer from {@code configured} ({@code ssl.enabled.protocols}) and
     * {@code cipherSuites} ({@code ssl.cipher.suites}, null when not set); {@code listener} names
     * the listener in messages. Throws IllegalArgumentException when none remains.
     */
    static List<String> enabled(List<String> configured, List<String> cipherSuites, String listener) {
        List<String> out = new ArrayList<>();
        List<String> dropped = new ArrayList<>();
        for (String p : configured) {
            if (OBSOLETE.contains(p.toUpperCase(Locale.ROOT))) {
                dropped.add(p);
            } else {
                out.add(p);
            }
        }
        if (!dropped.isEmpty()) {
            LOG.warn("Listener {}: ssl.enabled.protocols names {}, which are insecure and which Kafka's JDK engine"
                    + " refuses too; they are not offered", listener, dropped);
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("ssl.enabled.protocols " + configured + " names no protocol that"
                    + " may be used; use " + TLS_1_2 + " and/or " + TLS_1_3);
        }
        if (cipherSuites != null) {
            boolean tls13 = cipherSuites.stream().anyMatch(TlsProtocols::isTls13Suite);
            boolean older = cipherSuites.stream().anyMatch(s -> !isTls13Suite(s));
            List<String> before = List.copyOf(out);
            if (!tls13) {
                out.remove(TLS_1_3);
            }
            if (!older) {
                out.remove(TLS_1_2);
            }
            if (out.isEmpty()) {
                throw new IllegalArgumentException("ssl.cipher.suites " + cipherSuites + " has no suite for the"
                        + " protocols of ssl.enabled.protocols " + before);
            }
        }
        return List.copyOf(out);
    }

    /** Whether {@code suite} is a TLS 1.3 cipher suite (their names are the same in the JDK and OpenSSL). */
    static boolean isTls13Suite(String suite) {
        String s = suite.toUpperCase(Locale.ROOT);
        return s.startsWith("TLS_AES_") || s.startsWith("TLS_CHACHA20_");
    }
}
