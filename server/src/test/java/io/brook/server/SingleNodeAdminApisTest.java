package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionReplica;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.LogDirNotFoundException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ElectLeaders, AlterPartitionReassignments, ListPartitionReassignments, AlterReplicaLogDirs and
 * DescribeQuorum through Kafka's Admin client (what kafka-leader-election.sh,
 * kafka-reassign-partitions.sh and kafka-metadata-quorum.sh call): answered as a single-node KRaft cluster would answer them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SingleNodeAdminApisTest {

    private Brook brook;
    private Admin admin;

    @BeforeEach
    void start() throws Exception {
        brook = Brook.builder().port(0).start();
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        admin = Admin.create(p);
        admin.createTopics(List.of(new NewTopic("orders", 2, (short) 1))).all().get();
    }

    @AfterEach
    void stop() {
        admin.close();
        brook.close();
    }

    @Test
    void shouldAnswerThatNoElectionIsNeeded() throws Exception {
        TopicPartition p0 = new TopicPartition("orders", 0);
        TopicPartition missing = new TopicPartition("orders", 5);
        Map<TopicPartition, Optional<Throwable>> named = admin.electLeaders(ElectionType.PREFERRED,
                Set.of(p0, missing)).partitions().get();
        assertThat(named.get(p0)).containsInstanceOf(ElectionNotNeededException.class);
        assertThat(named.get(missing)).containsInstanceOf(UnknownTopicOrPartitionException.class);
        assertThat(admin.electLeaders(ElectionType.UNCLEAN, Set.of(p0)).partitions().get().get(p0))
                .containsInstanceOf(ElectionNotNeededException.class);
        // all partitions: those that need no election are left out
        assertThat(admin.electLeaders(ElectionType.PREFERRED, null).partitions().get()).isEmpty();
    }

    @Test
    void shouldListNoReassignments() throws Exception {
        assertThat(admin.listPartitionReassignments().reassignments().get()).isEmpty();
        assertThat(admin.listPartitionReassignments(Set.of(new TopicPartition("orders", 1))).reassignments().get())
                .isEmpty();
    }

    @Test
    void shouldAcceptAMoveToThisNodeAndRefuseOtherBrokersAndCancels() throws Exception {
        TopicPartition p0 = new TopicPartition("orders", 0);
        int self = admin.describeCluster().nodes().get().iterator().next().id();
        admin.alterPartitionReassignments(Map.of(p0, Optional.of(new NewPartitionReassignment(List.of(self)))))
                .all().get();

        Map<TopicPartition, KafkaFuture<Void>> refused = admin.alterPartitionReassignments(Map.of(
                p0, Optional.of(new NewPartitionReassignment(List.of(self + 1))),
                new TopicPartition("orders", 1), Optional.empty(),
                new TopicPartition("orders", 7), Optional.of(new NewPartitionReassignment(List.of(self))))).values();
        assertThat(refused.get(p0)).failsWithin(Duration.ofSeconds(10)).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidReplicaAssignmentException.class);
        assertThat(refused.get(new TopicPartition("orders", 1))).failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(NoReassignmentInProgressException.class);
        assertThat(refused.get(new TopicPartition("orders", 7))).failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(UnknownTopicOrPartitionException.class);
        assertThat(admin.listPartitionReassignments().reassignments().get()).isEmpty();
    }

    @Test
    void shouldDescribeAQuorumOfThisNodeAlone() throws Exception {
        int node = admin.describeCluster().controller().get().id();
        QuorumInfo q = admin.describeMetadataQuorum().quorumInfo().get();
        assertThat(q.leaderId()).isEqualTo(node);
        assertThat(q.leaderEpoch()).isEqualTo(1);
        assertThat(q.highWatermark()).isZero();
        assertThat(q.voters()).singleElement().satisfies(v -> {
            assertThat(v.replicaId()).isEqualTo(node);
            assertThat(v.logEndOffset()).isZero();
            assertThat(v.lastCaughtUpTimestamp()).isPresent();
        });
        assertThat(q.observers()).isEmpty();
        assertThat(q.nodes()).containsOnlyKeys(node);
        assertThat(q.nodes().get(node).endpoints()).singleElement()
                .satisfies(e -> assertThat(e.port()).isEqualTo(brook.port()));
    }

    @Test
    void shouldAnswerAMoveToTheDataDirectoryAsDoneAndRefuseOtherDirectories() throws Exception {
        int self = admin.describeCluster().nodes().get().iterator().next().id();
        String dir = admin.describeLogDirs(List.of(self)).allDescriptions().get().get(self).keySet().iterator().next();
        TopicPartitionReplica p0 = new TopicPartitionReplica("orders", 0, self);
        TopicPartitionReplica p1 = new TopicPartitionReplica("orders", 1, self);
        TopicPartitionReplica missing = new TopicPartitionReplica("orders", 5, self);
        TopicPartitionReplica unknownTopic = new TopicPartitionReplica("nope", 0, self);

        // where the replicas are already: nothing to move, as Kafka answers it
        admin.alterReplicaLogDirs(Map.of(p0, dir, p1, dir + "/")).all().get();
        assertThat(admin.describeReplicaLogDirs(List.of(p0)).all().get().get(p0).getCurrentReplicaLogDir())
                .isEqualTo(dir);

        Map<TopicPartitionReplica, KafkaFuture<Void>> answers = admin.alterReplicaLogDirs(Map.of(
                p0, dir + "-elsewhere", p1, "relative/dir", missing, dir, unknownTopic, dir)).values();
        assertThat(cause(answers.get(p0))).isInstanceOf(LogDirNotFoundException.class);
        assertThat(cause(answers.get(p1))).as("only an absolute path names a directory")
                .isInstanceOf(LogDirNotFoundException.class);
        assertThat(cause(answers.get(missing))).isInstanceOf(UnknownTopicOrPartitionException.class);
        assertThat(cause(answers.get(unknownTopic))).isInstanceOf(UnknownTopicOrPartitionException.class);
    }

    private static Throwable cause(KafkaFuture<Void> answer) throws InterruptedException {
        try {
            answer.get();
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }
}
