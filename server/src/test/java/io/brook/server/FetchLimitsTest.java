package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.time.ClockTimer;
import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchRequest.FetchPartition;
import io.brook.wire.message.FetchRequest.FetchTopic;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What one fetch may cost the broker: its answer's size ({@code fetch.max.bytes}, non-positive
 * {@code max_bytes}), and how long its long poll stays registered (until answered or its
 * connection closes; never beyond {@code brook.fetch.max.waiting.partitions}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FetchLimitsTest {

    private static final short PRODUCE_V = 9;
    private static final short FETCH_V = 12;
    private static final int BATCH_VALUE_BYTES = 600;

    private final MutableClock clock = new MutableClock(1_000_000);
    private Brook brook;

    private ProtocolClient start(String... settings) throws Exception {
        Brook.Builder b = Brook.builder().clock(clock).config("connections.max.idle.ms", "-1");
        for (int i = 0; i < settings.length; i += 2) {
            b.config(settings[i], settings[i + 1]);
        }
        brook = b.start();
        ProtocolClient c = new ProtocolClient(brook.bootstrapServers());
        c.call(new CreateTopicsRequest().topics(List.of(
                new CreatableTopic().name("t").numPartitions(2).replicationFactor((short) 1))), (short) 7);
        return c;
    }

    @AfterEach
    void stop() {
        if (brook != null) {
            brook.close();
        }
    }

    private static FetchRequest fetch(int maxWaitMs, int minBytes, int maxBytes, int partition, int partitionMaxBytes) {
        return new FetchRequest().maxWaitMs(maxWaitMs).minBytes(minBytes).maxBytes(maxBytes).sessionId(0)
                .sessionEpoch(-1).topics(List.of(new FetchTopic().topic("t").partitions(List.of(
                        new FetchPartition().partition(partition).fetchOffset(0).partitionMaxBytes(partitionMaxBytes)))));
    }

    private static FetchRequest longPoll(int partition) {
        return fetch(600_000, 1, 1 << 20, partition, 1 << 20);
    }

    /** Three batches of one record each on partition 0, all durable. */
    private static void produceThreeBatches(ProtocolClient c) throws Exception {
        for (int i = 0; i < 3; i++) {
            ByteBuffer batch = new RecordBatchBuilder(Compression.NONE).append(i, null, new byte[BATCH_VALUE_BYTES]).build();
            ProduceResponse r = c.call(new ProduceRequest().acks((short) -1).timeoutMs(10_000).topicData(List.of(
                    new TopicProduceData().name("t").partitionData(List.of(
                            new PartitionProduceData().index(0).records(BufferRecords.wrap(batch)))))), PRODUCE_V);
            assertThat(r.responses().get(0).partitionResponses().get(0).errorCode()).isZero();
        }
    }

    private static int returnedBytes(FetchResponse r) {
        return r.responses().get(0).partitions().get(0).records().sizeInBytes();
    }

    @Test
    void shouldUnregisterLongPollsWhenTheirConnectionCloses() throws Exception {
        try (ProtocolClient c = start()) {
            ClockTimer timer = (ClockTimer) brook.timer();
            try (ProtocolClient poller = new ProtocolClient(brook.bootstrapServers())) {
                for (int i = 0; i < 5; i++) {
                    poller.send(longPoll(i % 2), FETCH_V);
                }
                Await.until("five fetches waiting", () -> brook.fetchWaiters().waiting() == 5);
            }
            // the deadlines are ten minutes away on a clock that does not move: only the close can end them
            Await.until("the closed connection's fetches unregistered", () -> brook.fetchWaiters().waiting() == 0);
            Await.until("their deadlines cancelled", () -> timer.pending() == 0);
            produceThreeBatches(c);
        }
    }

    @Test
    void shouldAnswerAtOnceBeyondTheWaitingBound() throws Exception {
        try (ProtocolClient c = start("brook.fetch.max.waiting.partitions", "2");
                ProtocolClient poller = new ProtocolClient(brook.bootstrapServers())) {
            poller.send(longPoll(0), FETCH_V);
            poller.send(longPoll(1), FETCH_V);
            Await.until("two fetches waiting", () -> brook.fetchWaiters().waiting() == 2);
            // a third would wait ten minutes: it is answered now with what there is (nothing)
            FetchResponse third = c.call(longPoll(0), FETCH_V);
            assertThat(third.responses().get(0).partitions().get(0).errorCode()).isZero();
            assertThat(returnedBytes(third)).isZero();
            assertThat(brook.fetchWaiters().waiting()).isEqualTo(2);
        }
    }

    @Test
    void shouldReturnOnlyTheFirstBatchForANonPositiveMaxBytes() throws Exception {
        try (ProtocolClient c = start()) {
            produceThreeBatches(c);
            int all = returnedBytes(c.call(fetch(0, 1, 1 << 20, 0, 1 << 20), FETCH_V));
            int one = all / 3;
            assertThat(returnedBytes(c.call(fetch(0, 1, 0, 0, 1 << 20), FETCH_V))).isEqualTo(one);
            assertThat(returnedBytes(c.call(fetch(0, 1, -1, 0, 1 << 20), FETCH_V))).isEqualTo(one);
            assertThat(returnedBytes(c.call(fetch(0, 1, 1 << 20, 0, -1), FETCH_V))).isEqualTo(one);
        }
    }

    @Test
    void shouldCapMaxBytesAtFetchMaxBytes() throws Exception {
        try (ProtocolClient c = start("fetch.max.bytes", "1024")) {
            produceThreeBatches(c);
            FetchResponse r = c.call(fetch(0, 1, Integer.MAX_VALUE, 0, Integer.MAX_VALUE), FETCH_V);
            int size = returnedBytes(r);
            // three batches of ~670 bytes: the answer stops at 1024 (within the second, as Kafka's does)
            assertThat(size).isGreaterThan(BATCH_VALUE_BYTES).isLessThanOrEqualTo(1024);
            assertThat(r.responses().get(0).partitions().get(0).highWatermark()).isEqualTo(3);
        }
    }

    @Test
    void shouldNotWaitForMoreThanFetchMaxBytesCanReturn() throws Exception {
        try (ProtocolClient c = start("fetch.max.bytes", "1024")) {
            produceThreeBatches(c);
            // min_bytes above what may be returned would wait for nothing: it is capped as in Kafka
            int id = c.send(fetch(600_000, 1 << 20, 1 << 20, 0, 1 << 20), FETCH_V);
            FetchResponse r = c.receive(ApiKey.FETCH, FETCH_V, id);
            assertThat(returnedBytes(r)).isPositive();
        }
    }
}
