package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionReplica;
import org.apache.kafka.common.errors.LogDirNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * DescribeLogDirs through the Admin client, as {@code kafka-log-dirs.sh --describe}, kafka-ui and
 * AKHQ call it: the data directory, each partition's size, and the volume's sizes (KIP-827); and
 * AlterReplicaLogDirs, as {@code kafka-reassign-partitions.sh} sends it for a plan with
 * {@code log_dirs}: a move to the directory the replica is in is done (nothing to move), one to a
 * directory the broker does not have is refused.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LogDirsCompatTest {

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    @Test
    void describesEveryPartitionWithItsSizeAndTheVolume() throws Exception {
        String topic = Groups.unique("log-dirs");
        Groups.createTopic(cluster.bootstrapServers(), topic, 2);
        Groups.produce(cluster.bootstrapServers(), topic, 2, 5);
        try (Admin admin = Groups.admin(cluster.bootstrapServers())) {
            int node = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next().id();
            Map<String, LogDirDescription> dirs = admin.describeLogDirs(List.of(node)).allDescriptions()
                    .get(30, TimeUnit.SECONDS).get(node);
            assertThat(dirs).isNotEmpty();
            LogDirDescription dir = dirs.values().stream()
                    .filter(d -> d.replicaInfos().containsKey(new TopicPartition(topic, 0)))
                    .findFirst().orElseThrow();
            assertThat(dir.error()).isNull();
            ReplicaInfo p0 = dir.replicaInfos().get(new TopicPartition(topic, 0));
            ReplicaInfo p1 = dir.replicaInfos().get(new TopicPartition(topic, 1));
            assertThat(p0.size()).isPositive();
            assertThat(p1.size()).isPositive();
            assertThat(p0.offsetLag()).isZero();
            assertThat(p0.isFuture()).isFalse();
            assertThat(dir.totalBytes().orElse(-1)).isPositive();
            assertThat(dir.usableBytes().orElse(-1)).isPositive();

            // the replica-level view (kafka-reassign-partitions' and AKHQ's) reads the same answer
            var replica = new TopicPartitionReplica(topic, 1, node);
            assertThat(admin.describeReplicaLogDirs(List.of(replica)).all().get(30, TimeUnit.SECONDS).get(replica)
                    .getCurrentReplicaLogDir()).isNotNull();
        }
    }

    @Test
    void aMoveToTheDirectoryAReplicaIsInIsDoneAndAnUnknownDirectoryIsNotFound() throws Exception {
        String topic = Groups.unique("log-dir-moves");
        Groups.createTopic(cluster.bootstrapServers(), topic, 1);
        try (Admin admin = Groups.admin(cluster.bootstrapServers())) {
            int node = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next().id();
            TopicPartitionReplica replica = new TopicPartitionReplica(topic, 0, node);
            String dir = admin.describeReplicaLogDirs(List.of(replica)).all().get(30, TimeUnit.SECONDS).get(replica)
                    .getCurrentReplicaLogDir();
            assertThat(dir).isNotNull();

            admin.alterReplicaLogDirs(Map.of(replica, dir)).all().get(30, TimeUnit.SECONDS);

            TopicPartitionReplica missing = new TopicPartitionReplica(topic, 3, node);
            Map<TopicPartitionReplica, KafkaFuture<Void>> answers = admin.alterReplicaLogDirs(Map.of(
                    replica, dir + "-not-configured", missing, dir)).values();
            assertThatThrownBy(() -> answers.get(replica).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(LogDirNotFoundException.class);
            assertThatThrownBy(() -> answers.get(missing).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
            assertThat(admin.describeReplicaLogDirs(List.of(replica)).all().get(30, TimeUnit.SECONDS).get(replica)
                    .getCurrentReplicaLogDir()).isEqualTo(dir);
        }
    }
}
