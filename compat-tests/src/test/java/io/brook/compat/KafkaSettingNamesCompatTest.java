package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.server.config.AbstractKafkaConfig;
import org.junit.jupiter.api.Test;

/**
 * The list of Kafka's broker settings that the broker carries (to report a Kafka setting it does
 * not implement apart from a key nobody defines, a likely typo) is exactly the set of names that
 * Kafka's own server jar, of the version this suite tests against, defines. When Kafka's version
 * moves, this test names the settings that came and went; the list is one name per line, sorted,
 * under two comment lines.
 */
class KafkaSettingNamesCompatTest {

    private static final String RESOURCE = "io/brook/server/config/kafka-broker-settings.txt";

    @Test
    void brokersListIsKafkasBrokerSettings() throws IOException {
        Set<String> kafkas = new TreeSet<>(AbstractKafkaConfig.CONFIG_DEF.names());
        Set<String> listed = listed();
        Set<String> missing = new TreeSet<>(kafkas);
        missing.removeAll(listed);
        Set<String> extra = new TreeSet<>(listed);
        extra.removeAll(kafkas);
        assertThat(missing).as("Kafka's broker settings missing from " + RESOURCE).isEmpty();
        assertThat(extra).as("names in " + RESOURCE + " that Kafka does not define").isEmpty();
        assertThat(listed).as("a sample of the list").contains("background.threads", "num.replica.fetchers",
                "log.cleaner.threads", "listeners");
    }

    private static Set<String> listed() throws IOException {
        Set<String> names = new TreeSet<>();
        try (InputStream in = KafkaSettingNamesCompatTest.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            assertThat(in).as(RESOURCE + " on the broker's class path").isNotNull();
            BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    names.add(line.trim());
                }
            }
        }
        return names;
    }
}
