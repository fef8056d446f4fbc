package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Moving a partition with data from one node to another (docs/cluster.md, section 6a), with
 * stock kafka-clients against three Brooks in one JVM: the new node copies the log, the leader
 * switches without losing or repeating an acknowledged record while a producer keeps writing,
 * and the old node's log goes once the new leader has drained it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterPartitionMoveTest extends InJvmClusterTest {

    static final Duration WAIT = Duration.ofSeconds(40);
    static final String TOPIC = "moving";

    @BeforeEach
    void startCluster() {
        cluster = InJvmCluster.start(dirs, "brook-move-test", 3, Map.of());
    }

    Properties props() {
        Properties p = InJvmCluster.clientProps(cluster.bootstrap());
        p.put("acks", "all");
        p.put("enable.idempotence", "true");
        p.put("delivery.timeout.ms", "60000");
        p.put("linger.ms", "1");
        return p;
    }

    static TopicPartitionInfo partition(Admin admin, String topic, int p) {
        try {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
            return d.partitions().get(p);
        } catch (Exception e) {
            return null;
        }
    }

    static int leaderOf(Admin admin, String topic, int p) {
        TopicPartitionInfo info = partition(admin, topic, p);
        return info == null || info.leader() == null ? -1 : info.leader().id();
    }

    /** The partition's leader, once a node names one (the node asked may lag: the answer is kept, not asked again). */
    static int awaitLeader(Admin admin, String topic, int p) {
        java.util.concurrent.atomic.AtomicInteger leader = new java.util.concurrent.atomic.AtomicInteger(-1);
        Await.until(topic + "-" + p + " has a leader", WAIT, () -> {
            leader.set(leaderOf(admin, topic, p));
            return leader.get() > 0;
        });
        return leader.get();
    }

    static boolean movedTo(Admin admin, TopicPartition tp, int target) {
        try {
            TopicPartitionInfo info = partition(admin, tp.topic(), tp.partition());
            return info != null && info.leader() != null && info.leader().id() == target
                    && info.replicas().size() == 1 && info.replicas().get(0).id() == target
                    && !admin.listPartitionReassignments().reassignments().get().containsKey(tp);
        } catch (Exception e) {
            return false;
        }
    }

    static boolean hosts(Admin admin, int node, TopicPartition tp) {
        try {
            Map<String, LogDirDescription> d = admin.describeLogDirs(List.of(node)).descriptions().get(node).get();
            return d.values().stream().anyMatch(x -> x.replicaInfos().containsKey(tp));
        } catch (Exception e) {
            return false;
        }
    }

    /** Every record of the partition from the beginning to {@code end}, by offset, read through {@code bootstrap}. */
    static Map<Long, String> readAll(Properties base, TopicPartition tp, long end) {
        Properties p = new Properties();
        p.putAll(base);
        p.put("isolation.level", "read_committed");
        p.put("enable.auto.commit", "false");
        Map<Long, String> out = new TreeMap<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (c.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    assertThat(out.put(r.offset(), r.value())).as("offset %d read twice", r.offset()).isNull();
                }
            }
        }
        return out;
    }

    @Test
    void aPartitionMovesWithItsDataWhileAProducerWritesAndNoAcknowledgedRecordIsLostOrRepeated() throws Exception {
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (Admin admin = Admin.create(props())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
            int old = awaitLeader(admin, TOPIC, 0);
            int target = old % 3 + 1;

            // a committed and an aborted transaction in the log before the move
            Properties tx = props();
            tx.put("transactional.id", "mover");
            try (KafkaProducer<String, String> p = new KafkaProducer<>(tx)) {
                p.initTransactions();
                p.beginTransaction();
                p.send(new ProducerRecord<>(TOPIC, 0, "t", "committed-1"));
                p.send(new ProducerRecord<>(TOPIC, 0, "t", "committed-2"));
                p.commitTransaction();
                p.beginTransaction();
                p.send(new ProducerRecord<>(TOPIC, 0, "t", "aborted"));
                p.flush();
                p.abortTransaction();
            }

            Map<String, Long> acked = new ConcurrentHashMap<>();
            List<Exception> errors = new CopyOnWriteArrayList<>();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger sent = new AtomicInteger();
            Thread writer = new Thread(() -> {
                try (KafkaProducer<String, String> p = new KafkaProducer<>(props())) {
                    while (!stop.get()) {
                        String v = "v" + sent.getAndIncrement();
                        p.send(new ProducerRecord<>(TOPIC, 0, "k", v), (md, e) -> {
                            if (e != null) {
                                errors.add(e);
                            } else {
                                acked.put(v, md.offset());
                            }
                        });
                        if (sent.get() % 50 == 0) {
                            p.flush();
                        }
                    }
                    p.flush();
                }
            }, "move-test-writer");
            writer.start();
            Await.until("records before the move", WAIT, () -> acked.size() >= 150);

            admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(target)))))
                    .all().get();
            Await.until("the partition moved to node " + target, WAIT, () -> movedTo(admin, tp, target));
            int atSwitch = acked.size();
            Await.until("records after the move", WAIT, () -> acked.size() >= atSwitch + 150);
            stop.set(true);
            writer.join(WAIT.toMillis());
            assertThat(errors).isEmpty();
            Await.until("node " + old + " deletes its log once drained", WAIT, () -> !hosts(admin, old, tp));
            assertThat(hosts(admin, target, tp)).isTrue();

            long end = admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest())).all().get()
                    .get(tp).offset();
            Map<Long, String> read = readAll(props(), tp, end);
            assertThat(read.values()).containsSubsequence("committed-1", "committed-2").doesNotContain("aborted");
            for (Map.Entry<String, Long> a : acked.entrySet()) {
                assertThat(read.get(a.getValue())).as("the record acknowledged at offset %d", a.getValue())
                        .isEqualTo(a.getKey());
            }
            List<String> values = new ArrayList<>(read.values());
            values.removeIf(v -> !v.startsWith("v"));
            assertThat(new HashSet<>(values)).hasSize(values.size());
            assertThat(Set.copyOf(values)).isEqualTo(acked.keySet());
        }
    }

    /** The new replica's node crashes during the copy, and restarts as the new leader during the drain. */
    @Test
    void theNewNodeRestartingDuringTheCopyAndDuringTheDrainResumesAndLosesNothing() throws Exception {
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (Admin admin = Admin.create(props())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
            int old = awaitLeader(admin, TOPIC, 0);
            int target = old % 3 + 1;
            Map<String, Long> acked = new ConcurrentHashMap<>();
            String pad = "x".repeat(1000);
            try (KafkaProducer<String, String> p = new KafkaProducer<>(props())) {
                for (int i = 0; i < 3000; i++) {
                    String v = "v" + i + pad;
                    p.send(new ProducerRecord<>(TOPIC, 0, "k", v), (md, e) -> {
                        if (e == null) {
                            acked.put(v, md.offset());
                        }
                    });
                }
                p.flush();
            }
            assertThat(acked).hasSize(3000);
            // every answer of the old leader to a fetch leaves a second late: the copy (three fetches
            // of 1 MiB) and the drain take long enough to restart the new node in the middle of each
            Brook source = cluster.nodes.get(old - 1);
            source.faults().delay((short) 1, Duration.ofSeconds(1));

            admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(target)))))
                    .all().get();
            Await.until("node " + target + " has copied part of the log", WAIT, () -> copied(admin, target, tp) > 0);
            Brook copying = cluster.nodes.get(target - 1);
            copying.crash();
            copying.start();
            Await.until("the move completed and node " + target + " drains node " + old, WAIT, () -> {
                try {
                    var r = admin.listPartitionReassignments().reassignments().get().get(tp);
                    return r != null && r.addingReplicas().isEmpty() && r.removingReplicas().equals(List.of(old));
                } catch (Exception e) {
                    return false;
                }
            });
            copying.restart();
            Await.until("the partition moved to node " + target, WAIT, () -> movedTo(admin, tp, target));
            Await.until("node " + old + " deletes its log once drained", WAIT, () -> !hosts(admin, old, tp));
            source.faults().clear();

            Map<Long, String> read = readAll(props(), tp, 3000);
            assertThat(read).hasSize(3000);
            for (Map.Entry<String, Long> a : acked.entrySet()) {
                assertThat(read.get(a.getValue())).isEqualTo(a.getKey());
            }
        }
    }

    static long copied(Admin admin, int node, TopicPartition tp) {
        try {
            Map<String, LogDirDescription> d = admin.describeLogDirs(List.of(node)).descriptions().get(node).get();
            return d.values().stream().filter(x -> x.replicaInfos().containsKey(tp))
                    .mapToLong(x -> x.replicaInfos().get(tp).size()).sum();
        } catch (Exception e) {
            return 0;
        }
    }

    /** A group's committed offsets survive the move of its {@code __consumer_offsets} partition. */
    @Test
    void aConsumerGroupKeepsItsCommittedOffsetsWhenItsOffsetsPartitionMoves() throws Exception {
        try (Admin admin = Admin.create(props())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
            awaitLeader(admin, TOPIC, 0);
            TopicPartition data = new TopicPartition(TOPIC, 0);
            Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> committed = Map.of(data,
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(42, "meta"));
            Await.until("the offsets are committed", WAIT, () -> {
                try {
                    admin.alterConsumerGroupOffsets("g", committed).all().get();
                    return true;
                } catch (Exception e) {
                    return false;
                }
            });
            int count = admin.describeTopics(List.of("__consumer_offsets")).allTopicNames().get()
                    .get("__consumer_offsets").partitions().size();
            TopicPartition offsets = new TopicPartition("__consumer_offsets", ("g".hashCode() & 0x7fffffff) % count);
            int old = awaitLeader(admin, offsets.topic(), offsets.partition());
            int target = old % 3 + 1;

            admin.alterPartitionReassignments(Map.of(offsets,
                    Optional.of(new NewPartitionReassignment(List.of(target))))).all().get();
            Await.until("the offsets partition moved to node " + target, WAIT, () -> movedTo(admin, offsets, target));

            Await.until("the group's offsets are read from its new coordinator", WAIT, () -> {
                try {
                    return committed.equals(admin.listConsumerGroupOffsets("g").partitionsToOffsetAndMetadata().get());
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }
}
