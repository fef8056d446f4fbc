package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.DeleteTopicsRequest;
import io.brook.wire.message.DeleteTopicsResponse;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.OffsetCommitRequest;
import io.brook.wire.message.OffsetCommitRequest.OffsetCommitRequestPartition;
import io.brook.wire.message.OffsetCommitRequest.OffsetCommitRequestTopic;
import io.brook.wire.message.OffsetCommitResponse;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchRequest.OffsetFetchRequestGroup;
import io.brook.wire.message.OffsetFetchRequest.OffsetFetchRequestTopics;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The versions that name topics by id (KIP-516): Produce v13, Fetch v13+, OffsetCommit and
 * OffsetFetch v10. Known ids work like names, unknown ids (the zero id included) are answered
 * UNKNOWN_TOPIC_ID, answers name topics by the id asked with, and a topic deleted and created
 * again under the same name is a new topic to a client holding the old id (a fetch that resolved
 * the id before, in a long poll or a session, is told UNKNOWN_TOPIC_OR_PARTITION or
 * INCONSISTENT_TOPIC_ID, as by Kafka).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TopicIdApisTest {

    private static final UUID ZERO = new UUID(0, 0);

    private Brook brook;
    private ProtocolClient c;

    @BeforeEach
    void start() throws Exception {
        brook = Brook.builder().start();
        c = new ProtocolClient(brook.bootstrapServers());
    }

    @AfterEach
    void stop() throws Exception {
        c.close();
        brook.close();
    }

    private UUID create(String name) throws Exception {
        CreateTopicsResponse r = c.call(new CreateTopicsRequest().topics(List.of(
                new CreatableTopic().name(name).numPartitions(1).replicationFactor((short) 1))), (short) 7);
        assertThat(r.topics().get(0).errorCode()).isZero();
        return r.topics().get(0).topicId();
    }

    private void delete(String name) throws Exception {
        DeleteTopicsResponse r = c.call(new DeleteTopicsRequest().timeoutMs(1000).topicNames(List.of(name)), (short) 5);
        assertThat(r.responses().get(0).errorCode()).isZero();
    }

    private ProduceResponse.PartitionProduceResponse produce(UUID id, String value) throws Exception {
        ProduceResponse r = c.call(new ProduceRequest().acks((short) -1).timeoutMs(5000).topicData(List.of(
                new ProduceRequest.TopicProduceData().topicId(id).partitionData(List.of(
                        new ProduceRequest.PartitionProduceData().index(0).records(BufferRecords.wrap(
                                new RecordBatchBuilder(Compression.NONE).append(1000L, null, value.getBytes())
                                        .build())))))), (short) 13);
        assertThat(r.responses()).singleElement().satisfies(t -> assertThat(t.topicId()).isEqualTo(id));
        return r.responses().get(0).partitionResponses().get(0);
    }

    private FetchResponse fetch(short version, UUID... ids) throws Exception {
        List<FetchRequest.FetchTopic> topics = new ArrayList<>();
        for (UUID id : ids) {
            topics.add(new FetchRequest.FetchTopic().topicId(id).partitions(List.of(
                    new FetchRequest.FetchPartition().partition(0).fetchOffset(0).partitionMaxBytes(1 << 20))));
        }
        return c.call(new FetchRequest().maxWaitMs(0).minBytes(1).maxBytes(1 << 20).sessionEpoch(-1)
                .topics(topics), version);
    }

    @Test
    void producesAndFetchesByTopicId() throws Exception {
        UUID id = create("orders");
        assertThat(produce(id, "a").errorCode()).isZero();
        for (short v = 13; v <= 18; v++) {
            FetchResponse r = fetch(v, id);
            assertThat(r.responses()).as("fetch v%d", v).singleElement().satisfies(t -> {
                assertThat(t.topicId()).isEqualTo(id);
                assertThat(t.partitions().get(0).errorCode()).isZero();
                assertThat(t.partitions().get(0).highWatermark()).isEqualTo(1);
                assertThat(t.partitions().get(0).records().sizeInBytes()).isPositive();
            });
        }
    }

    @Test
    void answersUnknownTopicIdForIdsThatNameNoTopic() throws Exception {
        UUID id = create("orders");
        UUID unknown = UUID.randomUUID();
        assertThat(produce(unknown, "a").errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
        assertThat(produce(ZERO, "a").errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());

        // two unknown ids stay two entries, each answered under its own id, next to a known one
        FetchResponse r = fetch((short) 13, unknown, id, ZERO);
        assertThat(r.responses()).extracting(FetchResponse.FetchableTopicResponse::topicId)
                .containsExactly(unknown, id, ZERO);
        assertThat(r.responses()).extracting(t -> t.partitions().get(0).errorCode()).containsExactly(
                Errors.UNKNOWN_TOPIC_ID.code(), Errors.NONE.code(), Errors.UNKNOWN_TOPIC_ID.code());
    }

    @Test
    void aRecreatedTopicIsANewTopicToAClientHoldingTheOldId() throws Exception {
        UUID old = create("orders");
        assertThat(produce(old, "a").errorCode()).isZero();
        delete("orders");
        UUID fresh = create("orders");
        assertThat(fresh).isNotEqualTo(old);

        assertThat(produce(old, "b").errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
        assertThat(fetch((short) 13, old).responses().get(0).partitions().get(0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
        // with the new id (what a metadata refresh gives) both work again, on the new, empty topic
        assertThat(produce(fresh, "c").baseOffset()).isZero();
        assertThat(fetch((short) 13, fresh).responses().get(0).partitions().get(0).highWatermark()).isEqualTo(1);
    }

    /**
     * Under a fetch session a partition keeps the name its id resolved to when it joined, as in
     * Kafka: its topic deleted is UNKNOWN_TOPIC_OR_PARTITION, created again under the name (another
     * id) INCONSISTENT_TOPIC_ID. Seen so from the Java consumer against Kafka 4.4
     * (compat-tests' TopicRecreateCompatTest).
     */
    @Test
    void aSessionPartitionOfADeletedAndRecreatedTopicIsAnsweredAsKafkaAnswersIt() throws Exception {
        UUID old = create("orders");
        short v = 17;
        FetchRequest.FetchTopic topic = new FetchRequest.FetchTopic().topicId(old).partitions(List.of(
                new FetchRequest.FetchPartition().partition(0).fetchOffset(0).partitionMaxBytes(1 << 20)));
        FetchResponse opened = c.call(new FetchRequest().maxWaitMs(0).minBytes(0).maxBytes(1 << 20).sessionEpoch(0)
                .topics(List.of(topic)), v);
        int session = opened.sessionId();
        assertThat(session).isNotZero();
        FetchRequest incremental = new FetchRequest().maxWaitMs(0).minBytes(0).maxBytes(1 << 20).sessionId(session);

        delete("orders");
        FetchResponse deleted = c.call(incremental.sessionEpoch(1), v);
        assertThat(deleted.responses()).singleElement().satisfies(t -> {
            assertThat(t.topicId()).isEqualTo(old);
            assertThat(t.partitions().get(0).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        });

        create("orders");
        FetchResponse recreated = c.call(incremental.sessionEpoch(2), v);
        assertThat(recreated.responses()).singleElement().satisfies(t -> {
            assertThat(t.topicId()).isEqualTo(old);
            assertThat(t.partitions().get(0).errorCode()).isEqualTo(Errors.INCONSISTENT_TOPIC_ID.code());
        });
    }

    @Test
    void commitsAndFetchesOffsetsByTopicId() throws Exception {
        UUID id = create("orders");
        UUID unknown = UUID.randomUUID();
        OffsetCommitResponse committed = c.call(new OffsetCommitRequest().groupId("g").generationIdOrMemberEpoch(-1)
                .memberId("").topics(new ArrayList<>(List.of(
                        new OffsetCommitRequestTopic().topicId(id).partitions(new ArrayList<>(List.of(
                                new OffsetCommitRequestPartition().partitionIndex(0).committedOffset(7)))),
                        new OffsetCommitRequestTopic().topicId(unknown).partitions(new ArrayList<>(List.of(
                                new OffsetCommitRequestPartition().partitionIndex(0).committedOffset(7))))))),
                (short) 10);
        assertThat(committed.topics()).extracting(OffsetCommitResponse.OffsetCommitResponseTopic::topicId)
                .containsExactlyInAnyOrder(id, unknown);
        for (OffsetCommitResponse.OffsetCommitResponseTopic t : committed.topics()) {
            assertThat(t.partitions().get(0).errorCode()).as("commit %s", t.topicId()).isEqualTo(
                    t.topicId().equals(id) ? Errors.NONE.code() : Errors.UNKNOWN_TOPIC_ID.code());
        }

        // the offset is kept by name: a v9 fetch by name sees it
        OffsetFetchResponse byName = c.call(new OffsetFetchRequest().groups(List.of(new OffsetFetchRequestGroup()
                .groupId("g").topics(List.of(new OffsetFetchRequestTopics().name("orders")
                        .partitionIndexes(List.of(0)))))), (short) 9);
        assertThat(byName.groups().get(0).topics().get(0).partitions().get(0).committedOffset()).isEqualTo(7);

        OffsetFetchResponse byId = c.call(new OffsetFetchRequest().groups(List.of(new OffsetFetchRequestGroup()
                .groupId("g").topics(List.of(
                        new OffsetFetchRequestTopics().topicId(id).partitionIndexes(List.of(0)),
                        new OffsetFetchRequestTopics().topicId(unknown).partitionIndexes(List.of(0)))))), (short) 10);
        List<OffsetFetchResponse.OffsetFetchResponseTopics> topics = byId.groups().get(0).topics();
        assertThat(topics).extracting(OffsetFetchResponse.OffsetFetchResponseTopics::topicId).containsExactly(id, unknown);
        assertThat(topics.get(0).partitions().get(0).committedOffset()).isEqualTo(7);
        assertThat(topics.get(0).partitions().get(0).errorCode()).isZero();
        assertThat(topics.get(1).partitions().get(0).committedOffset()).isEqualTo(-1);
        assertThat(topics.get(1).partitions().get(0).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());

        // all topics: named by id; a deleted topic's offsets have no id to be named by
        OffsetFetchResponse all = c.call(new OffsetFetchRequest().groups(List.of(new OffsetFetchRequestGroup()
                .groupId("g").topics(null))), (short) 10);
        assertThat(all.groups().get(0).topics()).extracting(OffsetFetchResponse.OffsetFetchResponseTopics::topicId)
                .containsExactly(id);
        delete("orders");
        OffsetFetchResponse afterDelete = c.call(new OffsetFetchRequest().groups(List.of(new OffsetFetchRequestGroup()
                .groupId("g").topics(null))), (short) 10);
        assertThat(afterDelete.groups().get(0).topics()).isEmpty();
    }

    /**
     * A long poll re-reads by the name its id resolved to: a topic deleted while the fetch waits is
     * answered UNKNOWN_TOPIC_OR_PARTITION at the deadline, as Kafka's delayed fetch answers it.
     */
    @Test
    void aLongPollOnADeletedTopicEndsWithUnknownTopicOrPartition() throws Exception {
        MutableClock clock = new MutableClock(1_000_000);
        try (Brook b = Brook.builder().clock(clock).config("connections.max.idle.ms", "-1").start();
                ProtocolClient waiting = new ProtocolClient(b.bootstrapServers());
                ProtocolClient admin = new ProtocolClient(b.bootstrapServers())) {
            CreateTopicsResponse created = admin.call(new CreateTopicsRequest().topics(List.of(
                    new CreatableTopic().name("t").numPartitions(1).replicationFactor((short) 1))), (short) 7);
            UUID id = created.topics().get(0).topicId();
            short v = 18;
            int correlation = waiting.send(new FetchRequest().maxWaitMs(300).minBytes(1).maxBytes(1 << 20)
                    .sessionEpoch(-1).topics(List.of(new FetchRequest.FetchTopic().topicId(id).partitions(List.of(
                            new FetchRequest.FetchPartition().partition(0).fetchOffset(0)
                                    .partitionMaxBytes(1 << 20))))), v);
            Await.until("fetch parked", () -> b.fetchWaiters().waiting() == 1);
            DeleteTopicsResponse deleted = admin.call(new DeleteTopicsRequest().timeoutMs(1000)
                    .topicNames(List.of("t")), (short) 5);
            assertThat(deleted.responses().get(0).errorCode()).isZero();
            clock.advance(300);
            FetchResponse r = waiting.receive(ApiKey.FETCH, v, correlation);
            assertThat(r.responses()).singleElement().satisfies(t -> {
                assertThat(t.topicId()).isEqualTo(id);
                assertThat(t.partitions().get(0).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            });
        }
    }
}
