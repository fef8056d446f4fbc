package io.brook.wire.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.ByteBufferWriter;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.ProtocolDecodeException;
import io.brook.wire.protocol.Records;
import io.brook.wire.protocol.ResponseHeader;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class MessageCodecTest {

    static ByteBuffer encode(ApiMessage m, short version) {
        return m.toByteBuffer(version);
    }

    static ApiMessage roundTrip(ApiMessage m, short version, boolean request) {
        ByteBuffer buf = encode(m, version);
        assertThat(buf.remaining()).isEqualTo(m.size(version));
        ApiMessage read = request
                ? ApiMessages.readRequest(m.apiKey(), version, buf)
                : ApiMessages.readResponse(m.apiKey(), version, buf);
        assertThat(buf.hasRemaining()).as("all bytes consumed").isFalse();
        return read;
    }

    static Records records(int... bytes) {
        ByteBuffer b = ByteBuffer.allocate(bytes.length);
        for (int x : bytes) {
            b.put((byte) x);
        }
        return BufferRecords.wrap(b.flip());
    }

    @Test
    void shouldRoundTripDefaultsOfEveryMessageAtEveryVersion() {
        for (ApiKey key : ApiKey.values()) {
            for (short v = key.oldestVersion(); v <= key.latestVersion(); v++) {
                ApiMessage request = ApiMessages.newRequest(key);
                assertThat(roundTrip(request, v, true)).as(key + " request v" + v).isEqualTo(request);
                ApiMessage response = ApiMessages.newResponse(key);
                assertThat(roundTrip(response, v, false)).as(key + " response v" + v).isEqualTo(response);
            }
        }
    }

    @Test
    void shouldMatchCodecRangesOfApiKey() {
        for (ApiKey key : ApiKey.values()) {
            ApiMessage request = ApiMessages.newRequest(key);
            assertThat(request.apiKey()).isEqualTo(key);
            assertThat(ApiMessages.newResponse(key).apiKey()).isEqualTo(key);
            short below = (short) (key.oldestVersion() - 1);
            short above = (short) (key.latestVersion() + 1);
            assertThatThrownBy(() -> request.size(above)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> ApiMessages.readRequest(key, above, ByteBuffer.allocate(64)))
                    .isInstanceOf(ProtocolDecodeException.class).hasMessageContaining("unsupported version");
            if (below >= 0) {
                assertThatThrownBy(() -> request.size(below)).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> ApiMessages.readResponse(key, below, ByteBuffer.allocate(64)))
                        .isInstanceOf(ProtocolDecodeException.class);
            }
        }
    }

    @Test
    void shouldRejectUnknownApiKey() {
        assertThatThrownBy(() -> ApiMessages.readRequest(null, (short) 0, ByteBuffer.allocate(8)))
                .isInstanceOf(ProtocolDecodeException.class);
    }

    static ProduceRequest produce(boolean withTopicIds) {
        List<ProduceRequest.PartitionProduceData> partitions = new ArrayList<>();
        partitions.add(new ProduceRequest.PartitionProduceData().index(0).records(records(1, 2, 3, 4)));
        partitions.add(new ProduceRequest.PartitionProduceData().index(7).records(null));
        ProduceRequest.TopicProduceData topic = new ProduceRequest.TopicProduceData().partitionData(partitions);
        if (withTopicIds) {
            topic.topicId(new UUID(1, 2));
        } else {
            topic.name("events-é");
        }
        List<ProduceRequest.TopicProduceData> topics = new ArrayList<>();
        topics.add(topic);
        return new ProduceRequest().transactionalId("tx").acks((short) -1).timeoutMs(30000).topicData(topics);
    }

    @Test
    void shouldRoundTripProduceRequestInClassicAndFlexibleVersions() {
        for (short v : new short[] {3, 7, 8, 9, 12}) {
            ProduceRequest m = produce(false);
            assertThat(roundTrip(m, v, true)).as("v" + v).isEqualTo(m);
        }
        ProduceRequest m13 = produce(true);
        assertThat(roundTrip(m13, (short) 13, true)).isEqualTo(m13);
    }

    @Test
    void shouldEncodeProduceRequestV3ExactlyAsTheSpecSays() {
        ProduceRequest m = new ProduceRequest().transactionalId(null).acks((short) 1).timeoutMs(1000);
        m.topicData().add(new ProduceRequest.TopicProduceData().name("t"));
        m.topicData().get(0).partitionData().add(new ProduceRequest.PartitionProduceData().index(2).records(records(9)));
        byte[] expected = {
            (byte) 0xFF, (byte) 0xFF, // transactional_id null
            0, 1, // acks
            0, 0, 0x03, (byte) 0xE8, // timeout
            0, 0, 0, 1, // one topic
            0, 1, 't',
            0, 0, 0, 1, // one partition
            0, 0, 0, 2, // index
            0, 0, 0, 1, 9 // records
        };
        assertThat(bytes(encode(m, (short) 3))).containsExactly(expected);
    }

    @Test
    void shouldEncodeFlexibleProduceRequestWithCompactFormsAndTaggedSections() {
        ProduceRequest m = new ProduceRequest().transactionalId(null).acks((short) 1).timeoutMs(1000);
        m.topicData().add(new ProduceRequest.TopicProduceData().name("t"));
        m.topicData().get(0).partitionData().add(new ProduceRequest.PartitionProduceData().index(2).records(records(9)));
        byte[] expected = {
            0, // transactional_id null (compact)
            0, 1,
            0, 0, 0x03, (byte) 0xE8,
            2, // one topic (compact count + 1)
            2, 't',
            2, // one partition
            0, 0, 0, 2,
            2, 9, // compact records
            0, // partition tagged fields
            0, // topic tagged fields
            0 // body tagged fields
        };
        assertThat(bytes(encode(m, (short) 9))).containsExactly(expected);
    }

    @Test
    void shouldKeepRecordsAsZeroCopySlicesOfTheRequest() {
        ByteBuffer buf = encode(produce(false), (short) 9);
        ProduceRequest read = ProduceRequest.read(buf, (short) 9);
        BufferRecords records = (BufferRecords) read.topicData().get(0).partitionData().get(0).records();
        ByteBuffer view = records.buffer();
        assertThat(view.isReadOnly()).isTrue();
        int offsetInRequest = -1;
        for (int i = 0; i + 3 < buf.limit(); i++) {
            if (buf.get(i) == 1 && buf.get(i + 1) == 2 && buf.get(i + 2) == 3 && buf.get(i + 3) == 4) {
                offsetInRequest = i;
            }
        }
        buf.put(offsetInRequest, (byte) 42);
        assertThat(records.buffer().get(0)).isEqualTo((byte) 42);
    }

    static FetchResponse fetchResponse(boolean withTaggedFields) {
        FetchResponse.PartitionData p = new FetchResponse.PartitionData()
                .partitionIndex(3).errorCode((short) 0).highWatermark(100).lastStableOffset(90).logStartOffset(0)
                .preferredReadReplica(-1).records(records(5, 6, 7));
        p.abortedTransactions(new ArrayList<>(List.of(new FetchResponse.AbortedTransaction().producerId(11).firstOffset(12))));
        if (withTaggedFields) {
            p.currentLeader(new FetchResponse.LeaderIdAndEpoch().leaderId(1).leaderEpoch(5));
            p.divergingEpoch(new FetchResponse.EpochEndOffset().epoch(4).endOffset(80));
        }
        FetchResponse.FetchableTopicResponse t = new FetchResponse.FetchableTopicResponse().topic("orders");
        t.partitions().add(p);
        FetchResponse m = new FetchResponse().throttleTimeMs(5).sessionId(0);
        m.responses().add(t);
        return m;
    }

    @Test
    void shouldRoundTripFetchResponseWithAndWithoutTaggedFields() {
        for (short v : new short[] {5, 7, 11, 12}) {
            FetchResponse m = fetchResponse(false);
            assertThat(roundTrip(m, v, false)).as("v" + v).isEqualTo(m);
        }
        FetchResponse tagged = fetchResponse(true);
        FetchResponse read = (FetchResponse) roundTrip(tagged, (short) 12, false);
        assertThat(read).isEqualTo(tagged);
        assertThat(read.responses().get(0).partitions().get(0).currentLeader().leaderEpoch()).isEqualTo(5);
        // each tagged field costs bytes only when present
        assertThat(tagged.size((short) 12)).isGreaterThan(fetchResponse(false).size((short) 12));
    }

    @Test
    void shouldRejectNonIgnorableFieldAVersionCannotCarry() {
        // CurrentLeader is a non-ignorable tagged field from v12
        assertThatThrownBy(() -> fetchResponse(true).toByteBuffer((short) 11))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("FetchResponse.PartitionData.divergingEpoch");
        // OffsetFetch v8 has no top-level group id
        OffsetFetchRequest r = new OffsetFetchRequest().groupId("g");
        assertThatThrownBy(() -> r.toByteBuffer((short) 8))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("OffsetFetchRequest.groupId");
    }

    @Test
    void shouldDropIgnorableFieldsSilently() {
        // ThrottleTimeMs of ListOffsetsResponse starts at v2 and is ignorable
        ListOffsetsResponse m = new ListOffsetsResponse().throttleTimeMs(100);
        ListOffsetsResponse read = (ListOffsetsResponse) roundTrip(m, (short) 1, false);
        assertThat(read.throttleTimeMs()).isZero();
    }

    @Test
    void shouldRejectNullWhereTheVersionDoesNotAllowIt() {
        // MetadataRequest.topics is nullable from v1 only
        MetadataRequest m = new MetadataRequest().topics(null);
        assertThat(roundTrip(m, (short) 1, true)).isEqualTo(m);
        assertThatThrownBy(() -> m.toByteBuffer((short) 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MetadataRequest.topics");
        JoinGroupRequest j = new JoinGroupRequest().groupId(null);
        assertThatThrownBy(() -> j.toByteBuffer((short) 9))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("JoinGroupRequest.groupId");
    }

    @Test
    void shouldRoundTripNullableStructWithInt8Marker() {
        ConsumerGroupHeartbeatResponse none = new ConsumerGroupHeartbeatResponse().memberId("m").memberEpoch(3);
        assertThat(none.assignment()).isNull();
        assertThat(roundTrip(none, (short) 1, false)).isEqualTo(none);

        ConsumerGroupHeartbeatResponse.TopicPartitions tp = new ConsumerGroupHeartbeatResponse.TopicPartitions()
                .topicId(UUID.randomUUID()).partitions(new ArrayList<>(List.of(0, 1, 2)));
        ConsumerGroupHeartbeatResponse some = new ConsumerGroupHeartbeatResponse().memberId("m")
                .assignment(new ConsumerGroupHeartbeatResponse.Assignment().topicPartitions(new ArrayList<>(List.of(tp))));
        assertThat(roundTrip(some, (short) 0, false)).isEqualTo(some);
        assertThat(some.size((short) 0) - none.size((short) 0)).isGreaterThan(1);

        ByteBuffer encoded = none.toByteBuffer((short) 0);
        // throttle(4) error(2) errorMessage null(1) memberId "m"(2) epoch(4) interval(4) -> marker
        assertThat(encoded.get(4 + 2 + 1 + 2 + 4 + 4)).isEqualTo((byte) -1);
    }

    @Test
    void shouldRoundTripSharedStructsDeclaredTwice() {
        AddPartitionsToTxnRequest m = new AddPartitionsToTxnRequest().v3AndBelowTransactionalId("tx")
                .v3AndBelowProducerId(5).v3AndBelowProducerEpoch((short) 1);
        m.v3AndBelowTopics().add(new AddPartitionsToTxnRequest.AddPartitionsToTxnTopic().name("a")
                .partitions(new ArrayList<>(List.of(1, 2))));
        for (short v = 0; v <= 3; v++) {
            assertThat(roundTrip(m, v, true)).as("v" + v).isEqualTo(m);
        }
        AddPartitionsToTxnRequest v4 = new AddPartitionsToTxnRequest();
        v4.transactions().add(new AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction().transactionalId("t")
                .verifyOnly(true).topics(new ArrayList<>(m.v3AndBelowTopics())));
        assertThat(roundTrip(v4, (short) 5, true)).isEqualTo(v4);
    }

    @Test
    void shouldRoundTripApiVersionsResponseTaggedFeatures() {
        ApiVersionsResponse m = apiVersions().throttleTimeMs(0).finalizedFeaturesEpoch(7);
        m.supportedFeatures().add(new ApiVersionsResponse.SupportedFeatureKey().name("f").minVersion((short) 0)
                .maxVersion((short) 1));
        ApiVersionsResponse read = (ApiVersionsResponse) roundTrip(m, (short) 3, false);
        assertThat(read).isEqualTo(m);
        assertThat(read.finalizedFeaturesEpoch()).isEqualTo(7);
        // tagged fields are silently dropped below v3 because they are ignorable
        ApiVersionsResponse v2 = (ApiVersionsResponse) roundTrip(m, (short) 2, false);
        assertThat(v2.supportedFeatures()).isEmpty();
        assertThat(v2.apiKeys()).isEqualTo(m.apiKeys());
    }

    @Test
    void shouldSkipUnknownTaggedFieldsOnRead() {
        HeartbeatRequest m = new HeartbeatRequest().groupId("g").generationId(1).memberId("m");
        ByteBuffer plain = m.toByteBuffer((short) 4);
        // replace the trailing empty tagged section (0) with one unknown tag 42 of 3 bytes
        ByteBuffer withTag = ByteBuffer.allocate(plain.remaining() + 5);
        withTag.put(plain.duplicate().limit(plain.limit() - 1));
        withTag.put(new byte[] {1, 42, 3, 9, 9, 9});
        withTag.flip();
        assertThat(HeartbeatRequest.read(withTag, (short) 4)).isEqualTo(m);
        assertThat(withTag.hasRemaining()).isFalse();
    }

    @Test
    void shouldRejectKnownTaggedFieldThatOverrunsItsDeclaredSize() {
        FetchRequest m = new FetchRequest().clusterId("abc");
        ByteBuffer buf = m.toByteBuffer((short) 12);
        // tagged section at the end: count=1, tag=0, size=4, compact string (4,'a','b','c'), then nothing
        int sizePos = buf.limit() - 5;
        assertThat(buf.get(sizePos)).isEqualTo((byte) 4);
        buf.put(sizePos, (byte) 2);
        assertThatThrownBy(() -> FetchRequest.read(buf, (short) 12))
                .isInstanceOf(ProtocolDecodeException.class);
    }

    /** A successful ApiVersions body listing a few keys, as a broker might answer. */
    static ApiVersionsResponse apiVersions() {
        ApiVersionsResponse m = new ApiVersionsResponse();
        m.apiKeys().add(new ApiVersionsResponse.ApiVersion().apiKey((short) 0).minVersion((short) 0).maxVersion((short) 12));
        m.apiKeys().add(new ApiVersionsResponse.ApiVersion().apiKey((short) 1).minVersion((short) 4).maxVersion((short) 12));
        m.apiKeys().add(new ApiVersionsResponse.ApiVersion().apiKey((short) 18).minVersion((short) 0).maxVersion((short) 4));
        return m;
    }

    /**
     * The answer to an ApiVersions request of a version the broker cannot read (KIP-511): header
     * v0, then a v0 body with UNSUPPORTED_VERSION and the ApiVersions entry alone.
     */
    @Test
    void shouldWriteApiVersionsDowngradeAnswerAsHeaderV0PlusV0Body() {
        ApiVersionsResponse body = new ApiVersionsResponse().errorCode(Errors.UNSUPPORTED_VERSION.code());
        body.apiKeys().add(new ApiVersionsResponse.ApiVersion().apiKey(ApiKey.API_VERSIONS.id())
                .minVersion((short) 0).maxVersion((short) 4));
        short headerVersion = ApiKey.API_VERSIONS.responseHeaderVersion((short) 5);
        ByteBuffer frame = ByteBuffer.allocate(ResponseHeader.size(headerVersion) + body.size((short) 0));
        ResponseHeader.write(new ByteBufferWriter(frame), 77, headerVersion);
        body.write(new ByteBufferWriter(frame), (short) 0);
        byte[] expected = {
            0, 0, 0, 77, // correlation id, header v0
            0, 35, // UNSUPPORTED_VERSION
            0, 0, 0, 1, // one entry
            0, 18, 0, 0, 0, 4
        };
        assertThat(bytes(frame.flip())).containsExactly(expected);
    }

    @Test
    void shouldEncodeDescribedDefaults() {
        FetchRequest f = new FetchRequest();
        assertThat(f.maxBytes()).isEqualTo(Integer.MAX_VALUE);
        assertThat(f.sessionEpoch()).isEqualTo(-1);
        assertThat(f.replicaState().replicaEpoch()).isEqualTo(-1L);
        assertThat(new MetadataRequest().allowAutoTopicCreation()).isTrue();
        assertThat(new CreateTopicsRequest().timeoutMs()).isEqualTo(60000);
        assertThat(new MetadataResponse.MetadataResponseTopic().topicAuthorizedOperations()).isEqualTo(Integer.MIN_VALUE);
    }

    static byte[] bytes(ByteBuffer buf) {
        byte[] b = new byte[buf.remaining()];
        buf.duplicate().get(b);
        return b;
    }

    @Test
    void shouldUseValueSemantics() {
        assertThat(produce(false)).isEqualTo(produce(false)).hasSameHashCodeAs(produce(false));
        assertThat(produce(false)).isNotEqualTo(produce(true));
        assertThat(produce(false).toString()).contains("acks=-1").contains("name='events-é'");
        assertThat(new SaslAuthenticateRequest().authBytes(new byte[] {1}))
                .isEqualTo(new SaslAuthenticateRequest().authBytes(new byte[] {1}));
    }

    @Test
    void shouldWriteThroughAnyProtocolWriter() {
        ProduceRequest m = produce(false);
        ByteBuffer direct = ByteBuffer.allocateDirect(m.size((short) 9));
        m.write(new ByteBufferWriter(direct), (short) 9);
        assertThat(direct.flip()).isEqualTo(m.toByteBuffer((short) 9));
    }

    @Test
    void shouldWriteTaggedFieldsInAscendingTagOrderAndOnlyWhenNotDefault() {
        FetchRequest none = new FetchRequest();
        ByteBuffer plain = none.toByteBuffer((short) 15);
        assertThat(plain.get(plain.limit() - 1)).as("empty tagged section").isEqualTo((byte) 0);

        FetchRequest m = new FetchRequest().clusterId("c")
                .replicaState(new FetchRequest.ReplicaState().replicaId(3).replicaEpoch(4));
        ByteBuffer buf = m.toByteBuffer((short) 15);
        // tail: count=2 | tag 0, size 2, compact "c" | tag 1, size 4+8+1, int32 3, int64 4, empty tags
        byte[] tail = {2, 0, 2, 2, 'c', 1, 13, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 4, 0};
        byte[] all = bytes(buf);
        assertThat(java.util.Arrays.copyOfRange(all, all.length - tail.length, all.length)).containsExactly(tail);
        assertThat(FetchRequest.read(buf, (short) 15)).isEqualTo(m);
    }

    @Test
    void shouldAgreeWithApiKeyOnVersionRangesAndFlexibility() throws ReflectiveOperationException {
        for (ApiKey key : ApiKey.values()) {
            for (Class<?> type : List.of(ApiMessages.newRequest(key).getClass(), ApiMessages.newResponse(key).getClass())) {
                assertThat(type.getField("LOWEST_VERSION").getShort(null)).as(type.getSimpleName()).isEqualTo(key.oldestVersion());
                assertThat(type.getField("HIGHEST_VERSION").getShort(null)).as(type.getSimpleName()).isEqualTo(key.latestVersion());
                assertThat(type.getField("FIRST_FLEXIBLE_VERSION").getShort(null)).as(type.getSimpleName())
                        .isEqualTo(key.flexibleFrom());
            }
        }
    }
}
