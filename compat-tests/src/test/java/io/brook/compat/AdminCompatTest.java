package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The stock Java Admin client against Brook. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AdminCompatTest {

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

    private static String topicName() {
        return "admin-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static TopicDescription describe(String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
    }

    @Test
    void createsDescribesAndDeletesTopics() throws Exception {
        String topic = topicName();
        CreateTopicsResult created = admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1)
                .configs(Map.of("retention.ms", "3600000"))));
        created.all().get(30, TimeUnit.SECONDS);
        assertThat(created.numPartitions(topic).get()).isEqualTo(3);
        assertThat(created.topicId(topic).get()).isNotNull();
        TopicDescription d = Groups.awaitTopic(admin, topic, 3);
        assertThat(d.partitions()).hasSize(3);
        assertThat(d.partitions().get(0).leader().id()).isEqualTo(d.partitions().get(0).replicas().get(0).id());
        assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(topic);

        assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get())
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TopicExistsException.class);
        assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic(topicName(), 1, (short) 3))).all().get())
                .hasCauseInstanceOf(InvalidReplicationFactorException.class);

        admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        Groups.awaitTopicGone(admin, topic);
        assertThatThrownBy(() -> describe(topic)).hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
    }

    @Test
    void describesAndAltersTopicConfigs() throws Exception {
        String topic = topicName();
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        Groups.awaitTopic(admin, topic, 1);
        ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        admin.incrementalAlterConfigs(Map.of(res, List.of(
                new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("retention.ms", "1000"), AlterConfigOp.OpType.SET))))
                .all().get(30, TimeUnit.SECONDS);
        // Kafka's brokers apply a config change from the metadata log shortly after the controller
        // acknowledged it; Brook's is visible at once
        AtomicReference<Config> described = new AtomicReference<>();
        Groups.await(Duration.ofSeconds(30), "the altered configs in DescribeConfigs", () -> {
            try {
                described.set(admin.describeConfigs(List.of(res)).all().get(30, TimeUnit.SECONDS).get(res));
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            return "compact".equals(described.get().get("cleanup.policy").value());
        });
        Config c = described.get();
        assertThat(c.get("cleanup.policy").value()).isEqualTo("compact");
        assertThat(c.get("cleanup.policy").source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(c.get("retention.ms").value()).isEqualTo("1000");
        assertThat(c.get("segment.bytes").source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);

        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "1");
        Config b = admin.describeConfigs(List.of(broker)).all().get(30, TimeUnit.SECONDS).get(broker);
        assertThat(b.get("num.partitions").value()).isEqualTo("1");
        assertThat(b.get("auto.create.topics.enable").value()).isEqualTo("true");
    }

    @Test
    void growsPartitionsAndDeletesRecords() throws Exception {
        String topic = topicName();
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        Groups.awaitTopic(admin, topic, 1);
        admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(3))).all().get(30, TimeUnit.SECONDS);
        assertThat(Groups.awaitTopic(admin, topic, 3).partitions()).hasSize(3);

        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(topic, 2, null, "v" + i)).get();
            }
        }
        TopicPartition tp = new TopicPartition(topic, 2);
        long low = admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(4))).lowWatermarks().get(tp)
                .get(30, TimeUnit.SECONDS).lowWatermark();
        assertThat(low).isEqualTo(4);
        assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp).get().offset())
                .isEqualTo(4);
        assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get().offset())
                .isEqualTo(10);
        assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.maxTimestamp())).partitionResult(tp).get().offset())
                .isBetween(4L, 9L);
    }

    @Test
    void describesTheClusterAsOneBrokerThatIsAlsoController() throws Exception {
        DescribeClusterResult r = admin.describeCluster();
        Collection<Node> nodes = r.nodes().get(30, TimeUnit.SECONDS);
        assertThat(nodes).hasSize(1);
        assertThat(r.controller().get().id()).isEqualTo(nodes.iterator().next().id());
        assertThat(r.clusterId().get()).hasSize(22);
        assertThat(Set.copyOf(admin.describeTopics(List.of()).allTopicNames().get().keySet())).isEmpty();
    }
}
