package io.brook.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.node.MetadataQuorum;
import io.brook.server.node.MetadataQuorum.Replica;
import io.brook.server.node.MetadataQuorum.VoterEndpoint;
import io.brook.wire.protocol.ByteBufferWriter;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * DescribeQuorum in cluster mode, from a node's view of the quorum, each answer read back by
 * kafka-clients' own message class (what {@code kafka-metadata-quorum.sh} decodes).
 */
class ClusterQuorumViewTest {

    private static final long NOW = 1_700_000_000_000L;
    private static final List<VoterEndpoint> VOTERS = List.of(
            new VoterEndpoint(1, "CONTROLLER", "127.0.0.1", 9093),
            new VoterEndpoint(2, "CONTROLLER", "127.0.0.1", 9095),
            new VoterEndpoint(3, "CONTROLLER", "127.0.0.1", 9097));

    @Test
    void describesTheLeaderTermCommitIndexAndEveryVoter() {
        MetadataQuorum quorum = new MetadataQuorum(2, 7, 41, List.of(
                new Replica(1, 40, NOW - 30, NOW - 30, new java.util.UUID(1, 1)),
                new Replica(2, 41, -1, -1),
                new Replica(3, 41, NOW - 10, NOW - 10)), List.of(), VOTERS);

        DescribeQuorumResponseData r = roundTrip(ClusterQuorumView.describe(quorum, (short) 2, NOW), (short) 2);

        assertThat(r.errorCode()).isZero();
        DescribeQuorumResponseData.PartitionData p = r.topics().get(0).partitions().get(0);
        assertThat(r.topics().get(0).topicName()).isEqualTo("__cluster_metadata");
        assertThat(p.partitionIndex()).isZero();
        assertThat(p.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(p.leaderId()).isEqualTo(2);
        assertThat(p.leaderEpoch()).isEqualTo(7);
        assertThat(p.highWatermark()).isEqualTo(41);
        assertThat(p.currentVoters()).extracting(DescribeQuorumResponseData.ReplicaState::replicaId)
                .containsExactly(1, 2, 3);
        assertThat(p.currentVoters()).extracting(DescribeQuorumResponseData.ReplicaState::logEndOffset)
                .containsExactly(40L, 41L, 41L);
        // the leader's own times are now, as Kafka's; the others' as the node knows them
        assertThat(p.currentVoters()).extracting(DescribeQuorumResponseData.ReplicaState::lastFetchTimestamp)
                .containsExactly(NOW - 30, NOW, NOW - 10);
        assertThat(p.currentVoters()).extracting(DescribeQuorumResponseData.ReplicaState::lastCaughtUpTimestamp)
                .containsExactly(NOW - 30, NOW, NOW - 10);
        // the directory id a node reported (KIP-853); Kafka's zero id, printed as null, where none is known
        assertThat(p.currentVoters()).extracting(v -> v.replicaDirectoryId().toString())
                .containsExactly(new org.apache.kafka.common.Uuid(1, 1).toString(), "AAAAAAAAAAAAAAAAAAAAAA",
                        "AAAAAAAAAAAAAAAAAAAAAA");
        assertThat(p.observers()).isEmpty();
        assertThat(r.nodes()).extracting(DescribeQuorumResponseData.Node::nodeId).containsExactly(1, 2, 3);
        DescribeQuorumResponseData.Listener l = r.nodes().find(3).listeners().iterator().next();
        assertThat(l.name()).isEqualTo("CONTROLLER");
        assertThat(l.host()).isEqualTo("127.0.0.1");
        assertThat(l.port()).isEqualTo(9097);
    }

    @Test
    void aFollowersViewKeepsWhatItDoesNotKnowAtMinusOne() {
        MetadataQuorum quorum = new MetadataQuorum(1, 3, 12, List.of(
                new Replica(1, -1, -1, -1),
                new Replica(2, 12, -1, -1),
                new Replica(3, -1, -1, -1)), List.of(new Replica(4, 12, -1, -1)), VOTERS);

        DescribeQuorumResponseData r = roundTrip(ClusterQuorumView.describe(quorum, (short) 1, NOW), (short) 1);

        DescribeQuorumResponseData.PartitionData p = r.topics().get(0).partitions().get(0);
        assertThat(p.leaderId()).isEqualTo(1);
        assertThat(p.currentVoters()).extracting(DescribeQuorumResponseData.ReplicaState::logEndOffset)
                .containsExactly(-1L, 12L, -1L);
        assertThat(p.currentVoters().get(2).lastFetchTimestamp()).isEqualTo(-1);
        assertThat(p.observers()).extracting(DescribeQuorumResponseData.ReplicaState::replicaId).containsExactly(4);
    }

    @Test
    void noKnownLeaderIsTheRetriableNotLeaderOrFollower() {
        MetadataQuorum quorum = new MetadataQuorum(-1, 4, -1, List.of(new Replica(1, 9, -1, -1)), List.of(), VOTERS);

        DescribeQuorumResponseData r = roundTrip(ClusterQuorumView.describe(quorum, (short) 0, NOW), (short) 0);

        DescribeQuorumResponseData.PartitionData p = r.topics().get(0).partitions().get(0);
        assertThat(r.errorCode()).isZero();
        assertThat(p.errorCode()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
        assertThat(Errors.forCode(p.errorCode()).exception())
                .isInstanceOf(org.apache.kafka.common.errors.RetriableException.class);
        assertThat(p.currentVoters()).isEmpty();
    }

    private static DescribeQuorumResponseData roundTrip(io.brook.wire.message.DescribeQuorumResponse response,
                                                        short version) {
        ByteBuffer buffer = ByteBuffer.allocate(response.size(version));
        response.write(new ByteBufferWriter(buffer), version);
        assertThat(buffer.hasRemaining()).isFalse();
        buffer.flip();
        DescribeQuorumResponseData read = new DescribeQuorumResponseData();
        read.read(new ByteBufferAccessor(buffer), version);
        assertThat(buffer.hasRemaining()).isFalse();
        return read;
    }
}
