package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.Brook;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Broker settings changed at run time with the Admin client, as {@code kafka-configs.sh --alter
 * --entity-type brokers [--entity-name 1 | --entity-default]} does it: applied at once to topics
 * without their own override, described with Kafka's sources, refused for keys that cannot
 * change, and still there after a restart.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BrokerConfigsCompatTest {

    @TempDir
    Path dir;

    @Test
    void changesTopicDefaultsAtRunTimeAndKeepsThemAcrossARestart() throws Exception {
        ConfigResource self = new ConfigResource(ConfigResource.Type.BROKER, "1");
        ConfigResource clusterDefault = new ConfigResource(ConfigResource.Type.BROKER, "");
        Path data = Files.createDirectories(dir.resolve("data"));
        try (Brook brook = Brook.builder().port(0).dataDir(data).start(); Admin admin = Groups.admin(brook.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic("plain", 1, (short) 1),
                    new NewTopic("own", 1, (short) 1).configs(Map.of("retention.ms", "7000"))))
                    .all().get(30, TimeUnit.SECONDS);

            alter(admin, self, new AlterConfigOp(new ConfigEntry("log.retention.ms", "3600000"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("message.max.bytes", "2000"), AlterConfigOp.OpType.SET));
            alter(admin, clusterDefault, new AlterConfigOp(new ConfigEntry("log.cleaner.delete.retention.ms", "5000"),
                    AlterConfigOp.OpType.SET));

            Config plain = describe(admin, new ConfigResource(ConfigResource.Type.TOPIC, "plain"));
            assertThat(plain.get("retention.ms").value()).isEqualTo("3600000");
            assertThat(plain.get("retention.ms").source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG);
            assertThat(plain.get("delete.retention.ms").value()).isEqualTo("5000");
            assertThat(plain.get("delete.retention.ms").source())
                    .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
            assertThat(describe(admin, new ConfigResource(ConfigResource.Type.TOPIC, "own")).get("retention.ms").value())
                    .isEqualTo("7000");

            Config b = describe(admin, self);
            assertThat(b.get("log.retention.ms").value()).isEqualTo("3600000");
            assertThat(b.get("log.retention.ms").source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG);
            assertThat(b.get("log.retention.ms").isReadOnly()).isFalse();
            assertThat(b.get("num.io.threads").isReadOnly()).isTrue();
            Collection<ConfigEntry> defaults = describe(admin, clusterDefault).entries();
            assertThat(defaults).extracting(ConfigEntry::name).containsExactly("log.cleaner.delete.retention.ms");

            // applied without a restart: the topic's max.message.bytes followed message.max.bytes
            assertThatThrownBy(() -> produce(brook.bootstrapServers(), "plain", 5_000))
                    .hasCauseInstanceOf(RecordTooLargeException.class);

            assertThatThrownBy(() -> alter(admin, self,
                    new AlterConfigOp(new ConfigEntry("num.io.threads", "4"), AlterConfigOp.OpType.SET)))
                    .hasCauseInstanceOf(InvalidConfigurationException.class);
            assertThatThrownBy(() -> alter(admin, self,
                    new AlterConfigOp(new ConfigEntry("log.segment.bytes", "10"), AlterConfigOp.OpType.SET)))
                    .hasCauseInstanceOf(InvalidConfigurationException.class);
            assertThat(describe(admin, self).get("log.segment.bytes").source())
                    .isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);

            alter(admin, self, new AlterConfigOp(new ConfigEntry("message.max.bytes", ""), AlterConfigOp.OpType.DELETE));
            produce(brook.bootstrapServers(), "plain", 5_000);
        }
        try (Brook brook = Brook.builder().port(0).dataDir(data).start(); Admin admin = Groups.admin(brook.bootstrapServers())) {
            Config b = describe(admin, self);
            assertThat(b.get("log.retention.ms").value()).isEqualTo("3600000");
            assertThat(b.get("message.max.bytes").source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
            assertThat(describe(admin, new ConfigResource(ConfigResource.Type.TOPIC, "plain")).get("retention.ms")
                    .value()).isEqualTo("3600000");
        }
    }

    private static void alter(Admin admin, ConfigResource res, AlterConfigOp... ops) throws Exception {
        admin.incrementalAlterConfigs(Map.of(res, List.of(ops))).all().get(30, TimeUnit.SECONDS);
    }

    private static Config describe(Admin admin, ConfigResource res) throws Exception {
        return admin.describeConfigs(List.of(res)).all().get(30, TimeUnit.SECONDS).get(res);
    }

    private static void produce(String bootstrap, String topic, int bytes) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.RETRIES_CONFIG, "0");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.send(new ProducerRecord<>(topic, "x".repeat(bytes))).get(30, TimeUnit.SECONDS);
        }
    }
}
