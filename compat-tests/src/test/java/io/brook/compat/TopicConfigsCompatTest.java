package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConfigEntry.ConfigSource;
import org.apache.kafka.clients.admin.ConfigEntry.ConfigType;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kafka 4.4's topic configs through the stock Admin client: every one of them known and described
 * with its type and source, the compression levels (KIP-390) created, altered and reset, and the
 * tiered storage settings accepted except {@code remote.storage.enable=true}, which a broker
 * without tiered storage refuses (Brook has none; Kafka's default broker has it off).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TopicConfigsCompatTest {

    /** The topic configs Kafka 4.4 lists (LogConfig's non-internal names). */
    static final List<String> KAFKA_TOPIC_CONFIGS = List.of("cleanup.policy", "compression.gzip.level",
            "compression.lz4.level", "compression.type", "compression.zstd.level", "delete.retention.ms",
            "errors.deadletterqueue.group.enable", "file.delete.delay.ms", "flush.messages", "flush.ms",
            "follower.replication.throttled.replicas", "index.interval.bytes", "leader.replication.throttled.replicas",
            "local.retention.bytes", "local.retention.ms", "max.compaction.lag.ms", "max.decompressed.message.bytes",
            "max.message.bytes", "message.timestamp.after.max.ms", "message.timestamp.before.max.ms",
            "message.timestamp.type", "min.cleanable.dirty.ratio", "min.compaction.lag.ms", "min.insync.replicas",
            "preallocate", "remote.copy.lag.bytes", "remote.copy.lag.ms", "remote.log.copy.disable",
            "remote.log.delete.on.disable", "remote.storage.enable", "retention.bytes", "retention.ms",
            "segment.bytes", "segment.index.bytes", "segment.jitter.ms", "segment.ms",
            "unclean.leader.election.enable");

    private static final String TIERED_OFF = "Tiered Storage functionality is disabled in the broker."
            + " Topic cannot be configured with remote log storage.";

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

    /**
     * DescribeConfigs lists a topic's configs in Kafka's order (that of its hash map, fixed by
     * the names it defines), for every key and for a few asked in another order; clients that
     * compare the lists (kafkajs's and platformatic's tests) depend on it. Read off the wire by
     * kafka-clients' own response class, since the Admin client keeps entries in a map.
     */
    @Test
    void describesTopicConfigsInKafkasOrder() throws Exception {
        String topic = "config-order-" + UUID.randomUUID().toString().substring(0, 8);
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        try (RawKafkaRequests raw = new RawKafkaRequests(cluster.bootstrapServers())) {
            List<String> all = describedNames(raw, topic, null);
            assertThat(all.stream().filter(KAFKA_TOPIC_CONFIGS::contains).toList()).as("all topic configs")
                    .containsExactly("compression.type", "errors.deadletterqueue.group.enable", "remote.copy.lag.bytes",
                            "remote.log.delete.on.disable", "leader.replication.throttled.replicas",
                            "remote.storage.enable", "min.insync.replicas", "segment.jitter.ms", "remote.log.copy.disable",
                            "local.retention.ms", "cleanup.policy", "flush.ms", "follower.replication.throttled.replicas",
                            "compression.lz4.level", "segment.bytes", "retention.ms", "compression.gzip.level",
                            "remote.copy.lag.ms", "flush.messages", "compression.zstd.level", "max.compaction.lag.ms",
                            "file.delete.delay.ms", "max.message.bytes", "min.compaction.lag.ms", "message.timestamp.type",
                            "local.retention.bytes", "preallocate", "index.interval.bytes", "min.cleanable.dirty.ratio",
                            "unclean.leader.election.enable", "retention.bytes", "delete.retention.ms",
                            "message.timestamp.after.max.ms", "max.decompressed.message.bytes",
                            "message.timestamp.before.max.ms", "segment.ms", "segment.index.bytes");
            assertThat(describedNames(raw, topic, List.of("retention.ms", "cleanup.policy", "compression.type")))
                    .containsExactly("compression.type", "cleanup.policy", "retention.ms");
        }
    }

    private static List<String> describedNames(RawKafkaRequests raw, String topic, List<String> keys) throws Exception {
        DescribeConfigsResponse r = (DescribeConfigsResponse) raw.call(new DescribeConfigsRequest.Builder(
                new DescribeConfigsRequestData().setResources(List.of(new DescribeConfigsRequestData.DescribeConfigsResource()
                        .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName(topic)
                        .setConfigurationKeys(keys)))).build((short) 4));
        return r.data().results().get(0).configs().stream()
                .map(DescribeConfigsResponseData.DescribeConfigsResourceResult::name).toList();
    }

    @Test
    void createsAltersAndDescribesCompressionLevelsAndTieredStorageSettings() throws Exception {
        String topic = "topic-configs-" + UUID.randomUUID().toString().substring(0, 8);
        ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of(
                "compression.type", "zstd", "compression.zstd.level", "10", "compression.gzip.level", "5",
                "max.decompressed.message.bytes", "1048576", "remote.storage.enable", "false",
                "local.retention.ms", "1000", "retention.ms", "500", "remote.log.copy.disable", "true",
                "remote.copy.lag.bytes", "4096", "errors.deadletterqueue.group.enable", "true"))))
                .all().get(30, TimeUnit.SECONDS);

        Config created = describeWhen(res, c -> c.get("compression.zstd.level") != null);
        assertThat(created.entries()).extracting(ConfigEntry::name).containsAll(KAFKA_TOPIC_CONFIGS);
        assertEntry(created, "compression.zstd.level", "10", ConfigSource.DYNAMIC_TOPIC_CONFIG, ConfigType.INT);
        assertEntry(created, "compression.gzip.level", "5", ConfigSource.DYNAMIC_TOPIC_CONFIG, ConfigType.INT);
        assertEntry(created, "compression.lz4.level", "9", ConfigSource.DEFAULT_CONFIG, ConfigType.INT);
        assertEntry(created, "max.decompressed.message.bytes", "1048576", ConfigSource.DYNAMIC_TOPIC_CONFIG,
                ConfigType.INT);
        assertEntry(created, "remote.storage.enable", "false", ConfigSource.DYNAMIC_TOPIC_CONFIG, ConfigType.BOOLEAN);
        // as in Kafka with tiered storage off, a local retention above the total one is accepted
        assertEntry(created, "local.retention.ms", "1000", ConfigSource.DYNAMIC_TOPIC_CONFIG, ConfigType.LONG);
        assertEntry(created, "local.retention.bytes", "-2", ConfigSource.DEFAULT_CONFIG, ConfigType.LONG);
        assertEntry(created, "remote.log.copy.disable", "true", ConfigSource.DYNAMIC_TOPIC_CONFIG, ConfigType.BOOLEAN);
        assertEntry(created, "remote.log.delete.on.disable", "false", ConfigSource.DEFAULT_CONFIG, ConfigType.BOOLEAN);
        assertEntry(created, "remote.copy.lag.ms", "0", ConfigSource.DEFAULT_CONFIG, ConfigType.LONG);
        assertEntry(created, "remote.copy.lag.bytes", "4096", ConfigSource.DYNAMIC_TOPIC_CONFIG, ConfigType.LONG);
        assertEntry(created, "errors.deadletterqueue.group.enable", "true", ConfigSource.DYNAMIC_TOPIC_CONFIG,
                ConfigType.BOOLEAN);

        admin.incrementalAlterConfigs(Map.of(res, List.of(
                new AlterConfigOp(new ConfigEntry("compression.zstd.level", "-5"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("compression.lz4.level", "17"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("compression.gzip.level", ""), AlterConfigOp.OpType.DELETE),
                new AlterConfigOp(new ConfigEntry("local.retention.bytes", "-1"), AlterConfigOp.OpType.SET))))
                .all().get(30, TimeUnit.SECONDS);
        Config altered = describeWhen(res, c -> "-5".equals(c.get("compression.zstd.level").value()));
        assertEntry(altered, "compression.zstd.level", "-5", ConfigSource.DYNAMIC_TOPIC_CONFIG, ConfigType.INT);
        assertEntry(altered, "compression.lz4.level", "17", ConfigSource.DYNAMIC_TOPIC_CONFIG, ConfigType.INT);
        assertEntry(altered, "compression.gzip.level", "-1", ConfigSource.DEFAULT_CONFIG, ConfigType.INT);
        assertEntry(altered, "local.retention.bytes", "-1", ConfigSource.DYNAMIC_TOPIC_CONFIG, ConfigType.LONG);

        Config synonyms = admin.describeConfigs(List.of(res), new DescribeConfigsOptions().includeSynonyms(true))
                .all().get(30, TimeUnit.SECONDS).get(res);
        assertThat(synonyms.get("compression.zstd.level").synonyms())
                .extracting(s -> s.name() + "=" + s.value() + "/" + s.source())
                .containsExactly("compression.zstd.level=-5/DYNAMIC_TOPIC_CONFIG",
                        "compression.zstd.level=3/DEFAULT_CONFIG");
        assertThat(synonyms.get("local.retention.ms").synonyms())
                .extracting(s -> s.name() + "=" + s.value() + "/" + s.source())
                .containsExactly("local.retention.ms=1000/DYNAMIC_TOPIC_CONFIG",
                        "log.local.retention.ms=-2/DEFAULT_CONFIG");
        // a broker key is listed in its own units, and from the config's main key on: log.retention.ms
        // is set nowhere, so retention.ms lists no broker key (not log.retention.hours in milliseconds)
        assertThat(synonyms.get("retention.ms").synonyms())
                .extracting(s -> s.name() + "=" + s.value() + "/" + s.source())
                .containsExactly("retention.ms=500/DYNAMIC_TOPIC_CONFIG");
        assertThat(synonyms.get("segment.ms").synonyms()).isEmpty();
        assertThat(synonyms.get("cleanup.policy").synonyms())
                .extracting(s -> s.name() + "=" + s.value() + "/" + s.source())
                .containsExactly("log.cleanup.policy=delete/DEFAULT_CONFIG");
        assertThat(synonyms.get("max.compaction.lag.ms").synonyms())
                .extracting(s -> s.name() + "=" + s.value() + "/" + s.source())
                .containsExactly("log.cleaner.max.compaction.lag.ms=9223372036854775807/DEFAULT_CONFIG");
    }

    @Test
    void refusesOutOfRangeLevelsAndTieredStorageNamingTheSetting() throws Exception {
        String topic = "topic-configs-" + UUID.randomUUID().toString().substring(0, 8);
        assertRefused(() -> create(topic, Map.of("compression.zstd.level", "23")), "compression.zstd.level");
        assertRefused(() -> create(topic, Map.of("compression.zstd.level", "-131073")), "compression.zstd.level");
        assertRefused(() -> create(topic, Map.of("compression.gzip.level", "0")), "compression.gzip.level");
        assertRefused(() -> create(topic, Map.of("compression.lz4.level", "18")), "compression.lz4.level");
        assertRefused(() -> create(topic, Map.of("max.decompressed.message.bytes", "0")),
                "max.decompressed.message.bytes");
        assertRefused(() -> create(topic, Map.of("local.retention.ms", "-3")), "local.retention.ms");
        assertRefused(() -> create(topic, Map.of("remote.copy.lag.bytes", "-2")), "remote.copy.lag.bytes");
        assertThatThrownBy(() -> create(topic, Map.of("remote.storage.enable", "true")))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(InvalidConfigurationException.class)
                .cause().hasMessage(TIERED_OFF);

        create(topic, Map.of());
        ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        assertThatThrownBy(() -> alter(res, "remote.storage.enable", "true"))
                .hasCauseInstanceOf(InvalidConfigurationException.class).cause().hasMessage(TIERED_OFF);
        assertRefused(() -> alter(res, "compression.zstd.level", "30"), "compression.zstd.level");
        alter(res, "remote.storage.enable", "false");
        Config c = describeWhen(res, d -> d.get("remote.storage.enable").source() == ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(c.get("compression.zstd.level").value()).isEqualTo("3");
    }

    @Test
    void describesTheBrokerDefaultsOfTheNewTopicConfigs() throws Exception {
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "1");
        Config b = admin.describeConfigs(List.of(broker)).all().get(30, TimeUnit.SECONDS).get(broker);
        Map<String, String> defaults = Map.of("compression.gzip.level", "-1", "compression.lz4.level", "9",
                "compression.zstd.level", "3", "max.decompressed.message.bytes", "2147483639",
                "log.local.retention.ms", "-2", "log.local.retention.bytes", "-2", "log.remote.copy.lag.ms", "0",
                "log.remote.copy.lag.bytes", "-1");
        for (Map.Entry<String, String> e : defaults.entrySet()) {
            ConfigEntry entry = b.get(e.getKey());
            assertThat(entry).as(e.getKey()).isNotNull();
            assertThat(entry.value()).as(e.getKey()).isEqualTo(e.getValue());
            assertThat(entry.source()).as(e.getKey()).isEqualTo(ConfigSource.DEFAULT_CONFIG);
            assertThat(entry.isReadOnly()).as(e.getKey()).isFalse();
            assertThat(entry.type()).as(e.getKey())
                    .isEqualTo(e.getKey().contains("level") || e.getKey().startsWith("max.") ? ConfigType.INT
                            : ConfigType.LONG);
        }
    }

    /**
     * A record of a compressed batch larger than the topic's {@code max.decompressed.message.bytes}
     * once decompressed is refused (INVALID_RECORD, not retried); the same record uncompressed is
     * not held to it. Its size is the record's length field: a null key and a 100-byte value make 107.
     */
    @Test
    void refusesCompressedRecordsLargerThanMaxDecompressedMessageBytes() throws Exception {
        String small = "decompressed-" + UUID.randomUUID().toString().substring(0, 8);
        String fits = small + "-fits";
        create(small, Map.of("max.decompressed.message.bytes", "106"));
        create(fits, Map.of("max.decompressed.message.bytes", "107"));
        assertThatThrownBy(() -> produce(small, "gzip")).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(InvalidRecordException.class);
        assertThat(produce(small, "none").offset()).isZero();
        assertThat(produce(fits, "zstd").offset()).isZero();
    }

    private static RecordMetadata produce(String topic, String compression) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            return producer.send(new ProducerRecord<>(topic, 0, null, null, new byte[100])).get(30, TimeUnit.SECONDS);
        }
    }

    private static void create(String topic, Map<String, String> configs) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(configs))).all().get(30, TimeUnit.SECONDS);
    }

    private static void alter(ConfigResource res, String name, String value) throws Exception {
        admin.incrementalAlterConfigs(Map.of(res, List.of(
                new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
    }

    private static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String name) {
        assertThatThrownBy(call).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .cause().hasMessageContaining(name);
    }

    /**
     * Describes the topic until {@code ready} holds: Kafka's broker applies a change from the
     * metadata log shortly after the controller acknowledged it; Brook's is visible at once.
     */
    private static Config describeWhen(ConfigResource res, Predicate<Config> ready) {
        AtomicReference<Config> described = new AtomicReference<>();
        Await.until("the topic's configs in DescribeConfigs", Duration.ofSeconds(30), () -> {
            try {
                described.set(admin.describeConfigs(List.of(res)).all().get(30, TimeUnit.SECONDS).get(res));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new AssertionError(e);
            }
            return ready.test(described.get());
        });
        return described.get();
    }

    private static void assertEntry(Config c, String name, String value, ConfigSource source, ConfigType type) {
        ConfigEntry e = c.get(name);
        assertThat(e).as(name).isNotNull();
        assertThat(e.value()).as(name).isEqualTo(value);
        assertThat(e.source()).as(name).isEqualTo(source);
        assertThat(e.type()).as(name).isEqualTo(type);
        assertThat(e.isReadOnly()).as(name).isFalse();
    }
}
