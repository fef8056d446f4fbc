package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import io.brook.wire.message.AddOffsetsToTxnRequest;
import io.brook.wire.message.AddOffsetsToTxnResponse;
import io.brook.wire.message.AddPartitionsToTxnRequest;
import io.brook.wire.message.AddPartitionsToTxnRequest.AddPartitionsToTxnTopic;
import io.brook.wire.message.AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction;
import io.brook.wire.message.AddPartitionsToTxnResponse;
import io.brook.wire.message.AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult;
import io.brook.wire.message.AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.EndTxnRequest;
import io.brook.wire.message.EndTxnResponse;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchRequest.FetchPartition;
import io.brook.wire.message.FetchRequest.FetchTopic;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.InitProducerIdResponse;
import io.brook.wire.message.ListOffsetsRequest;
import io.brook.wire.message.ListOffsetsRequest.ListOffsetsPartition;
import io.brook.wire.message.ListOffsetsRequest.ListOffsetsTopic;
import io.brook.wire.message.ListOffsetsResponse;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.message.TxnOffsetCommitRequest;
import io.brook.wire.message.TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition;
import io.brook.wire.message.TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic;
import io.brook.wire.message.TxnOffsetCommitResponse;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transaction APIs over raw sockets against an embedded broker: what AddPartitionsToTxn
 * answers for partitions this node does not host, the batched and verify-only forms, the
 * verification of transactional produce, the markers (the last stable offset and the aborted
 * transactions a read_committed fetch gets), the fencing error old versions see, an open
 * transaction surviving a restart, and both a committed and an open transaction surviving a crash.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransactionApisTest {

    private static final short PRODUCE_V = 9;

    @TempDir
    Path dir;

    private Brook brook;

    @BeforeEach
    void start() {
        brook = start(dir);
    }

    private static Brook start(Path dataDir) {
        return Brook.builder().port(0).dataDir(dataDir).faults(true).config("transaction.state.log.num.partitions", "3")
                .start();
    }

    @AfterEach
    void stop() {
        brook.close();
    }

    private ProtocolClient client() throws Exception {
        return new ProtocolClient(brook.bootstrapServers());
    }

    private static void createTopic(ProtocolClient c, String name, int partitions) throws Exception {
        c.call(new CreateTopicsRequest().topics(new ArrayList<>(List.of(new CreatableTopic().name(name)
                .numPartitions(partitions).replicationFactor((short) 1)))).timeoutMs(10_000), (short) 5);
    }

    private static InitProducerIdResponse init(ProtocolClient c, String id) {
        InitProducerIdResponse r = c.initProducerIdPastLoad(id, (short) 4);
        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        return r;
    }

    private static List<AddPartitionsToTxnTopicResult> add(ProtocolClient c, String id, InitProducerIdResponse p,
            String topic, int... partitions) throws Exception {
        List<Integer> ps = new ArrayList<>();
        for (int x : partitions) {
            ps.add(x);
        }
        AddPartitionsToTxnResponse r = c.call(new AddPartitionsToTxnRequest().v3AndBelowTransactionalId(id)
                .v3AndBelowProducerId(p.producerId()).v3AndBelowProducerEpoch(p.producerEpoch())
                .v3AndBelowTopics(new ArrayList<>(List.of(new AddPartitionsToTxnTopic().name(topic).partitions(ps)))),
                (short) 3);
        return r.resultsByTopicV3AndBelow();
    }

    /** A transactional Produce (v9, a classic producer's) of producer {@code p} of transactional id "tx". */
    private static short produce(ProtocolClient c, InitProducerIdResponse p, String topic, int partition, int seq,
            String value) throws Exception {
        return produce(c, "tx", p.producerId(), p.producerEpoch(), topic, partition, seq, value, PRODUCE_V);
    }

    private static short produce(ProtocolClient c, String transactionalId, long producerId, short epoch, String topic,
            int partition, int seq, String value, short version) throws Exception {
        ByteBuffer batch = new RecordBatchBuilder(Compression.NONE).producer(producerId, epoch, seq)
                .transactional(true).append(1L, null, value.getBytes(StandardCharsets.UTF_8)).build();
        ProduceResponse r = c.call(new ProduceRequest().transactionalId(transactionalId).acks((short) -1)
                .timeoutMs(10_000).topicData(List.of(new TopicProduceData().name(topic).partitionData(List.of(
                        new PartitionProduceData().index(partition).records(BufferRecords.wrap(batch)))))), version);
        return r.responses().get(0).partitionResponses().get(0).errorCode();
    }

    private static short end(ProtocolClient c, String id, InitProducerIdResponse p, boolean commit, short version)
            throws Exception {
        short[] code = new short[1];
        // the broker loads __transaction_state in the background after a start: asked again meanwhile
        Await.until("EndTxn past the coordinator's load", () -> {
            try {
                EndTxnResponse r = c.call(new EndTxnRequest().transactionalId(id).producerId(p.producerId())
                        .producerEpoch(p.producerEpoch()).committed(commit), version);
                code[0] = r.errorCode();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return code[0] != Errors.COORDINATOR_LOAD_IN_PROGRESS.code();
        });
        return code[0];
    }

    private static long lastStableOffset(ProtocolClient c, String topic, int partition) throws Exception {
        return latestOffset(c, topic, partition, (byte) 1);
    }

    /** The latest offset at an isolation level: 1 the last stable offset, 0 the high watermark. */
    private static long latestOffset(ProtocolClient c, String topic, int partition, byte isolationLevel) throws Exception {
        ListOffsetsResponse r = c.call(new ListOffsetsRequest().replicaId(-1).isolationLevel(isolationLevel)
                .topics(List.of(new ListOffsetsTopic().name(topic).partitions(List.of(new ListOffsetsPartition()
                        .partitionIndex(partition).timestamp(-1L))))), (short) 7);
        return r.topics().get(0).partitions().get(0).offset();
    }

    private static long lso(ProtocolClient c, String topic, int partition) {
        try {
            return lastStableOffset(c, topic, partition);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static long highWatermark(ProtocolClient c, String topic, int partition) {
        try {
            return latestOffset(c, topic, partition, (byte) 0);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Errors error(AddPartitionsToTxnPartitionResult r) {
        return Errors.forCode(r.partitionErrorCode());
    }

    @Test
    void shouldRefuseTheWholeRequestWhenAPartitionIsNotHostedHere() throws Exception {
        try (ProtocolClient c = client()) {
            createTopic(c, "t", 2);
            InitProducerIdResponse p = init(c, "tx");
            List<Integer> both = new ArrayList<>(List.of(0, 5));
            AddPartitionsToTxnResponse r = c.call(new AddPartitionsToTxnRequest().v3AndBelowTransactionalId("tx")
                    .v3AndBelowProducerId(p.producerId()).v3AndBelowProducerEpoch(p.producerEpoch())
                    .v3AndBelowTopics(new ArrayList<>(List.of(new AddPartitionsToTxnTopic().name("t").partitions(both),
                            new AddPartitionsToTxnTopic().name("__consumer_offsets").partitions(new ArrayList<>(List.of(0)))))),
                    (short) 3);
            List<AddPartitionsToTxnTopicResult> topics = r.resultsByTopicV3AndBelow();
            assertThat(topics).hasSize(2);
            AddPartitionsToTxnTopicResult t = topics.stream().filter(x -> x.name().equals("t")).findFirst().orElseThrow();
            assertThat(t.resultsByPartition()).extracting(TransactionApisTest::error)
                    .containsExactlyInAnyOrder(Errors.OPERATION_NOT_ATTEMPTED, Errors.UNKNOWN_TOPIC_OR_PARTITION);
            // nothing was added: a produce into t-0 is refused
            assertThat(produce(c, p, "t", 0, 0, "v")).isEqualTo(Errors.INVALID_TXN_STATE.code());
        }
    }

    @Test
    void shouldVerifyTransactionalProduceAndAbortWithMarkers() throws Exception {
        try (ProtocolClient c = client()) {
            createTopic(c, "t", 2);
            InitProducerIdResponse p = init(c, "tx");
            assertThat(produce(c, p, "t", 0, 0, "early")).isEqualTo(Errors.INVALID_TXN_STATE.code());
            assertThat(add(c, "tx", p, "t", 0).get(0).resultsByPartition()).extracting(TransactionApisTest::error)
                    .containsExactly(Errors.NONE);
            assertThat(produce(c, p, "t", 0, 0, "in")).isEqualTo(Errors.NONE.code());
            assertThat(produce(c, p, "t", 1, 0, "other")).isEqualTo(Errors.INVALID_TXN_STATE.code());
            // v4+: batched, verify-only as a partition leader asks it
            AddPartitionsToTxnResponse verified = c.call(new AddPartitionsToTxnRequest().transactions(new ArrayList<>(List.of(
                    new AddPartitionsToTxnTransaction().transactionalId("tx").producerId(p.producerId())
                            .producerEpoch(p.producerEpoch()).verifyOnly(true).topics(new ArrayList<>(List.of(
                                    new AddPartitionsToTxnTopic().name("t").partitions(new ArrayList<>(List.of(0, 1))))))))),
                    (short) 5);
            assertThat(verified.resultsByTransaction().get(0).topicResults().get(0).resultsByPartition())
                    .extracting(TransactionApisTest::error).containsExactly(Errors.NONE, Errors.INVALID_TXN_STATE);
            assertThat(lastStableOffset(c, "t", 0)).isZero();
            assertThat(end(c, "tx", p, false, (short) 3)).isEqualTo(Errors.NONE.code());
            Await.until("LSO past the abort marker", () -> lso(c, "t", 0) == 2);
            FetchResponse f = c.call(new FetchRequest().maxWaitMs(0).minBytes(0).maxBytes(1 << 20).isolationLevel((byte) 1)
                    .sessionId(0).sessionEpoch(-1).topics(List.of(new FetchTopic().topic("t").partitions(List.of(
                            new FetchPartition().partition(0).fetchOffset(0).partitionMaxBytes(1 << 20))))), (short) 12);
            FetchResponse.PartitionData pd = f.responses().get(0).partitions().get(0);
            assertThat(pd.lastStableOffset()).isEqualTo(2);
            assertThat(pd.abortedTransactions()).singleElement().satisfies(a -> {
                assertThat(a.producerId()).isEqualTo(p.producerId());
                assertThat(a.firstOffset()).isZero();
            });
        }
    }

    @Test
    void shouldRefuseTransactionalOffsetsBeforeAddOffsetsToTxn() throws Exception {
        try (ProtocolClient c = client()) {
            createTopic(c, "t", 1);
            InitProducerIdResponse p = init(c, "tx");
            assertThat(txnOffsetCommit(c, p)).isEqualTo(Errors.INVALID_TXN_STATE);
            AddOffsetsToTxnResponse added = c.call(new AddOffsetsToTxnRequest().transactionalId("tx")
                    .producerId(p.producerId()).producerEpoch(p.producerEpoch()).groupId("g"), (short) 3);
            assertThat(added.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(txnOffsetCommit(c, p)).isEqualTo(Errors.NONE);
        }
    }

    private static Errors txnOffsetCommit(ProtocolClient c, InitProducerIdResponse p) throws Exception {
        return txnOffsetCommit(c, "tx", p.producerId(), p.producerEpoch(), (short) 3);
    }

    private static Errors txnOffsetCommit(ProtocolClient c, String transactionalId, long producerId, short epoch,
            short version) throws Exception {
        TxnOffsetCommitResponse r = c.call(new TxnOffsetCommitRequest().transactionalId(transactionalId).groupId("g")
                .producerId(producerId).producerEpoch(epoch).topics(new ArrayList<>(List.of(
                        new TxnOffsetCommitRequestTopic().name("t").partitions(new ArrayList<>(List.of(
                                new TxnOffsetCommitRequestPartition().partitionIndex(0).committedOffset(5))))))),
                version);
        return Errors.forCode(r.topics().get(0).partitions().get(0).errorCode());
    }

    /**
     * Kafka 4's answers when the offsets are not part of the producer's transaction: a transactional
     * id the coordinator does not know, or one another producer id holds, is INVALID_PRODUCER_ID_MAPPING
     * (abortable for the Java producer); the offsets partition not added is INVALID_TXN_STATE up to
     * v3 and TRANSACTION_ABORTABLE from v4, whose clients may abort and go on.
     */
    @Test
    void shouldAnswerOffsetsOutsideTheTransactionWithKafkasErrorForEachCause() throws Exception {
        try (ProtocolClient c = client()) {
            createTopic(c, "t", 1);
            InitProducerIdResponse first = init(c, "tx");
            InitProducerIdResponse p = init(c, "tx");
            InitProducerIdResponse other = init(c, "other");
            assertThat(txnOffsetCommit(c, "no-such-id", 999, (short) 999, (short) 3))
                    .isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
            assertThat(txnOffsetCommit(c, "tx", other.producerId(), other.producerEpoch(), (short) 3))
                    .as("the id belongs to another producer").isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
            assertThat(txnOffsetCommit(c, "tx", p.producerId(), p.producerEpoch(), (short) 3))
                    .isEqualTo(Errors.INVALID_TXN_STATE);
            assertThat(txnOffsetCommit(c, "tx", p.producerId(), p.producerEpoch(), (short) 4))
                    .isEqualTo(Errors.TRANSACTION_ABORTABLE);
            assertThat(p.producerEpoch()).isGreaterThan(first.producerEpoch());
            assertThat(txnOffsetCommit(c, "tx", first.producerId(), first.producerEpoch(), (short) 4))
                    .as("an epoch the producer left behind").isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        }
    }

    /**
     * A classic producer's transactional batch for a partition outside its transaction gets the
     * cause Kafka's verification gives: INVALID_PRODUCER_ID_MAPPING for a transactional id the
     * coordinator does not know or another producer id holds; the partition not added is
     * INVALID_TXN_STATE up to Produce v10 and TRANSACTION_ABORTABLE from v11; a fenced epoch
     * INVALID_PRODUCER_EPOCH. Nothing is appended.
     */
    @Test
    void shouldAnswerTransactionalProduceOutsideTheTransactionWithKafkasErrorForEachCause() throws Exception {
        try (ProtocolClient c = client()) {
            createTopic(c, "t", 1);
            InitProducerIdResponse first = init(c, "tx");
            InitProducerIdResponse p = init(c, "tx");
            InitProducerIdResponse other = init(c, "other");
            assertThat(produce(c, "no-such-id", p.producerId(), p.producerEpoch(), "t", 0, 0, "v", (short) 10))
                    .isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING.code());
            assertThat(produce(c, "tx", other.producerId(), other.producerEpoch(), "t", 0, 0, "v", (short) 11))
                    .as("the id belongs to another producer").isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING.code());
            assertThat(produce(c, "tx", p.producerId(), p.producerEpoch(), "t", 0, 0, "v", (short) 10))
                    .isEqualTo(Errors.INVALID_TXN_STATE.code());
            assertThat(produce(c, "tx", p.producerId(), p.producerEpoch(), "t", 0, 0, "v", (short) 11))
                    .isEqualTo(Errors.TRANSACTION_ABORTABLE.code());
            assertThat(produce(c, "tx", first.producerId(), first.producerEpoch(), "t", 0, 0, "v", (short) 11))
                    .as("an epoch the producer left behind").isEqualTo(Errors.INVALID_PRODUCER_EPOCH.code());
            assertThat(highWatermark(c, "t", 0)).as("nothing appended").isZero();
        }
    }

    @Test
    void shouldTellOldVersionsOfAFencedProducerInvalidProducerEpoch() throws Exception {
        try (ProtocolClient c = client()) {
            createTopic(c, "t", 1);
            InitProducerIdResponse old = init(c, "tx");
            init(c, "tx");
            assertThat(end(c, "tx", old, true, (short) 1)).isEqualTo(Errors.INVALID_PRODUCER_EPOCH.code());
            assertThat(end(c, "tx", old, true, (short) 3)).isEqualTo(Errors.PRODUCER_FENCED.code());
            AddOffsetsToTxnResponse offsets = c.call(new AddOffsetsToTxnRequest().transactionalId("tx")
                    .producerId(old.producerId()).producerEpoch(old.producerEpoch()).groupId("g"), (short) 3);
            assertThat(offsets.errorCode()).isEqualTo(Errors.PRODUCER_FENCED.code());
        }
    }

    @Test
    void shouldCompleteACommittedTransactionAndKeepAnOpenOneAcrossACrash() throws Exception {
        InitProducerIdResponse committed;
        InitProducerIdResponse open;
        try (ProtocolClient c = client()) {
            createTopic(c, "t", 2);
            committed = init(c, "done");
            add(c, "done", committed, "t", 0);
            assertThat(produce(c, committed, "t", 0, 0, "committed")).isEqualTo(Errors.NONE.code());
            assertThat(end(c, "done", committed, true, (short) 3)).isEqualTo(Errors.NONE.code());
            open = init(c, "open");
            add(c, "open", open, "t", 1);
            assertThat(produce(c, open, "t", 1, 0, "pending")).isEqualTo(Errors.NONE.code());
        }
        // kill -9 and power cut: writes no fsync covered are lost (the commit marker may be among them)
        brook.crash();
        brook.start();
        try (ProtocolClient c = client()) {
            // the record and its commit marker; a crash before CompleteCommit was durable leaves
            // PrepareCommit, whose markers are written again: a second marker, which closes nothing
            Await.until("the commit completed after the crash", () -> {
                long stable = lso(c, "t", 0);
                return stable >= 2 && stable == highWatermark(c, "t", 0);
            });
            assertThat(lso(c, "t", 1)).isZero();
            assertThat(end(c, "open", open, false, (short) 3)).isEqualTo(Errors.NONE.code());
            Await.until("the abort after the crash", () -> lso(c, "t", 1) == 2);
            assertThat(end(c, "done", committed, true, (short) 3)).isEqualTo(Errors.NONE.code());
        }
    }

    @Test
    void shouldKeepAnOpenTransactionAcrossARestartAndCommitIt() throws Exception {
        InitProducerIdResponse p;
        try (ProtocolClient c = client()) {
            createTopic(c, "t", 1);
            p = init(c, "tx");
            add(c, "tx", p, "t", 0);
            assertThat(produce(c, p, "t", 0, 0, "before")).isEqualTo(Errors.NONE.code());
        }
        brook.close();
        brook = start(dir);
        try (ProtocolClient c = client()) {
            assertThat(lastStableOffset(c, "t", 0)).isZero();
            // while __transaction_state loads after the start, a transactional write is answered
            // NOT_ENOUGH_REPLICAS (retriable, as Kafka answers a verification it cannot make yet)
            short[] code = new short[1];
            Await.until("the write verified once the coordinator loaded", () -> {
                try {
                    code[0] = produce(c, p, "t", 0, 1, "after");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                return code[0] != Errors.NOT_ENOUGH_REPLICAS.code();
            });
            assertThat(code[0]).isEqualTo(Errors.NONE.code());
            assertThat(end(c, "tx", p, true, (short) 3)).isEqualTo(Errors.NONE.code());
            Await.until("LSO past the commit marker", () -> lso(c, "t", 0) == 3);
        }
    }
}
