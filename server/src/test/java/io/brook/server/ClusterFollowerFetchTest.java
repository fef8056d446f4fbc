package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchRequest.FetchPartition;
import io.brook.wire.message.FetchRequest.FetchTopic;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.FetchResponse.PartitionData;
import io.brook.wire.protocol.Errors;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A leader's answers to followers' fetches in cluster mode (docs/cluster.md, section 6a): another
 * replica of the partition reads its records up to the high watermark, with the leader's log
 * start; a node that is not a replica is answered as Kafka answers a replica it does not know;
 * Kafka's epoch checks and OFFSET_OUT_OF_RANGE apply; a node that does not lead the partition
 * serves no follower.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterFollowerFetchTest extends InJvmClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(40);
    private static final String TOPIC = "followed";


    private static PartitionData fetch(Brook node, int replicaId, int epoch, long offset) throws Exception {
        try (ProtocolClient c = new ProtocolClient(node.bootstrapServers())) {
            FetchResponse r = c.call(new FetchRequest().replicaId(replicaId).maxWaitMs(0).minBytes(0).maxBytes(1 << 20)
                    .sessionEpoch(-1).topics(List.of(new FetchTopic().topic(TOPIC).partitions(List.of(
                            new FetchPartition().partition(0).fetchOffset(offset).currentLeaderEpoch(epoch)
                                    .partitionMaxBytes(1 << 20))))), (short) 12);
            return r.responses().get(0).partitions().get(0);
        }
    }

    private static short servedError(Brook node, int replicaId) {
        try {
            return fetch(node, replicaId, 0, 1).errorCode();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aLeaderServesItsReplicasUpToTheHighWatermarkAndRefusesOtherNodes() throws Exception {
        cluster = InJvmCluster.start(dirs, "brook-follower-fetch-test", 3, Map.of());
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (Admin admin = Admin.create(InJvmCluster.clientProps(cluster.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
            int leader = ClusterPartitionMoveTest.awaitLeader(admin, TOPIC, 0);
            int replica = leader % 3 + 1;
            int stranger = replica % 3 + 1;
            try (KafkaProducer<String, String> p = new KafkaProducer<>(InJvmCluster.clientProps(cluster.bootstrap()))) {
                for (int i = 0; i < 3; i++) {
                    p.send(new ProducerRecord<>(TOPIC, 0, "k", "v" + i)).get();
                }
            }
            // a second replica: the move keeps the leader, which serves the new replica's copy
            admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(
                    List.of(leader, replica))))).all().get();
            Await.until("replicas [" + leader + ", " + replica + "]", WAIT, () -> {
                TopicPartitionInfo info = ClusterPartitionMoveTest.partition(admin, TOPIC, 0);
                return info != null && info.replicas().size() == 2 && info.leader() != null
                        && info.leader().id() == leader;
            });
            Brook leading = cluster.nodes.get(leader - 1);
            // the metadata above may come from another node: the leader applies the move on its own time,
            // and until then answers the new replica as a node it does not know
            Await.until("the leader to serve its new replica", WAIT,
                    () -> servedError(leading, replica) == Errors.NONE.code());

            PartitionData served = fetch(leading, replica, 0, 1);
            assertThat(served.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(served.records().sizeInBytes()).isPositive();
            assertThat(served.highWatermark()).isEqualTo(3);
            assertThat(served.logStartOffset()).isZero();

            assertThat(fetch(leading, replica, 1, 0).errorCode()).isEqualTo(Errors.UNKNOWN_LEADER_EPOCH.code());
            assertThat(fetch(leading, replica, 0, 4).errorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
            assertThat(fetch(leading, stranger, 0, 0).errorCode()).isEqualTo(Errors.UNKNOWN_LEADER_EPOCH.code());
            assertThat(fetch(leading, stranger, -1, 0).errorCode()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
            assertThat(fetch(cluster.nodes.get(replica - 1), leader, 0, 0).errorCode())
                    .isEqualTo(Errors.UNKNOWN_LEADER_EPOCH.code());
        }
    }
}
