package io.brook.server.config;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * The names of Apache Kafka's broker settings, as the Kafka release the compatibility suite
 * names defines them (the resource {@value #RESOURCE}, one name per line; the suite checks it
 * against Kafka's own definitions). Brook uses the list to tell a Kafka setting it does not
 * implement ({@code background.threads}, {@code num.replica.fetchers}, a policy class), which
 * a {@code server.properties} brought over from Kafka carries by design, from a key that is
 * neither Kafka's nor Brook's, which is most likely a typo. Both are ignored; they are reported
 * apart, so that the typo is not lost among the others.
 *
 * <p>A listener override ({@code listener.name.<listener>.<key>}) is Kafka's when its key is.
 */
final class KafkaSettingNames {

    static final String RESOURCE = "kafka-broker-settings.txt";
    private static final String LISTENER_PREFIX = "listener.name.";
    private static final Set<String> NAMES = load();

    private KafkaSettingNames() {
    }

    /** Whether {@code name} (or, for a listener override, its key) is one of Kafka's broker settings. */
    static boolean isKafkas(String name) {
        if (NAMES.contains(name)) {
            return true;
        }
        if (name.startsWith(LISTENER_PREFIX)) {
            int dot = name.indexOf('.', LISTENER_PREFIX.length());
            return dot > 0 && NAMES.contains(name.substring(dot + 1));
        }
        return false;
    }

    /** Those of {@code names} that are Kafka's ({@link #isKafkas}), sorted. */
    static Set<String> kafkas(Set<String> names) {
        Set<String> kafkas = new TreeSet<>();
        for (String name : names) {
            if (isKafkas(name)) {
                kafkas.add(name);
            }
        }
        return Collections.unmodifiableSet(kafkas);
    }

    /** How many names the list holds. */
    static int size() {
        return NAMES.size();
    }

    private static Set<String> load() {
        Set<String> names = new HashSet<>();
        try (InputStream in = KafkaSettingNames.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + RESOURCE + " next to " + KafkaSettingNames.class);
            }
            BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                String name = line.trim();
                if (!name.isEmpty() && !name.startsWith("#")) {
                    names.add(name);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Set.copyOf(names);
    }
}
