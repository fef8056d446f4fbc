package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.TopicPartitionReplica;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.apache.kafka.common.errors.ReplicaNotAvailableException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cluster's answers to Kafka's reassignment and election admin APIs, from stock kafka-clients
 * against three Brooks in one JVM: a reassignment is recorded by the controller and listed by
 * every node (replicas, adding and removing), the new replica's node keeps a log for it and the
 * old leader keeps serving (here the new replica cannot copy: the old leader refuses its
 * fetches, see ClusterPartitionMoveTest for moves that complete); a cancel returns to the original replicas and the new node drops its
 * log; DescribeLogDirs names each node's own replicas only, and AlterReplicaLogDirs answers a node
 * that is not a replica REPLICA_NOT_AVAILABLE; ElectLeaders answers from the image.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterReassignmentTest extends InJvmClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String TOPIC = "moves";

    @BeforeEach
    void startCluster() {
        cluster = InJvmCluster.start(dirs, "brook-reassignment-test", 3, Map.of());
    }

    private Properties props() {
        Properties p = new Properties();
        p.put("bootstrap.servers", cluster.bootstrap());
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        p.put("acks", "all");
        p.put("metadata.max.age.ms", "500");
        p.put("retry.backoff.ms", "50");
        p.put("request.timeout.ms", "5000");
        p.put("delivery.timeout.ms", "20000");
        return p;
    }

    private static TopicPartitionInfo partition0(Admin admin) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC);
        return d.partitions().get(0);
    }

    /** Partition 0's replicas followed by its leader, empty when unknown (a node whose image lags). */
    private static List<Integer> replicasAndLeader(Admin admin) {
        try {
            TopicPartitionInfo p = partition0(admin);
            List<Integer> out = new ArrayList<>(p.replicas().stream().map(n -> n.id()).toList());
            out.add(p.leader() == null ? -1 : p.leader().id());
            return out;
        } catch (Exception e) {
            return List.of();
        }
    }

    private static Set<TopicPartition> hostedBy(Admin admin, int node) throws Exception {
        Map<String, LogDirDescription> dirs = admin.describeLogDirs(List.of(node)).descriptions().get(node).get();
        Set<TopicPartition> out = new HashSet<>();
        dirs.values().forEach(d -> d.replicaInfos().keySet().stream().filter(tp -> tp.topic().equals(TOPIC))
                .forEach(out::add));
        return out;
    }

    private static String dataDirOf(Admin admin, int node) throws Exception {
        return admin.describeLogDirs(List.of(node)).descriptions().get(node).get().keySet().iterator().next();
    }

    private static Set<TopicPartition> hostedOrNone(Admin admin, int node) {
        try {
            return hostedBy(admin, node);
        } catch (Exception e) {
            return Set.of();
        }
    }

    private static Map<TopicPartition, PartitionReassignment> listed(Admin admin) throws Exception {
        return admin.listPartitionReassignments().reassignments().get();
    }

    @Test
    void aReassignmentIsListedWhileTheOldLeaderServesAndACancelReturnsToTheOriginalReplica() throws Exception {
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (Admin admin = Admin.create(props())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1))).all().get();
            Await.until("partition 0 has a leader", WAIT, () -> replicasAndLeader(admin).size() == 2
                    && replicasAndLeader(admin).get(1) > 0);
            int old = replicasAndLeader(admin).get(1);
            int target = old % 3 + 1;
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(props())) {
                producer.send(new ProducerRecord<>(TOPIC, 0, "k", "before")).get();
            }
            assertThat(hostedBy(admin, target)).doesNotContain(tp);
            // the old leader refuses the new replica's fetches: the copy cannot catch up, the move stays under way
            cluster.nodes.get(old - 1).faults().reject((short) 1, Integer.MAX_VALUE, (short) 6);

            admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(target)))))
                    .all().get();

            for (int node = 1; node <= 3; node++) {
                Properties via = props();
                via.put("bootstrap.servers", cluster.nodes.get(node - 1).bootstrapServers());
                try (Admin one = Admin.create(via)) {
                    PartitionReassignment r = listed(one).get(tp);
                    assertThat(r).as("node %d lists the move", node).isNotNull();
                    assertThat(r.replicas()).containsExactly(target, old);
                    assertThat(r.addingReplicas()).containsExactly(target);
                    assertThat(r.removingReplicas()).containsExactly(old);
                }
            }
            assertThat(admin.listPartitionReassignments(Set.of(new TopicPartition(TOPIC, 1))).reassignments().get())
                    .isEmpty();
            Await.until("Metadata shows replicas [" + target + ", " + old + "] led by " + old, WAIT,
                    () -> replicasAndLeader(admin).equals(List.of(target, old, old)));
            Await.until("node " + target + " keeps a log for the new replica", WAIT, () -> hostedOrNone(admin, target)
                    .contains(tp));
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(props())) {
                assertThat(producer.send(new ProducerRecord<>(TOPIC, 0, "k", "during")).get().offset()).isEqualTo(1);
            }

            admin.alterPartitionReassignments(Map.of(tp, Optional.empty())).all().get();

            assertThat(listed(admin)).isEmpty();
            Await.until("Metadata shows replicas [" + old + "] led by it", WAIT,
                    () -> replicasAndLeader(admin).equals(List.of(old, old)));
            Await.until("node " + target + " drops the cancelled replica's log", WAIT, () -> !hostedOrNone(admin, target)
                    .contains(tp));
            assertThat(hostedBy(admin, old)).contains(tp);
            cluster.nodes.get(old - 1).faults().clear();
            assertThatThrownBy(() -> admin.alterPartitionReassignments(Map.of(tp, Optional.empty())).all().get())
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(NoReassignmentInProgressException.class);
            assertThatThrownBy(() -> admin.alterPartitionReassignments(
                    Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(9))))).all().get())
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(InvalidReplicaAssignmentException.class);
        }
    }

    @Test
    void describeLogDirsNamesEachNodesOwnReplicasAndElectLeadersAnswersFromTheImage() throws Exception {
        try (Admin admin = Admin.create(props())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 6, (short) 1))).all().get();
            AtomicReference<TopicDescription> described = new AtomicReference<>();
            Await.until("every partition has a leader", WAIT, () -> {
                try {
                    described.set(admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC));
                    return described.get().partitions().stream().allMatch(p -> p.leader() != null);
                } catch (Exception e) {
                    return false;
                }
            });
            TopicDescription d = described.get();
            List<TopicPartition> all = new ArrayList<>();
            for (int node = 1; node <= 3; node++) {
                List<TopicPartition> expected = new ArrayList<>();
                for (TopicPartitionInfo p : d.partitions()) {
                    if (p.replicas().get(0).id() == node) {
                        expected.add(new TopicPartition(TOPIC, p.partition()));
                    }
                }
                int n = node;
                Await.until("node " + node + " hosts its replicas", WAIT,
                        () -> hostedOrNone(admin, n).equals(Set.copyOf(expected)));
                all.addAll(expected);
            }
            assertThat(all).hasSize(6);

            // AlterReplicaLogDirs: a node's replica stays in its data directory; a node that is
            // not a replica of the partition answers REPLICA_NOT_AVAILABLE, as Kafka does
            int replicaNode = d.partitions().get(0).replicas().get(0).id();
            int otherNode = replicaNode % 3 + 1;
            TopicPartitionReplica here = new TopicPartitionReplica(TOPIC, 0, replicaNode);
            TopicPartitionReplica notHere = new TopicPartitionReplica(TOPIC, 0, otherNode);
            admin.alterReplicaLogDirs(Map.of(here, dataDirOf(admin, replicaNode))).all().get();
            assertThat(admin.alterReplicaLogDirs(Map.of(notHere, dataDirOf(admin, otherNode))).values().get(notHere))
                    .failsWithin(WAIT).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(ReplicaNotAvailableException.class);

            assertThat(admin.electLeaders(ElectionType.PREFERRED, null).partitions().get()).isEmpty();
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            assertThat(admin.electLeaders(ElectionType.PREFERRED, Set.of(tp)).partitions().get().get(tp))
                    .get().isInstanceOf(ElectionNotNeededException.class);
            assertThat(admin.electLeaders(ElectionType.UNCLEAN, Set.of(tp)).partitions().get().get(tp))
                    .get().isInstanceOf(ElectionNotNeededException.class);
        }
    }
}
