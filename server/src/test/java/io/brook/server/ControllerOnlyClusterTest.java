package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.cluster.ControllerNode;
import io.brook.server.metrics.Scrape;
import io.brook.testkit.Await;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kafka's production layout (docs/cluster.md, section 6c): three controller-only voters
 * ({@code process.roles=controller}) and two broker-only nodes that find them through {@code
 * controller.quorum.bootstrap.servers}. The controllers never register as brokers, so clients see
 * two brokers, every partition (the internal {@code __consumer_offsets} too) is placed on them,
 * and a consumer group reads what a producer wrote; DescribeQuorum names the controllers as the
 * voters and the brokers as observers.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ControllerOnlyClusterTest extends InJvmClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static Set<Integer> brokers(Admin admin) {
        Set<Integer> ids = new TreeSet<>();
        try {
            for (Node n : admin.describeCluster().nodes().get()) {
                ids.add(n.id());
            }
        } catch (Exception e) {
            return Set.of();
        }
        return ids;
    }

    private static Set<Integer> leaders(Admin admin, String topic) {
        Set<Integer> out = new TreeSet<>();
        TopicDescription d;
        try {
            d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        } catch (Exception e) {
            return out;
        }
        for (TopicPartitionInfo p : d.partitions()) {
            assertThat(p.replicas()).extracting(Node::id).allMatch(id -> id == 4 || id == 5);
            if (p.leader() != null) {
                out.add(p.leader().id());
            }
        }
        return out;
    }

    private static boolean directoriesKnown(Admin admin) {
        try {
            return admin.describeMetadataQuorum().quorumInfo().get().voters().stream()
                    .noneMatch(v -> v.replicaDirectoryId().equals(Uuid.ZERO_UUID));
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    void dedicatedControllersDecideWhileOnlyTheBrokersLeadPartitionsAndServeClients() throws Exception {
        cluster = InJvmCluster.startControllers(dirs, "brook-controller-only-test", 3);
        cluster.startBrokerOnly(4);
        Brook five = cluster.startBrokerOnly(5);

        try (Admin admin = Admin.create(InJvmCluster.ackedClientProps(cluster.bootstrap()))) {
            Await.until("brokers 4 and 5 in the cluster", WAIT, () -> brokers(admin).equals(Set.of(4, 5)));
            admin.createTopics(List.of(new NewTopic("work", 6, (short) 1))).all().get();
            Await.until("both brokers lead partitions of the topic", WAIT,
                    () -> leaders(admin, "work").equals(Set.of(4, 5)));

            Properties props = InJvmCluster.ackedClientProps(cluster.bootstrap());
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
                for (int i = 0; i < 30; i++) {
                    producer.send(new ProducerRecord<>("work", i % 6, null, "r" + i)).get();
                }
            }
            props.put("group.id", "readers");
            props.put("auto.offset.reset", "earliest");
            Set<String> seen = new TreeSet<>();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
                consumer.subscribe(List.of("work"));
                Await.until("all 30 records consumed by the group", WAIT, () -> {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        seen.add(r.value());
                    }
                    return seen.size() >= 30;
                });
                consumer.commitSync();
            }
            assertThat(leaders(admin, "__consumer_offsets")).isNotEmpty().isSubsetOf(4, 5);

            QuorumInfo quorum = admin.describeMetadataQuorum().quorumInfo().get();
            assertThat(quorum.voters()).extracting(QuorumInfo.ReplicaState::replicaId).containsExactlyInAnyOrder(1, 2, 3);
            // the controllers report their directory ids too, though they never register
            Await.until("the controllers' directory ids known", WAIT, () -> directoriesKnown(admin));
            assertThat(quorum.observers()).extracting(QuorumInfo.ReplicaState::replicaId).containsExactlyInAnyOrder(4, 5);
            assertThat(quorum.leaderId()).isIn(1, 2, 3);
        }

        // each controller serves Kafka's controller gauges on its own HTTP listener, and nothing of a broker's
        Await.until("exactly one controller reporting itself active", WAIT, () -> cluster.controllers.stream()
                .mapToDouble(c -> gauge(c, "activecontrollercount")).sum() == 1.0);
        for (ControllerNode c : cluster.controllers) {
            String metrics = Scrape.metrics(c.httpPort());
            assertThat(Scrape.value(metrics, "kafka_controller_kafkacontroller_activebrokercount")).isEqualTo(2.0);
            assertThat(Scrape.value(metrics, "kafka_controller_kafkacontroller_fencedbrokercount")).isEqualTo(0.0);
            // "work" and __consumer_offsets, every partition with a leader
            assertThat(Scrape.value(metrics, "kafka_controller_kafkacontroller_globaltopiccount")).isEqualTo(2.0);
            assertThat(Scrape.value(metrics, "kafka_controller_kafkacontroller_globalpartitioncount"))
                    .isGreaterThan(6.0);
            assertThat(Scrape.value(metrics, "kafka_controller_kafkacontroller_offlinepartitionscount"))
                    .isEqualTo(0.0);
            assertThat(metrics).contains("jvm_memory_used_bytes")
                    .doesNotContain("kafka_server_brokertopicmetrics").doesNotContain("kafka_server_kafkaserver_brokerstate")
                    .doesNotContain("kafka_log_logflushstats");
            assertThat(Scrape.get(c.httpPort(), "/health").statusCode()).isEqualTo(200);
            assertThat(Scrape.get(c.httpPort(), "/ready").statusCode()).isEqualTo(200);
            assertThat(Scrape.get(c.httpPort(), "/").statusCode()).as("no console: no topics or groups here")
                    .isEqualTo(404);
            assertThat(Scrape.get(c.httpPort(), "/console.json").statusCode()).isEqualTo(404);
        }
        // and as MBeans, for jmx_exporter (the JVM's first controller holds the names)
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(
                new ObjectName("kafka.controller:type=KafkaController,name=ActiveBrokerCount"), "Value")).isEqualTo(2);

        // a broker that stopped is counted as fenced by every controller
        five.close();
        Await.until("broker 5 counted as fenced by every controller", WAIT, () -> cluster.controllers.stream()
                .allMatch(c -> gauge(c, "fencedbrokercount") == 1.0 && gauge(c, "activebrokercount") == 1.0));
    }

    private static double gauge(ControllerNode c, String name) {
        return Scrape.value(Scrape.metrics(c.httpPort()), "kafka_controller_kafkacontroller_" + name);
    }
}
