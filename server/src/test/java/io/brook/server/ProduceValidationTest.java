package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsResponse;
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
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Forged batches sent over the wire: refused with the record at fault, nothing appended. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProduceValidationTest {
    private Brook brook;
    private ProtocolClient client;

    @BeforeEach
    void start() throws Exception {
        brook = Brook.builder().start();
        client = new ProtocolClient(brook.bootstrapServers());
        CreateTopicsResponse r = client.call(new CreateTopicsRequest().topics(List.of(
                new CreatableTopic().name("t").numPartitions(1).replicationFactor((short) 1))), (short) 7);
        assertThat(r.topics()).allSatisfy(t -> assertThat(t.errorCode()).isZero());
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        brook.close();
    }

    private PartitionProduceResponse produce(short version, ByteBuffer records) throws Exception {
        ProduceResponse r = client.call(new ProduceRequest().acks((short) 1).timeoutMs(10_000).topicData(List.of(
                new TopicProduceData().name("t").partitionData(List.of(new PartitionProduceData().index(0)
                        .records(BufferRecords.wrap(records)))))), version);
        return r.responses().get(0).partitionResponses().get(0);
    }

    /** Three records whose offset deltas are 0, 1, 3, with a header that agrees with a count of 3. */
    private static ByteBuffer forged(Compression c) {
        ByteBuffer b = new RecordBatchBuilder(c)
                .appendWithOffset(0, 1L, null, ByteBuffer.wrap("a".getBytes(StandardCharsets.UTF_8)))
                .appendWithOffset(1, 1L, null, ByteBuffer.wrap("b".getBytes(StandardCharsets.UTF_8)))
                .appendWithOffset(3, 1L, null, ByteBuffer.wrap("c".getBytes(StandardCharsets.UTF_8))).build();
        b.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, 2);
        b.putInt(RecordBatch.CRC_OFFSET, (int) new RecordBatch().wrap(b, 0).computeCrc());
        return b;
    }

    @Test
    void shouldRefuseAForgedBatchNamingTheRecordAndAppendNothing() throws Exception {
        for (Compression c : new Compression[] {Compression.NONE, Compression.LZ4}) {
            PartitionProduceResponse r = produce((short) 9, forged(c));
            assertThat(r.errorCode()).isEqualTo(Errors.INVALID_RECORD.code());
            assertThat(r.recordErrors()).hasSize(1);
            assertThat(r.recordErrors().get(0).batchIndex()).isEqualTo(2);
            assertThat(r.recordErrors().get(0).batchIndexErrorMessage()).contains("record 2: offset delta 3");
            assertThat(r.errorMessage()).contains("offset delta 3");
        }
        // before v8 there is no record_errors: the error code alone
        assertThat(produce((short) 7, forged(Compression.NONE)).errorCode()).isEqualTo(Errors.INVALID_RECORD.code());
        // nothing was appended: the next good batch starts at offset 0
        PartitionProduceResponse ok = produce((short) 9, new RecordBatchBuilder(Compression.NONE)
                .append(1L, null, "x".getBytes(StandardCharsets.UTF_8)).build());
        assertThat(ok.errorCode()).isZero();
        assertThat(ok.baseOffset()).isZero();
    }
}
