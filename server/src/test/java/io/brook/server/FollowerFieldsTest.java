package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchRequest.FetchPartition;
import io.brook.wire.message.FetchRequest.FetchTopic;
import io.brook.wire.message.FetchRequest.ReplicaState;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.FetchResponse.PartitionData;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.RequestHeader;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the follower side of Fetch asks of a single node: a consumer's fetch carrying follower
 * fields (the replica state's broker epoch of KIP-903 at v15+, the directory id at v17, the
 * follower's high watermark at v18) is served as any consumer's; a fetch from a follower (this
 * node has none) is answered as Kafka answers a replica it does not know, with the leader hints
 * of KIP-951 from v16. And tagged fields a request carries that the broker does not know never
 * change its answer.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FollowerFieldsTest {

    private static final String TOPIC = "followers";

    private Brook brook;
    private ProtocolClient c;
    private UUID id;

    @BeforeEach
    void start() throws Exception {
        brook = Brook.builder().port(0).start();
        c = new ProtocolClient(brook.bootstrapServers());
        CreateTopicsResponse r = c.call(new CreateTopicsRequest().topics(List.of(
                new CreatableTopic().name(TOPIC).numPartitions(1).replicationFactor((short) 1))), (short) 7);
        assertThat(r.topics().get(0).errorCode()).isZero();
        id = r.topics().get(0).topicId();
        ProduceResponse p = c.call(new ProduceRequest().acks((short) -1).timeoutMs(10_000).topicData(List.of(
                new TopicProduceData().name(TOPIC).partitionData(List.of(new PartitionProduceData().index(0)
                        .records(BufferRecords.wrap(new RecordBatchBuilder(Compression.NONE)
                                .append(1000L, null, "x".getBytes()).build())))))), (short) 9);
        assertThat(p.responses().get(0).partitionResponses().get(0).errorCode()).isZero();
    }

    @AfterEach
    void stop() throws Exception {
        c.close();
        brook.close();
    }

    private FetchRequest fetch(short version, int currentLeaderEpoch) {
        FetchTopic t = new FetchTopic().partitions(List.of(new FetchPartition().partition(0).fetchOffset(0)
                .currentLeaderEpoch(currentLeaderEpoch).partitionMaxBytes(1 << 20)));
        return new FetchRequest().maxWaitMs(0).minBytes(0).maxBytes(1 << 20).sessionEpoch(-1)
                .topics(List.of(version >= 13 ? t.topicId(id) : t.topic(TOPIC)));
    }

    private static PartitionData only(FetchResponse r) {
        assertThat(r.errorCode()).isZero();
        return r.responses().get(0).partitions().get(0);
    }

    @Test
    void aConsumerFetchWithFollowerFieldsIsServed() throws Exception {
        for (short v = 15; v <= 18; v++) {
            FetchRequest req = fetch(v, 0).replicaState(new ReplicaState().replicaId(-1).replicaEpoch(42));
            if (v >= 17) {
                req.topics().get(0).partitions().get(0).replicaDirectoryId(UUID.randomUUID());
            }
            if (v >= 18) {
                req.topics().get(0).partitions().get(0).highWatermark(0);
            }
            PartitionData p = only(c.call(req, v));
            assertThat(p.errorCode()).as("v%d", v).isZero();
            assertThat(p.records().sizeInBytes()).as("v%d", v).isPositive();
            assertThat(p.highWatermark()).isEqualTo(1);
        }
    }

    @Test
    void aFollowerIsToldItIsNotAReplicaWithTheCurrentLeaderFromV16() throws Exception {
        for (short v = 4; v <= 18; v++) {
            FetchRequest req = fetch(v, -1);
            if (v >= 15) {
                req.replicaState(new ReplicaState().replicaId(2).replicaEpoch(7));
            } else {
                req.replicaId(2);
            }
            FetchResponse r = c.call(req, v);
            PartitionData p = only(r);
            assertThat(p.errorCode()).as("v%d", v).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
            assertThat(p.records().sizeInBytes()).isZero();
            if (v >= 16) {
                assertThat(p.currentLeader().leaderId()).isEqualTo(1);
                assertThat(p.currentLeader().leaderEpoch()).isZero();
                // Kafka 4.4 lists no endpoints to a follower (seen against it: LeaderHintsCompatTest)
                assertThat(r.nodeEndpoints()).isEmpty();
            } else {
                assertThat(p.currentLeader().leaderId()).as("v%d", v).isEqualTo(-1);
                assertThat(r.nodeEndpoints()).isEmpty();
            }
        }
    }

    /** Kafka: a follower naming the current epoch is not yet known to the leader, and retries. */
    @Test
    void aFollowerNamingTheEpochIsToldTheEpochIsUnknownWithoutHints() throws Exception {
        FetchResponse r = c.call(fetch((short) 17, 0).replicaState(new ReplicaState().replicaId(2).replicaEpoch(7)),
                (short) 17);
        PartitionData p = only(r);
        assertThat(p.errorCode()).isEqualTo(Errors.UNKNOWN_LEADER_EPOCH.code());
        assertThat(p.currentLeader().leaderId()).isEqualTo(-1);
        assertThat(r.nodeEndpoints()).isEmpty();
    }

    /**
     * Unknown tags in the request header's and the body's tagged sections (KIP-482) are skipped:
     * the answer is the one the same request gets without them.
     */
    @Test
    void unknownTaggedFieldsNeverChangeTheAnswer() throws Exception {
        short fv = 17;
        PartitionData plain = only(c.call(fetch(fv, 0), fv));
        PartitionData tagged = only(withUnknownTags(fetch(fv, 0), fv));
        assertThat(tagged.errorCode()).isZero();
        assertThat(tagged.highWatermark()).isEqualTo(plain.highWatermark());
        assertThat(tagged.records().sizeInBytes()).isEqualTo(plain.records().sizeInBytes());

        ApiVersionsRequest av = new ApiVersionsRequest().clientSoftwareName("brook-test").clientSoftwareVersion("1.0");
        ApiVersionsResponse versions = withUnknownTags(av, (short) 4);
        assertThat(versions.errorCode()).isZero();
        assertThat(versions.apiKeys()).isNotEmpty();

        ProduceRequest produce = new ProduceRequest().acks((short) 1).timeoutMs(10_000).topicData(List.of(
                new TopicProduceData().topicId(id).partitionData(List.of(new PartitionProduceData().index(0)
                        .records(BufferRecords.wrap(new RecordBatchBuilder(Compression.NONE)
                                .append(1000L, null, "y".getBytes()).build()))))));
        ProduceResponse produced = withUnknownTags(produce, (short) 13);
        assertThat(produced.responses().get(0).partitionResponses().get(0).errorCode()).isZero();
        assertThat(produced.responses().get(0).partitionResponses().get(0).baseOffset()).isEqualTo(1);
    }

    /** Sends {@code request} with two unknown tags in the header's and in the body's tagged section. */
    private <R extends ApiMessage> R withUnknownTags(ApiMessage request, short version) throws Exception {
        ApiKey key = request.apiKey();
        ByteBuffer plain = ProtocolClient.encode(request, version, 4242);
        int headerSize = new RequestHeader(key, version, 4242, "brook-test").size(key.requestHeaderVersion(version));
        byte[] b = new byte[plain.remaining()];
        plain.get(b);
        // both sections are empty (a single 0) at the end of the header and of the body
        assertThat(b[headerSize - 1]).isZero();
        assertThat(b[b.length - 1]).isZero();
        byte[] tags = {2, 7, 3, 'a', 'b', 'c', 99, 0}; // count 2; tag 7 of 3 bytes; tag 99 of 0 bytes
        ByteBuffer out = ByteBuffer.allocate(b.length - 2 + 2 * tags.length);
        out.put(b, 0, headerSize - 1).put(tags).put(b, headerSize, b.length - headerSize - 1).put(tags).flip();
        c.raw().sendFrame(out);
        return c.receive(key, version, 4242);
    }
}
