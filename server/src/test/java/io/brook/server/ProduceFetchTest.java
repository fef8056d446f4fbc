package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.time.ClockTimer;
import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopicConfig;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.DeleteRecordsRequest;
import io.brook.wire.message.DeleteRecordsRequest.DeleteRecordsPartition;
import io.brook.wire.message.DeleteRecordsRequest.DeleteRecordsTopic;
import io.brook.wire.message.DeleteRecordsResponse;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchRequest.FetchPartition;
import io.brook.wire.message.FetchRequest.FetchTopic;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.FetchResponse.PartitionData;
import io.brook.wire.message.ListOffsetsRequest;
import io.brook.wire.message.ListOffsetsRequest.ListOffsetsPartition;
import io.brook.wire.message.ListOffsetsRequest.ListOffsetsTopic;
import io.brook.wire.message.ListOffsetsResponse;
import io.brook.wire.message.ListOffsetsResponse.ListOffsetsPartitionResponse;
import io.brook.wire.message.OffsetForLeaderEpochRequest;
import io.brook.wire.message.OffsetForLeaderEpochRequest.OffsetForLeaderPartition;
import io.brook.wire.message.OffsetForLeaderEpochRequest.OffsetForLeaderTopic;
import io.brook.wire.message.OffsetForLeaderEpochResponse;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.message.ProduceResponse.PartitionProduceResponse;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.RecordBatchBuilder;
import io.brook.wire.record.RecordBatches;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Produce, Fetch and ListOffsets over raw sockets against an embedded broker with real storage. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProduceFetchTest {

    private static final short PRODUCE_V = 9;
    private static final short FETCH_V = 12;

    private Brook brook;
    private ProtocolClient client;

    @BeforeEach
    void start() throws Exception {
        brook = Brook.builder().start();
        client = new ProtocolClient(brook.bootstrapServers());
        CreateTopicsResponse r = client.call(new CreateTopicsRequest().topics(List.of(
                new CreatableTopic().name("t").numPartitions(2).replicationFactor((short) 1),
                new CreatableTopic().name("small").numPartitions(1).replicationFactor((short) 1).configs(List.of(
                        new CreatableTopicConfig().name("max.message.bytes").value("200"))))), (short) 7);
        assertThat(r.topics()).allSatisfy(t -> assertThat(t.errorCode()).isZero());
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        brook.close();
    }

    private static ByteBuffer batch(Compression compression, long timestamp, String... values) {
        RecordBatchBuilder b = new RecordBatchBuilder(compression);
        for (String v : values) {
            b.append(timestamp, null, v.getBytes(StandardCharsets.UTF_8));
        }
        return b.build();
    }

    private static ProduceRequest produce(short acks, String topic, int partition, ByteBuffer records) {
        return new ProduceRequest().acks(acks).timeoutMs(10_000).topicData(List.of(new TopicProduceData().name(topic)
                .partitionData(List.of(new PartitionProduceData().index(partition)
                        .records(records == null ? null : BufferRecords.wrap(records))))));
    }

    private PartitionProduceResponse produceOne(short version, short acks, String topic, int partition,
            ByteBuffer records) throws Exception {
        ProduceResponse r = client.call(produce(acks, topic, partition, records), version);
        return r.responses().get(0).partitionResponses().get(0);
    }

    private FetchResponse fetch(int maxWaitMs, int minBytes, int maxBytes, String topic, int partition, long offset,
            int partitionMaxBytes) throws Exception {
        return client.call(new FetchRequest().maxWaitMs(maxWaitMs).minBytes(minBytes).maxBytes(maxBytes)
                .sessionId(0).sessionEpoch(-1).topics(List.of(new FetchTopic().topic(topic).partitions(List.of(
                        new FetchPartition().partition(partition).fetchOffset(offset)
                                .partitionMaxBytes(partitionMaxBytes))))), FETCH_V);
    }

    private static List<String> values(PartitionData p) {
        List<String> out = new ArrayList<>();
        ByteBuffer buf = ((BufferRecords) p.records()).buffer();
        RecordBatches batches = new RecordBatches().wrap(buf);
        RecordBatch b;
        while ((b = batches.next()) != null) {
            b.records().forEachRemaining(r -> {
                ByteBuffer v = r.value();
                byte[] bytes = new byte[v.remaining()];
                v.get(bytes);
                out.add(new String(bytes, StandardCharsets.UTF_8));
            });
        }
        return out;
    }

    @Test
    void shouldAppendAndReadBackWithOffsetsAndWatermarks() throws Exception {
        PartitionProduceResponse first = produceOne(PRODUCE_V, (short) -1, "t", 0, batch(Compression.NONE, 1000, "a", "b"));
        assertThat(first.errorCode()).isZero();
        assertThat(first.baseOffset()).isZero();
        PartitionProduceResponse second = produceOne(PRODUCE_V, (short) 1, "t", 0, batch(Compression.LZ4, 2000, "c"));
        assertThat(second.baseOffset()).isEqualTo(2);
        Await.until("high watermark at 3", () -> {
            try {
                return fetch(0, 1, 1 << 20, "t", 0, 0, 1 << 20).responses().get(0).partitions().get(0)
                        .highWatermark() == 3;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        PartitionData p = fetch(0, 1, 1 << 20, "t", 0, 0, 1 << 20).responses().get(0).partitions().get(0);
        assertThat(p.errorCode()).isZero();
        assertThat(p.lastStableOffset()).isEqualTo(3);
        assertThat(p.logStartOffset()).isZero();
        assertThat(values(p)).containsExactly("a", "b", "c");
    }

    @Test
    void shouldReportPerPartitionErrors() throws Exception {
        assertThat(produceOne(PRODUCE_V, (short) 1, "nope", 0, batch(Compression.NONE, 1, "x")).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(produceOne(PRODUCE_V, (short) 1, "t", 7, batch(Compression.NONE, 1, "x")).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        ByteBuffer corrupt = batch(Compression.NONE, 1, "x");
        corrupt.put(corrupt.limit() - 1, (byte) (corrupt.get(corrupt.limit() - 1) ^ 0x7f));
        assertThat(produceOne(PRODUCE_V, (short) 1, "t", 0, corrupt).errorCode())
                .isEqualTo(Errors.CORRUPT_MESSAGE.code());
        PartitionProduceResponse big = produceOne(PRODUCE_V, (short) 1, "small", 0,
                batch(Compression.NONE, 1, "x".repeat(500)));
        assertThat(big.errorCode()).isEqualTo(Errors.MESSAGE_TOO_LARGE.code());
        assertThat(produceOne((short) 6, (short) 1, "t", 0, batch(Compression.ZSTD, 1, "z")).errorCode())
                .isEqualTo(Errors.UNSUPPORTED_COMPRESSION_TYPE.code());
        assertThat(produceOne((short) 7, (short) 1, "t", 0, batch(Compression.ZSTD, 1, "z")).errorCode()).isZero();
        ByteBuffer two = ByteBuffer.allocate(200);
        two.put(batch(Compression.NONE, 1, "p")).put(batch(Compression.NONE, 1, "q")).flip();
        assertThat(produceOne(PRODUCE_V, (short) 1, "t", 0, two).errorCode()).isEqualTo(Errors.INVALID_RECORD.code());
        ByteBuffer transactional = new RecordBatchBuilder(Compression.NONE).producer(7L, (short) 0, 0)
                .transactional(true).append(1L, null, "t".getBytes(StandardCharsets.UTF_8)).build();
        assertThat(produceOne(PRODUCE_V, (short) 1, "t", 0, transactional).errorCode())
                .as("transactional records without their transactional id, refused as Kafka refuses them")
                .isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code());
        ProduceResponse badAcks = client.call(produce((short) 2, "t", 0, batch(Compression.NONE, 1, "x")), PRODUCE_V);
        assertThat(badAcks.responses().get(0).partitionResponses().get(0).errorCode())
                .isEqualTo(Errors.INVALID_REQUIRED_ACKS.code());
    }

    @Test
    void shouldSendNothingForAcksZeroAndCloseWhenItFails() throws Exception {
        client.send(produce((short) 0, "t", 1, batch(Compression.NONE, 1, "silent")), PRODUCE_V);
        // the next answer on the connection is for the next request: the acks=0 one had none
        PartitionProduceResponse next = produceOne(PRODUCE_V, (short) 1, "t", 1, batch(Compression.NONE, 1, "loud"));
        assertThat(next.baseOffset()).isEqualTo(1);
        client.send(produce((short) 0, "nope", 0, batch(Compression.NONE, 1, "lost")), PRODUCE_V);
        assertThat(client.raw().closedByBroker()).isTrue();
    }

    @Test
    void shouldCloseTheConnectionForProduceBelowV3() throws Exception {
        ProtocolClient old = new ProtocolClient(brook.bootstrapServers());
        try (old) {
            // v2 is advertised (old librdkafka needs to see v0) but cannot be used
            io.brook.wire.protocol.RequestHeader h = new io.brook.wire.protocol.RequestHeader(
                    io.brook.wire.protocol.ApiKey.PRODUCE, (short) 2, 1, "old");
            ByteBuffer b = ByteBuffer.allocate(h.size((short) 1) + 10);
            h.write(new io.brook.wire.protocol.ByteBufferWriter(b), (short) 1);
            b.putShort((short) 1).putInt(1000).putInt(0);
            old.raw().sendFrame(b.flip());
            assertThat(old.raw().closedByBroker()).isTrue();
        }
    }

    @Test
    void shouldAnswerALongPollWithoutDataAtMaxWaitOnTheBrokersClock() throws Exception {
        MutableClock clock = new MutableClock(1_000_000);
        try (Brook b = Brook.builder().clock(clock).config("connections.max.idle.ms", "-1").start();
                ProtocolClient c = new ProtocolClient(b.bootstrapServers())) {
            c.call(new CreateTopicsRequest().topics(List.of(
                    new CreatableTopic().name("t").numPartitions(1).replicationFactor((short) 1))), (short) 7);
            ClockTimer timer = (ClockTimer) b.timer();
            int id = c.send(new FetchRequest().maxWaitMs(300).minBytes(1).maxBytes(1 << 20).sessionId(0)
                    .sessionEpoch(-1).topics(List.of(new FetchTopic().topic("t").partitions(List.of(
                            new FetchPartition().partition(0).fetchOffset(0).partitionMaxBytes(1 << 20))))), FETCH_V);
            Await.until("fetch parked", () -> b.fetchWaiters().waiting() == 1 && timer.pending() == 1);
            clock.advance(299);
            timer.runDue();
            assertThat(timer.pending()).as("the deadline is not due yet").isEqualTo(1);
            assertThat(b.fetchWaiters().waiting()).isEqualTo(1);
            clock.advance(1);
            FetchResponse empty = c.receive(io.brook.wire.protocol.ApiKey.FETCH, FETCH_V, id);
            assertThat(empty.responses().get(0).partitions().get(0).errorCode()).isZero();
            assertThat(empty.responses().get(0).partitions().get(0).records().sizeInBytes()).isZero();
            Await.until("the answered fetch unregistered", () -> b.fetchWaiters().waiting() == 0);
        }
    }

    @Test
    void shouldWakeALongPollWhenDataArrives() throws Exception {
        int waiting = client.send(new FetchRequest().maxWaitMs(30_000).minBytes(1).maxBytes(1 << 20).sessionId(0)
                .sessionEpoch(-1).topics(List.of(new FetchTopic().topic("t").partitions(List.of(
                        new FetchPartition().partition(1).fetchOffset(0).partitionMaxBytes(1 << 20))))), FETCH_V);
        Await.until("fetch parked", () -> brook.fetchWaiters().waiting() == 1);
        try (ProtocolClient producer = new ProtocolClient(brook.bootstrapServers())) {
            ProduceResponse r = producer.call(produce((short) -1, "t", 1, batch(Compression.NONE, 1, "wake")), PRODUCE_V);
            assertThat(r.responses().get(0).partitionResponses().get(0).errorCode()).isZero();
        }
        FetchResponse woken = client.receive(io.brook.wire.protocol.ApiKey.FETCH, FETCH_V, waiting);
        assertThat(values(woken.responses().get(0).partitions().get(0))).containsExactly("wake");
    }

    @Test
    void shouldWakeEachOfBackToBackLongPollsWhenDataArrives() throws Exception {
        // a consumer's pattern: the next fetch is sent as soon as the previous one is answered,
        // while the answered one may still be leaving the partition's waiters
        try (ProtocolClient producer = new ProtocolClient(brook.bootstrapServers())) {
            for (int i = 0; i < 50; i++) {
                int waiting = client.send(new FetchRequest().maxWaitMs(30_000).minBytes(1).maxBytes(1 << 20)
                        .sessionId(0).sessionEpoch(-1).topics(List.of(new FetchTopic().topic("t").partitions(List.of(
                                new FetchPartition().partition(0).fetchOffset(i).partitionMaxBytes(1 << 20))))),
                        FETCH_V);
                // a registration lost to the race is not counted here, so this fails in seconds, not at 30 s
                Await.until("fetch " + i + " parked", () -> brook.fetchWaiters().waiting() == 1);
                ProduceResponse r = producer.call(produce((short) -1, "t", 0, batch(Compression.NONE, 1, "r" + i)),
                        PRODUCE_V);
                assertThat(r.responses().get(0).partitionResponses().get(0).errorCode()).isZero();
                FetchResponse woken = client.receive(io.brook.wire.protocol.ApiKey.FETCH, FETCH_V, waiting);
                assertThat(values(woken.responses().get(0).partitions().get(0))).containsExactly("r" + i);
            }
        }
    }

    @Test
    void shouldReturnTheFirstBatchEvenWhenLargerThanTheLimits() throws Exception {
        produceOne(PRODUCE_V, (short) -1, "t", 0, batch(Compression.NONE, 1, "x".repeat(300), "y".repeat(300)));
        produceOne(PRODUCE_V, (short) -1, "t", 0, batch(Compression.NONE, 1, "z"));
        FetchResponse r = fetch(0, 1, 10, "t", 0, 1, 10);
        PartitionData p = r.responses().get(0).partitions().get(0);
        assertThat(values(p)).containsExactly("x".repeat(300), "y".repeat(300));
    }

    @Test
    void shouldAnswerExactlyTheRequestedPartitionsWithErrorsWhereDue() throws Exception {
        produceOne(PRODUCE_V, (short) -1, "t", 0, batch(Compression.NONE, 1, "a"));
        FetchResponse r = client.call(new FetchRequest().maxWaitMs(0).minBytes(1).maxBytes(1 << 20).sessionId(0)
                .sessionEpoch(-1).topics(List.of(
                        new FetchTopic().topic("t").partitions(List.of(
                                new FetchPartition().partition(1).fetchOffset(0).partitionMaxBytes(1000),
                                new FetchPartition().partition(0).fetchOffset(5).partitionMaxBytes(1000))),
                        new FetchTopic().topic("ghost").partitions(List.of(
                                new FetchPartition().partition(0).fetchOffset(0).partitionMaxBytes(1000))))), FETCH_V);
        assertThat(r.sessionId()).isZero();
        assertThat(r.responses()).extracting(FetchResponse.FetchableTopicResponse::topic).containsExactly("t", "ghost");
        assertThat(r.responses().get(0).partitions()).extracting(PartitionData::partitionIndex).containsExactly(1, 0);
        assertThat(r.responses().get(0).partitions().get(0).errorCode()).isZero();
        assertThat(r.responses().get(0).partitions().get(1).errorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
        assertThat(r.responses().get(1).partitions().get(0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        FetchResponse incremental = client.call(new FetchRequest().maxWaitMs(0).minBytes(1).sessionId(42)
                .sessionEpoch(3).topics(List.of()), FETCH_V);
        assertThat(incremental.errorCode()).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND.code());
    }

    @Test
    void shouldAppendAPartitionNamedTwiceInOneProduceOnceWithItsLastEntry() throws Exception {
        ProduceRequest twice = new ProduceRequest().acks((short) -1).timeoutMs(10_000).topicData(List.of(
                new TopicProduceData().name("t").partitionData(List.of(
                        new PartitionProduceData().index(0).records(BufferRecords.wrap(batch(Compression.NONE, 1, "first"))),
                        new PartitionProduceData().index(1).records(BufferRecords.wrap(batch(Compression.NONE, 1, "other"))))),
                new TopicProduceData().name("t").partitionData(List.of(
                        new PartitionProduceData().index(0).records(BufferRecords.wrap(batch(Compression.NONE, 1, "last")))))));
        ProduceResponse r = client.call(twice, PRODUCE_V);
        assertThat(r.responses()).hasSize(1);
        assertThat(r.responses().get(0).partitionResponses()).extracting(PartitionProduceResponse::index)
                .containsExactly(0, 1);
        assertThat(r.responses().get(0).partitionResponses()).allSatisfy(p -> assertThat(p.errorCode()).isZero());
        PartitionData p = fetch(0, 1, 1 << 20, "t", 0, 0, 1 << 20).responses().get(0).partitions().get(0);
        assertThat(p.highWatermark()).isEqualTo(1);
        assertThat(values(p)).containsExactly("last");
    }

    @Test
    void shouldReadAPartitionNamedTwiceInOneFetchOnce() throws Exception {
        produceOne(PRODUCE_V, (short) -1, "t", 0, batch(Compression.NONE, 1, "a", "b"));
        FetchPartition once = new FetchPartition().partition(0).fetchOffset(0).partitionMaxBytes(1 << 20);
        FetchResponse r = client.call(new FetchRequest().maxWaitMs(0).minBytes(1).maxBytes(1 << 20).sessionId(0)
                .sessionEpoch(-1).topics(List.of(
                        new FetchTopic().topic("t").partitions(List.of(once, once, once)),
                        new FetchTopic().topic("t").partitions(List.of(once)))), FETCH_V);
        assertThat(r.responses()).hasSize(1);
        assertThat(r.responses().get(0).partitions()).hasSize(1);
        assertThat(values(r.responses().get(0).partitions().get(0))).containsExactly("a", "b");
    }

    @Test
    void shouldListOffsetsForSpecialAndRealTimestamps() throws Exception {
        produceOne(PRODUCE_V, (short) -1, "t", 0, batch(Compression.NONE, 1000, "a", "b"));
        produceOne(PRODUCE_V, (short) -1, "t", 0, batch(Compression.NONE, 5000, "c"));
        produceOne(PRODUCE_V, (short) -1, "t", 0, batch(Compression.NONE, 3000, "d"));
        long[] timestamps = {-2, -1, -3, 4000, 9000, -5};
        List<ListOffsetsPartition> parts = new ArrayList<>();
        for (long ts : timestamps) {
            parts.add(new ListOffsetsPartition().partitionIndex(0).timestamp(ts));
        }
        List<ListOffsetsPartitionResponse> r = new ArrayList<>();
        for (ListOffsetsPartition p : parts) {
            ListOffsetsResponse resp = client.call(new ListOffsetsRequest().replicaId(-1).topics(List.of(
                    new ListOffsetsTopic().name("t").partitions(List.of(p)))), (short) 7);
            r.add(resp.topics().get(0).partitions().get(0));
        }
        assertThat(r).extracting(ListOffsetsPartitionResponse::offset).containsExactly(0L, 4L, 2L, 2L, -1L, -1L);
        assertThat(r.get(2).timestamp()).isEqualTo(5000);
        assertThat(r.get(3).timestamp()).isEqualTo(5000);
        assertThat(r.get(0).timestamp()).isEqualTo(-1);
        assertThat(r).allSatisfy(p -> assertThat(p.errorCode()).isZero());
    }

    @Test
    void shouldDeleteRecordsBelowAnOffsetAndReportTheNewLogStart() throws Exception {
        produceOne(PRODUCE_V, (short) -1, "t", 0, batch(Compression.NONE, 1, "a", "b", "c"));
        DeleteRecordsResponse r = client.call(new DeleteRecordsRequest().timeoutMs(1000).topics(List.of(
                new DeleteRecordsTopic().name("t").partitions(List.of(
                        new DeleteRecordsPartition().partitionIndex(0).offset(2),
                        new DeleteRecordsPartition().partitionIndex(1).offset(5))))), (short) 2);
        List<DeleteRecordsResponse.DeleteRecordsPartitionResult> parts = r.topics().get(0).partitions();
        assertThat(parts.get(0).errorCode()).isZero();
        assertThat(parts.get(0).lowWatermark()).isEqualTo(2);
        assertThat(parts.get(1).errorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
        PartitionData p = fetch(0, 1, 1 << 20, "t", 0, 1, 1 << 20).responses().get(0).partitions().get(0);
        assertThat(p.errorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
        assertThat(p.logStartOffset()).isEqualTo(2);
    }

    @Test
    void shouldAnswerOffsetForLeaderEpochWithTheOnlyEpoch() throws Exception {
        produceOne(PRODUCE_V, (short) -1, "t", 0, batch(Compression.NONE, 1, "a", "b"));
        OffsetForLeaderEpochResponse r = client.call(new OffsetForLeaderEpochRequest().topics(List.of(
                new OffsetForLeaderTopic().topic("t").partitions(List.of(
                        new OffsetForLeaderPartition().partition(0).currentLeaderEpoch(0).leaderEpoch(0),
                        new OffsetForLeaderPartition().partition(1).currentLeaderEpoch(3).leaderEpoch(0))))), (short) 4);
        OffsetForLeaderEpochResponse.EpochEndOffset p0 = r.topics().get(0).partitions().get(0);
        assertThat(p0.errorCode()).isZero();
        assertThat(p0.leaderEpoch()).isZero();
        assertThat(p0.endOffset()).isEqualTo(2);
        assertThat(r.topics().get(0).partitions().get(1).errorCode()).isEqualTo(Errors.UNKNOWN_LEADER_EPOCH.code());
    }

    @Test
    void shouldApplyRetentionFromTopicConfigsInTheBackground() throws Exception {
        try (Brook b = Brook.builder().config("log.retention.check.interval.ms", "20").start();
                ProtocolClient pc = new ProtocolClient(b.bootstrapServers())) {
            CreateTopicsResponse r = pc.call(new CreateTopicsRequest().topics(List.of(
                    new CreatableTopic().name("short").numPartitions(1).replicationFactor((short) 1).configs(List.of(
                            new CreatableTopicConfig().name("segment.bytes").value("1048576"),
                            new CreatableTopicConfig().name("retention.ms").value("1"))))), (short) 7);
            assertThat(r.topics().get(0).errorCode()).isZero();
            // segments are at least 1 MiB (Kafka's minimum): three batches of 512 KiB fill more than one
            for (int i = 0; i < 3; i++) {
                ProduceResponse p = pc.call(produce((short) -1, "short", 0,
                        batch(Compression.NONE, 1000, "x".repeat(512 * 1024))), PRODUCE_V);
                assertThat(p.responses().get(0).partitionResponses().get(0).errorCode()).isZero();
            }
            Await.until("old segments removed by retention",
                    () -> b.topics().log("short", 0).logStartOffset() > 0);
        }
    }
}
