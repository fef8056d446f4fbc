package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.node.LeaderHints;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.message.ProduceResponse.PartitionProduceResponse;
import io.brook.wire.message.ProduceResponse.TopicProduceResponse;
import io.brook.wire.protocol.Errors;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * KIP-951 leader hints as the handlers add them: only to partitions answered
 * NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH, only from Produce v10 and Fetch v16, the
 * leader's endpoint listed once; a partition without a known leader is hinted -1 and adds no
 * endpoint. (A single node's own answers never carry those errors in Produce; Fetch's case, a
 * follower's fetch, is in {@code FollowerFieldsTest}.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaderHintsTest {

    private Brook brook;
    private LeaderHints hints;

    @BeforeEach
    void start() throws Exception {
        brook = Brook.builder().port(0).start();
        hints = brook.context().leaderHints();
        try (ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            CreateTopicsResponse r = c.call(new CreateTopicsRequest().topics(List.of(
                    new CreatableTopic().name("t").numPartitions(2).replicationFactor((short) 1))), (short) 7);
            assertThat(r.topics().get(0).errorCode()).isZero();
        }
    }

    @AfterEach
    void stop() {
        brook.close();
    }

    private static ProduceResponse produceAnswer() {
        return new ProduceResponse().responses(List.of(
                new TopicProduceResponse().name("t").partitionResponses(List.of(
                        new PartitionProduceResponse().index(0).errorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()),
                        new PartitionProduceResponse().index(1).errorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()),
                        new PartitionProduceResponse().index(2).errorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()))),
                new TopicProduceResponse().name("other").partitionResponses(List.of(
                        new PartitionProduceResponse().index(0).errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())))));
    }

    @Test
    void produceAnswersGetTheLeaderFromV10() {
        ProduceResponse r = produceAnswer();
        hints.addTo(r, (short) 10);
        List<PartitionProduceResponse> t = r.responses().get(0).partitionResponses();
        for (int p = 0; p < 2; p++) {
            assertThat(t.get(p).currentLeader().leaderId()).isEqualTo(1);
            assertThat(t.get(p).currentLeader().leaderEpoch()).isZero();
        }
        // partition 2 does not exist: no leader known
        assertThat(t.get(2).currentLeader().leaderId()).isEqualTo(-1);
        assertThat(t.get(2).currentLeader().leaderEpoch()).isEqualTo(-1);
        assertThat(r.responses().get(1).partitionResponses().get(0).currentLeader().leaderId()).isEqualTo(-1);
        assertThat(r.nodeEndpoints()).singleElement().satisfies(n -> {
            assertThat(n.nodeId()).isEqualTo(1);
            assertThat(n.host()).isEqualTo("127.0.0.1");
            assertThat(n.port()).isEqualTo(brook.port());
        });

        ProduceResponse old = produceAnswer();
        hints.addTo(old, (short) 9);
        assertThat(old.nodeEndpoints()).isEmpty();
        assertThat(old.responses().get(0).partitionResponses().get(0).currentLeader().leaderId()).isEqualTo(-1);
    }

    @Test
    void fetchAnswersGetTheLeaderFromV16OnlyForTheHintedErrorsAndEndpointsOnlyForConsumers() {
        FetchResponse r = new FetchResponse().responses(List.of(new FetchResponse.FetchableTopicResponse().topic("t")
                .partitions(List.of(
                        new FetchResponse.PartitionData().partitionIndex(0).errorCode(Errors.FENCED_LEADER_EPOCH.code()),
                        new FetchResponse.PartitionData().partitionIndex(1).errorCode(Errors.UNKNOWN_LEADER_EPOCH.code())))));
        hints.addTo(r, (short) 15, false);
        assertThat(r.nodeEndpoints()).isEmpty();
        assertThat(r.responses().get(0).partitions().get(0).currentLeader().leaderId()).isEqualTo(-1);
        hints.addTo(r, (short) 16, true);
        assertThat(r.responses().get(0).partitions().get(0).currentLeader().leaderId()).isEqualTo(1);
        assertThat(r.nodeEndpoints()).as("none for a follower").isEmpty();
        hints.addTo(r, (short) 16, false);
        assertThat(r.responses().get(0).partitions().get(0).currentLeader().leaderId()).isEqualTo(1);
        assertThat(r.responses().get(0).partitions().get(1).currentLeader().leaderId()).isEqualTo(-1);
        assertThat(r.nodeEndpoints()).singleElement().satisfies(n -> assertThat(n.port()).isEqualTo(brook.port()));
    }
}
