package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.EndTxnRequest;
import io.brook.wire.message.EndTxnResponse;
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
import io.brook.wire.message.WriteTxnMarkersRequest;
import io.brook.wire.message.WriteTxnMarkersRequest.WritableTxnMarker;
import io.brook.wire.message.WriteTxnMarkersRequest.WritableTxnMarkerTopic;
import io.brook.wire.message.WriteTxnMarkersResponse;
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
 * Transactions V2 (KIP-890 part 2) over raw sockets against an embedded broker: a Produce v12
 * adds its partition to the transaction (no AddPartitionsToTxn), a TxnOffsetCommit v5 its
 * offsets partition (no AddOffsetsToTxn), EndTxn v5 answers the bumped epoch and its markers
 * fence the old epoch in the partition, while v11 and older keep the verification of part 1.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransactionV2ApisTest {

    private static final short PRODUCE_V2 = 12;
    private static final short PRODUCE_V1 = 11;

    @TempDir
    Path dir;

    private Brook brook;

    @BeforeEach
    void start() {
        brook = Brook.builder().port(0).dataDir(dir).config("transaction.state.log.num.partitions", "3").start();
    }

    @AfterEach
    void stop() {
        brook.close();
    }

    private ProtocolClient client() throws Exception {
        return new ProtocolClient(brook.bootstrapServers());
    }

    private static void createTopic(ProtocolClient c, String name) throws Exception {
        c.call(new CreateTopicsRequest().topics(new ArrayList<>(List.of(new CreatableTopic().name(name)
                .numPartitions(2).replicationFactor((short) 1)))).timeoutMs(10_000), (short) 5);
    }

    private static InitProducerIdResponse init(ProtocolClient c, String id) {
        InitProducerIdResponse r = c.initProducerIdPastLoad(id, (short) 5);
        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        return r;
    }

    private static Errors produce(ProtocolClient c, String id, long pid, short epoch, int partition, int seq, short version) {
        try {
            return produceOnce(c, id, pid, epoch, partition, seq, version);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Errors produceOnce(ProtocolClient c, String id, long pid, short epoch, int partition, int seq,
            short version) throws Exception {
        return produceBatch(c, id, partition, batch(pid, epoch, seq), version);
    }

    private static ByteBuffer batch(long pid, short epoch, int seq) {
        return new RecordBatchBuilder(Compression.NONE).producer(pid, epoch, seq).transactional(true)
                .append(1L, null, "v".getBytes(StandardCharsets.UTF_8)).build();
    }

    private static Errors produceBatch(ProtocolClient c, String id, int partition, ByteBuffer batch, short version)
            throws Exception {
        ProduceResponse r = c.call(new ProduceRequest().transactionalId(id).acks((short) -1).timeoutMs(10_000)
                .topicData(List.of(new TopicProduceData().name("t").partitionData(List.of(new PartitionProduceData()
                        .index(partition).records(BufferRecords.wrap(batch)))))), version);
        return Errors.forCode(r.responses().get(0).partitionResponses().get(0).errorCode());
    }

    private static EndTxnResponse end(ProtocolClient c, String id, long pid, short epoch, boolean commit, short version)
            throws Exception {
        return c.call(new EndTxnRequest().transactionalId(id).producerId(pid).producerEpoch(epoch).committed(commit), version);
    }

    private static long lso(ProtocolClient c, int partition) {
        try {
            ListOffsetsResponse r = c.call(new ListOffsetsRequest().replicaId(-1).isolationLevel((byte) 1)
                    .topics(List.of(new ListOffsetsTopic().name("t").partitions(List.of(new ListOffsetsPartition()
                            .partitionIndex(partition).timestamp(-1L))))), (short) 7);
            return r.topics().get(0).partitions().get(0).offset();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void produceV12AddsThePartitionAndEndTxnV5BumpsTheEpoch() throws Exception {
        try (ProtocolClient c = client()) {
            createTopic(c, "t");
            InitProducerIdResponse p = init(c, "tx");
            long pid = p.producerId();
            short epoch = p.producerEpoch();
            // v11 is a classic producer: the partition must have been added first; refused as
            // Kafka refuses it, with the error a v11 client may abort and go on from
            assertThat(produce(c, "tx", pid, epoch, 0, 0, PRODUCE_V1)).isEqualTo(Errors.TRANSACTION_ABORTABLE);
            assertThat(produce(c, "tx", pid, epoch, 0, 0, PRODUCE_V2)).isEqualTo(Errors.NONE);
            assertThat(produce(c, "tx", pid, epoch, 1, 0, PRODUCE_V2)).isEqualTo(Errors.NONE);
            assertThat(lso(c, 0)).isZero();
            EndTxnResponse committed = end(c, "tx", pid, epoch, true, (short) 5);
            assertThat(committed.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(committed.producerId()).isEqualTo(pid);
            assertThat(committed.producerEpoch()).isEqualTo((short) (epoch + 1));
            Await.until("LSO past the commit marker", () -> lso(c, 0) == 2 && lso(c, 1) == 2);
            // the marker carried the bumped epoch: the old epoch is fenced in the partition
            assertThat(produce(c, "tx", pid, epoch, 0, 1, PRODUCE_V2)).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
            // a marker at the old epoch is refused by the partition, as Kafka refuses it
            WritableTxnMarkerTopic t0 = new WritableTxnMarkerTopic().name("t").partitionIndexes(new ArrayList<>(List.of(0)));
            WritableTxnMarker marker = new WritableTxnMarker().producerId(pid).producerEpoch(epoch).transactionResult(false)
                    .coordinatorEpoch(0).topics(new ArrayList<>(List.of(t0)));
            WriteTxnMarkersResponse stale = c.call(new WriteTxnMarkersRequest().markers(new ArrayList<>(List.of(marker))),
                    (short) 1);
            assertThat(stale.markers().get(0).topics().get(0).partitions().get(0).errorCode())
                    .isEqualTo(Errors.INVALID_PRODUCER_EPOCH.code());
            // the next transaction runs at the bumped epoch, from sequence 0
            short next = committed.producerEpoch();
            Await.until("the next transaction begins at the bumped epoch",
                    () -> produce(c, "tx", pid, next, 0, 0, PRODUCE_V2) == Errors.NONE);
            EndTxnResponse aborted = end(c, "tx", pid, next, false, (short) 5);
            assertThat(aborted.producerEpoch()).isEqualTo((short) (next + 1));
            Await.until("LSO past the abort marker", () -> lso(c, 0) == 4);
            // a retry of the abort is answered as the first was (CONCURRENT_TRANSACTIONS until it completed)
            Await.until("the retried abort is answered", () -> {
                try {
                    return end(c, "tx", pid, next, false, (short) 5).errorCode() == Errors.NONE.code();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(end(c, "tx", pid, next, false, (short) 5).producerEpoch()).isEqualTo(aborted.producerEpoch());
        }
    }

    @Test
    void aTransactionsV2MarkerAtTheEpochOfTheOpenTransactionIsRefused() throws Exception {
        try (ProtocolClient c = client()) {
            createTopic(c, "t");
            InitProducerIdResponse p = init(c, "tx");
            assertThat(produce(c, "tx", p.producerId(), p.producerEpoch(), 0, 0, PRODUCE_V2)).isEqualTo(Errors.NONE);
            assertThat(marker(c, p.producerId(), p.producerEpoch(), (byte) 2, (short) 2)).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
            assertThat(lso(c, 0)).isZero();
            // Admin's abortTransaction (v1, no transaction version) closes it at the data's epoch
            assertThat(marker(c, p.producerId(), p.producerEpoch(), (byte) 0, (short) 1)).isEqualTo(Errors.NONE);
            Await.until("LSO past the abort marker", () -> lso(c, 0) == 2);
        }
    }

    @Test
    void aBatchAboveTheLowestAddingSequenceWaitsUntilThatBatchIsAppended() throws Exception {
        try (ProtocolClient c = client()) {
            createTopic(c, "t");
            InitProducerIdResponse p = init(c, "tx");
            long pid = p.producerId();
            short epoch = p.producerEpoch();
            // sequence 0 adds the partition but is not appended (a bad CRC stands for any failed append)
            ByteBuffer corrupt = batch(pid, epoch, 0);
            corrupt.put(corrupt.limit() - 1, (byte) (corrupt.get(corrupt.limit() - 1) ^ 0x55));
            assertThat(produceBatch(c, "tx", 0, corrupt, PRODUCE_V2)).isEqualTo(Errors.CORRUPT_MESSAGE);
            // a later batch must not go first: the partition's first append would then be refused for good
            assertThat(produce(c, "tx", pid, epoch, 0, 5, PRODUCE_V2)).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
            assertThat(produce(c, "tx", pid, epoch, 0, 0, PRODUCE_V2)).isEqualTo(Errors.NONE);
            assertThat(produce(c, "tx", pid, epoch, 0, 1, PRODUCE_V2)).isEqualTo(Errors.NONE);
        }
    }

    private static Errors marker(ProtocolClient c, long pid, short epoch, byte transactionVersion, short version)
            throws Exception {
        WritableTxnMarkerTopic t0 = new WritableTxnMarkerTopic().name("t").partitionIndexes(new ArrayList<>(List.of(0)));
        WritableTxnMarker marker = new WritableTxnMarker().producerId(pid).producerEpoch(epoch).transactionResult(false)
                .coordinatorEpoch(0).transactionVersion(transactionVersion).topics(new ArrayList<>(List.of(t0)));
        WriteTxnMarkersResponse r = c.call(new WriteTxnMarkersRequest().markers(new ArrayList<>(List.of(marker))), version);
        return Errors.forCode(r.markers().get(0).topics().get(0).partitions().get(0).errorCode());
    }

    @Test
    void txnOffsetCommitV5AddsTheOffsetsPartition() throws Exception {
        try (ProtocolClient c = client()) {
            createTopic(c, "t");
            InitProducerIdResponse p = init(c, "tx");
            assertThat(txnOffsetCommit(c, p, (short) 3)).isEqualTo(Errors.INVALID_TXN_STATE);
            assertThat(txnOffsetCommit(c, p, (short) 5)).isEqualTo(Errors.NONE);
            EndTxnResponse committed = end(c, "tx", p.producerId(), p.producerEpoch(), true, (short) 5);
            assertThat(committed.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(committed.producerEpoch()).isEqualTo((short) (p.producerEpoch() + 1));
        }
    }

    @Test
    void aClassicEndTxnKeepsTheEpochOfATransactionStartedByProduceV12() throws Exception {
        try (ProtocolClient c = client()) {
            createTopic(c, "t");
            InitProducerIdResponse p = init(c, "tx");
            assertThat(produce(c, "tx", p.producerId(), p.producerEpoch(), 0, 0, PRODUCE_V2)).isEqualTo(Errors.NONE);
            EndTxnResponse r = end(c, "tx", p.producerId(), p.producerEpoch(), true, (short) 4);
            assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
            Await.until("LSO past the commit marker", () -> lso(c, 0) == 2);
            // NOT_ENOUGH_REPLICAS (retriable) until CompleteCommit is written, as for any client
            Await.until("the next transaction begins at the same epoch",
                    () -> produce(c, "tx", p.producerId(), p.producerEpoch(), 0, 1, PRODUCE_V2) == Errors.NONE);
        }
    }

    private static Errors txnOffsetCommit(ProtocolClient c, InitProducerIdResponse p, short version) throws Exception {
        TxnOffsetCommitResponse r = c.call(new TxnOffsetCommitRequest().transactionalId("tx").groupId("g")
                .producerId(p.producerId()).producerEpoch(p.producerEpoch()).generationIdOrMemberEpoch(-1).memberId("")
                .topics(new ArrayList<>(List.of(new TxnOffsetCommitRequestTopic().name("t").partitions(new ArrayList<>(
                        List.of(new TxnOffsetCommitRequestPartition().partitionIndex(0).committedOffset(5))))))),
                version);
        return Errors.forCode(r.topics().get(0).partitions().get(0).errorCode());
    }
}
