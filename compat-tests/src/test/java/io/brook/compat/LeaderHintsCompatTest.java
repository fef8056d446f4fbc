package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * KIP-951 leader hints in Fetch (v16+), read by kafka-clients. The one fetch a single node answers
 * NOT_LEADER_OR_FOLLOWER is a follower's that is not in the partition's replica set: it names a
 * replica id (here one that no broker has) and no current leader epoch. The answer carries the
 * partition's current leader, but no node endpoints (Kafka 4.4 lists them only in answers to
 * consumers); naming the current leader epoch instead gets UNKNOWN_LEADER_EPOCH (the replica is
 * not yet known at that epoch) and no hint.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaderHintsCompatTest {

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    @Test
    void aFollowerThatIsNotAReplicaIsToldTheCurrentLeader() throws Exception {
        String topic = Groups.unique("hints");
        TopicPartition tp = new TopicPartition(topic, 0);
        TopicDescription d;
        try (Admin admin = Groups.admin(cluster.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            d = Groups.awaitTopic(admin, topic, 1);
        }
        Node leader = d.partitions().get(0).leader();
        int stranger = leader.id() + 100;
        try (RawKafkaRequests raw = new RawKafkaRequests(cluster.bootstrapServers())) {
            // Kafka's broker may hint leader -1 for a moment after its metadata shows the new topic
            Groups.await(Duration.ofSeconds(30), "a hint that names the leader", () -> {
                try {
                    FetchResponseData.PartitionData p = fetchAsReplica(raw, (short) 16, stranger, tp, d, Optional.empty());
                    assertThat(p.errorCode()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
                    return p.currentLeader().leaderId() != -1;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            for (short v = 16; v <= 18; v++) {
                FetchResponseData.PartitionData p = fetchAsReplica(raw, v, stranger, tp, d, Optional.empty());
                FetchResponseData data = lastResponse;
                assertThat(p.errorCode()).as("v%d", v).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
                assertThat(p.currentLeader().leaderId()).isEqualTo(leader.id());
                assertThat(p.currentLeader().leaderEpoch()).isNotNegative();
                // Kafka lists endpoints only to consumers: followers know the brokers from the metadata log
                assertThat(data.nodeEndpoints()).isEmpty();

                FetchResponseData.PartitionData withEpoch = fetchAsReplica(raw, v, stranger, tp, d,
                        Optional.of(p.currentLeader().leaderEpoch()));
                assertThat(withEpoch.errorCode()).isEqualTo(Errors.UNKNOWN_LEADER_EPOCH.code());
                assertThat(withEpoch.currentLeader().leaderId()).isEqualTo(-1);
            }
        }
    }

    private FetchResponseData lastResponse;

    private FetchResponseData.PartitionData fetchAsReplica(RawKafkaRequests raw, short version, int replicaId,
            TopicPartition tp, TopicDescription d, Optional<Integer> currentLeaderEpoch) throws Exception {
        Map<TopicPartition, FetchRequest.PartitionData> data = new LinkedHashMap<>();
        data.put(tp, new FetchRequest.PartitionData(d.topicId(), 0, 0, 1 << 20, currentLeaderEpoch));
        FetchRequest request = FetchRequest.Builder.forReplica(version, replicaId, 1L, 0, 0, data).build(version);
        FetchResponse response = (FetchResponse) raw.call(request);
        lastResponse = response.data();
        assertThat(lastResponse.errorCode()).isZero();
        return lastResponse.responses().get(0).partitions().get(0);
    }
}
