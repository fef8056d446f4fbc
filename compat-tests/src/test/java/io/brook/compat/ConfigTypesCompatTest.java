package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.server.config.AbstractKafkaConfig;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every broker and topic setting the broker describes that Kafka defines has the type Kafka
 * gives it (DescribeConfigs v3+ reports types; tools and UIs parse and edit values by them), and
 * is sensitive exactly when Kafka's type is a password. Kafka's own definitions, from its server
 * and storage jars in test scope, are the reference; settings Kafka does not define (Brook's
 * own, {@code listener.name.*} overrides) are left out.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigTypesCompatTest {

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();
    private static Admin admin;

    @BeforeAll
    static void openAdmin() {
        admin = cluster.admin();
    }

    @AfterAll
    static void closeAdmin() {
        admin.close();
    }

    @Test
    void brokerSettingsHaveKafkasTypes() throws Exception {
        String node = String.valueOf(admin.describeCluster().controller().get(30, TimeUnit.SECONDS).id());
        Config config = describe(new ConfigResource(ConfigResource.Type.BROKER, node));
        assertThat(config.entries()).as("described broker settings").hasSizeGreaterThan(50);
        assertTypes(config, AbstractKafkaConfig.CONFIG_DEF.configKeys());
    }

    @Test
    void topicSettingsHaveKafkasTypes() throws Exception {
        String topic = "types-" + UUID.randomUUID().toString().substring(0, 8);
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        Config config = describe(new ConfigResource(ConfigResource.Type.TOPIC, topic));
        assertThat(config.entries()).as("described topic settings").hasSizeGreaterThan(30);
        assertTypes(config, LogConfig.configKeys());
    }

    private static Config describe(ConfigResource resource) throws Exception {
        return admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
    }

    private static void assertTypes(Config config, Map<String, ConfigDef.ConfigKey> kafka) {
        List<String> wrong = new ArrayList<>();
        int compared = 0;
        for (ConfigEntry e : config.entries()) {
            ConfigDef.ConfigKey key = kafka.get(e.name());
            if (key == null) {
                continue;
            }
            compared++;
            ConfigEntry.ConfigType expected = ConfigEntry.ConfigType.valueOf(key.type.name());
            if (e.type() != expected) {
                wrong.add(e.name() + " is " + e.type() + ", Kafka's type is " + expected);
            }
            if (e.isSensitive() != (key.type == ConfigDef.Type.PASSWORD)) {
                wrong.add(e.name() + (e.isSensitive() ? " is" : " is not") + " sensitive, Kafka's type is " + key.type);
            }
        }
        assertThat(compared).as("settings Kafka also defines").isGreaterThan(20);
        assertThat(wrong).as("settings described with another type than Kafka's").isEmpty();
    }
}
