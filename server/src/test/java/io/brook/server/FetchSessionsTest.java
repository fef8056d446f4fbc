package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchRequest.FetchPartition;
import io.brook.wire.message.FetchRequest.FetchTopic;
import io.brook.wire.message.FetchRequest.ForgottenTopic;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.FetchResponse.FetchableTopicResponse;
import io.brook.wire.message.FetchResponse.PartitionData;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Incremental fetch sessions (KIP-227) over raw requests, at every Fetch version that has them
 * (7–18; by topic id from 13): a full request of epoch 0 opens a session, incremental requests
 * are answered with only what is new, in the session's order, and the session's life cycle errors
 * are Kafka's.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FetchSessionsTest {

    private static final short PRODUCE_V = 9;
    private static final short FIRST_SESSION_VERSION = 7;
    private static final short LAST_VERSION = 18;
    private static final short FIRST_ID_VERSION = 13;

    private final MutableClock clock = new MutableClock(1_000_000);
    private Brook brook;
    private ProtocolClient c;

    private void start(String... settings) throws Exception {
        start(null, settings);
    }

    private void start(Path dir, String... settings) throws Exception {
        Brook.Builder b = Brook.builder().clock(clock).config("connections.max.idle.ms", "-1");
        if (dir != null) {
            b.dataDir(dir);
        }
        for (int i = 0; i < settings.length; i += 2) {
            b.config(settings[i], settings[i + 1]);
        }
        brook = b.start();
        c = new ProtocolClient(brook.bootstrapServers());
    }

    @AfterEach
    void stop() throws Exception {
        if (c != null) {
            c.close();
        }
        if (brook != null) {
            brook.close();
        }
    }

    /** A topic of three partitions; its id. */
    private UUID create(String name) throws Exception {
        CreateTopicsResponse r = c.call(new CreateTopicsRequest().topics(List.of(
                new CreatableTopic().name(name).numPartitions(3).replicationFactor((short) 1))), (short) 7);
        assertThat(r.topics().get(0).errorCode()).isZero();
        return r.topics().get(0).topicId();
    }

    private void produce(String topic, int partition, String value) throws Exception {
        ProduceResponse r = c.call(new ProduceRequest().acks((short) -1).timeoutMs(10_000).topicData(List.of(
                new TopicProduceData().name(topic).partitionData(List.of(new PartitionProduceData().index(partition)
                        .records(BufferRecords.wrap(new RecordBatchBuilder(Compression.NONE)
                                .append(1000L, null, value.getBytes()).build())))))), PRODUCE_V);
        assertThat(r.responses().get(0).partitionResponses().get(0).errorCode()).isZero();
    }

    /** What a client of {@code version} knows of one topic. */
    private record Topic(String name, UUID id, short version) {
        FetchTopic fetch(long[] offsets, int... partitions) {
            List<FetchPartition> parts = new ArrayList<>();
            for (int p : partitions) {
                parts.add(new FetchPartition().partition(p).fetchOffset(offsets[p]).partitionMaxBytes(1 << 20));
            }
            FetchTopic t = new FetchTopic().partitions(parts);
            return version >= FIRST_ID_VERSION ? t.topicId(id) : t.topic(name);
        }

        ForgottenTopic forget(int... partitions) {
            List<Integer> parts = new ArrayList<>();
            for (int p : partitions) {
                parts.add(p);
            }
            ForgottenTopic t = new ForgottenTopic().partitions(parts);
            return version >= FIRST_ID_VERSION ? t.topicId(id) : t.topic(name);
        }
    }

    private static FetchRequest request(int sessionId, int epoch, List<FetchTopic> topics, List<ForgottenTopic> forget) {
        return new FetchRequest().maxWaitMs(0).minBytes(1).maxBytes(1 << 20).sessionId(sessionId).sessionEpoch(epoch)
                .topics(topics).forgottenTopicsData(forget);
    }

    private FetchResponse fetch(short version, int sessionId, int epoch, List<FetchTopic> topics,
            List<ForgottenTopic> forget) throws Exception {
        return c.call(request(sessionId, epoch, topics, forget), version);
    }

    /** The partitions an answer holds, in order, as "partition:records?". */
    private static List<String> answered(FetchResponse r) {
        List<String> out = new ArrayList<>();
        for (FetchableTopicResponse t : r.responses()) {
            for (PartitionData p : t.partitions()) {
                assertThat(p.errorCode()).isZero();
                out.add(p.partitionIndex() + (p.records().sizeInBytes() > 0 ? ":records" : ":hw" + p.highWatermark()));
            }
        }
        return out;
    }

    @Test
    void shouldKeepASessionAndAnswerOnlyWhatIsNewAtEveryVersion() throws Exception {
        start();
        for (short v = FIRST_SESSION_VERSION; v <= LAST_VERSION; v++) {
            String name = "t" + v;
            Topic t = new Topic(name, create(name), v);
            long[] offsets = new long[3];
            FetchResponse full = fetch(v, 0, 0, List.of(t.fetch(offsets, 0, 1, 2)), List.of());
            int id = full.sessionId();
            assertThat(id).as("v%d: a full request of epoch 0 opens a session", v).isPositive();
            assertThat(answered(full)).containsExactly("0:hw0", "1:hw0", "2:hw0");
            assertThat(brook.fetchSessions().size()).isEqualTo(1);

            FetchResponse nothing = fetch(v, id, 1, List.of(), List.of());
            assertThat(nothing.errorCode()).isZero();
            assertThat(nothing.sessionId()).isEqualTo(id);
            assertThat(answered(nothing)).as("v%d: nothing new", v).isEmpty();

            produce(name, 1, "a");
            assertThat(answered(fetch(v, id, 2, List.of(), List.of()))).containsExactly("1:records");
            offsets[1] = 1;
            assertThat(answered(fetch(v, id, 3, List.of(t.fetch(offsets, 1)), List.of()))).isEmpty();

            FetchResponse duplicate = fetch(v, id, 3, List.of(), List.of());
            assertThat(duplicate.errorCode()).isEqualTo(Errors.INVALID_FETCH_SESSION_EPOCH.code());
            assertThat(duplicate.sessionId()).isZero();
            FetchResponse unknown = fetch(v, id == Integer.MAX_VALUE ? 1 : id + 1, 4, List.of(), List.of());
            assertThat(unknown.errorCode()).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND.code());
            assertThat(unknown.sessionId()).isZero();

            // partitions that returned records moved to the session's end: 0, 2, 1
            produce(name, 1, "b");
            produce(name, 2, "c");
            assertThat(answered(fetch(v, id, 4, List.of(), List.of()))).as("v%d: in the session's order", v)
                    .containsExactly("2:records", "1:records");
            offsets[1] = 2;
            offsets[2] = 1;
            produce(name, 0, "forgotten");
            assertThat(answered(fetch(v, id, 5, List.of(t.fetch(offsets, 1, 2)), List.of(t.forget(0)))))
                    .as("v%d: a forgotten partition is not read", v).isEmpty();
            produce(name, 2, "d");
            assertThat(answered(fetch(v, id, 6, List.of(), List.of()))).containsExactly("2:records");

            FetchResponse close = fetch(v, id, -1, List.of(), List.of());
            assertThat(close.sessionId()).isZero();
            assertThat(brook.fetchSessions().size()).as("epoch -1 closes the session").isZero();
            assertThat(fetch(v, id, 7, List.of(), List.of()).errorCode())
                    .isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND.code());
        }
    }

    @Test
    void shouldRefuseASessionAcrossTheTopicIdBoundary() throws Exception {
        start();
        Topic t = new Topic("t", create("t"), FIRST_ID_VERSION);
        int id = fetch(FIRST_ID_VERSION, 0, 0, List.of(t.fetch(new long[3], 0)), List.of()).sessionId();
        FetchResponse r = fetch((short) (FIRST_ID_VERSION - 1), id, 1, List.of(), List.of());
        assertThat(r.errorCode()).isEqualTo(Errors.FETCH_SESSION_TOPIC_ID_ERROR.code());
    }

    @Test
    void shouldAddPartitionsAndCloseASessionLeftEmpty() throws Exception {
        start();
        short v = 12;
        Topic t = new Topic("t", create("t"), v);
        long[] offsets = new long[3];
        int id = fetch(v, 0, 0, List.of(t.fetch(offsets, 0)), List.of()).sessionId();
        assertThat(answered(fetch(v, id, 1, List.of(t.fetch(offsets, 2)), List.of())))
                .as("an added partition is answered once").containsExactly("2:hw0");
        FetchResponse empty = fetch(v, id, 2, List.of(), List.of(t.forget(0, 2)));
        assertThat(empty.errorCode()).isZero();
        assertThat(empty.sessionId()).isZero();
        assertThat(brook.fetchSessions().size()).isZero();
    }

    @Test
    void shouldLongPollAnIncrementalFetchUntilASessionPartitionGetsRecords() throws Exception {
        start();
        short v = LAST_VERSION;
        Topic t = new Topic("t", create("t"), v);
        int id = fetch(v, 0, 0, List.of(t.fetch(new long[3], 0, 1, 2)), List.of()).sessionId();
        try (ProtocolClient poller = new ProtocolClient(brook.bootstrapServers())) {
            // ten minutes on a clock that does not move: only data can answer it
            int corr = poller.send(request(id, 1, List.of(), List.of()).maxWaitMs(600_000), v);
            Await.until("the fetch waits on the session's partitions", () -> brook.fetchWaiters().waiting() == 3);
            produce("t", 2, "wake");
            FetchResponse r = poller.receive(ApiKey.FETCH, v, corr);
            assertThat(r.sessionId()).isEqualTo(id);
            assertThat(answered(r)).containsExactly("2:records");
        }
    }

    @Test
    void shouldEvictOnlyAStaleSessionAndTellItsClient() throws Exception {
        start("max.incremental.fetch.session.cache.slots", "1");
        short v = 12;
        Topic t = new Topic("t", create("t"), v);
        long[] offsets = new long[3];
        int first = fetch(v, 0, 0, List.of(t.fetch(offsets, 0)), List.of()).sessionId();
        assertThat(first).isPositive();
        assertThat(fetch(v, 0, 0, List.of(t.fetch(offsets, 1)), List.of()).sessionId())
                .as("no room: answered sessionless").isZero();
        clock.advance(121_000);
        int second = fetch(v, 0, 0, List.of(t.fetch(offsets, 1)), List.of()).sessionId();
        assertThat(second).as("the first session went unused for two minutes").isPositive().isNotEqualTo(first);
        assertThat(fetch(v, first, 1, List.of(), List.of()).errorCode())
                .isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND.code());
        assertThat(fetch(v, second, 1, List.of(), List.of()).errorCode()).isZero();
        assertThat(brook.fetchSessions().size()).isEqualTo(1);
    }

    @Test
    void shouldKeepSessionsWithinTheirPartitionBound() throws Exception {
        start("brook.fetch.session.max.partitions", "2");
        short v = 12;
        Topic t = new Topic("t", create("t"), v);
        long[] offsets = new long[3];
        assertThat(fetch(v, 0, 0, List.of(t.fetch(offsets, 0, 1, 2)), List.of()).sessionId())
                .as("three partitions would pass the bound").isZero();
        int id = fetch(v, 0, 0, List.of(t.fetch(offsets, 0, 1)), List.of()).sessionId();
        assertThat(id).isPositive();
        FetchResponse grown = fetch(v, id, 1, List.of(t.fetch(offsets, 2)), List.of());
        assertThat(grown.errorCode()).isZero();
        assertThat(grown.sessionId()).as("closed: the client goes back to full requests").isZero();
        assertThat(answered(grown)).containsExactly("2:hw0");
        assertThat(brook.fetchSessions().size()).isZero();
        assertThat(brook.fetchSessions().partitions()).isZero();
    }

    @Test
    void shouldStartWithoutSessionsAfterARestart(@TempDir Path dir) throws Exception {
        start(dir);
        short v = 12;
        Topic t = new Topic("t", create("t"), v);
        int id = fetch(v, 0, 0, List.of(t.fetch(new long[3], 0, 1)), List.of()).sessionId();
        assertThat(id).isPositive();
        c.close();
        brook.close();
        start(dir);
        FetchResponse r = fetch(v, id, 1, List.of(), List.of());
        assertThat(r.errorCode()).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND.code());
        assertThat(fetch(v, 0, 0, List.of(t.fetch(new long[3], 0, 1)), List.of()).sessionId()).isPositive();
    }
}
