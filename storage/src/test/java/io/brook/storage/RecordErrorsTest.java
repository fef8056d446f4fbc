package io.brook.storage;

import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which records of a refused batch the log names (Produce's {@code record_errors}, KIP-467): every
 * record at fault, as Kafka does, not just the first, so that a client fails those and may retry
 * the rest; the batch's error and summary message as Kafka's; and the bound on how many are named.
 */
class RecordErrorsTest {
    @TempDir
    Path tmp;
    private LogFixture fx;

    @AfterEach
    void close() throws Exception {
        if (fx != null) {
            fx.close();
        }
    }

    private Log open(Map<String, ?> settings) throws Exception {
        fx = new LogFixture(tmp, settings);
        return fx.open();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code count} records, every tenth without a key (0, 10, 20, ...), as librdkafka's own test sends them. */
    private static ByteBuffer everyTenthKeyless(Compression c, int count, long now) {
        RecordBatchBuilder b = new RecordBatchBuilder(c);
        for (int i = 0; i < count; i++) {
            b.append(now, i % 10 == 0 ? null : bytes("key-" + i), bytes("a value of record " + i));
        }
        return b.build();
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"NONE", "LZ4"})
    void everyKeylessRecordIsNamedAndOnlyTheFirstThreeCarryAMessage(Compression c) throws Exception {
        Log log = open(Map.of(LogConfig.CLEANUP_POLICY, "compact"));
        AppendResult r = log.append(everyTenthKeyless(c, 100, fx.clock.millis()), 0);

        assertThat(r.error()).isEqualTo(Errors.INVALID_RECORD);
        assertThat(r.recordErrors()).extracting(RecordError::batchIndex)
                .containsExactly(0, 10, 20, 30, 40, 50, 60, 70, 80, 90);
        String why = "Compacted topic cannot accept message without key in topic partition topic-0";
        assertThat(r.recordErrors()).extracting(RecordError::message)
                .containsExactly(why, why, why, null, null, null, null, null, null, null);
        assertThat(r.errorMessage()).isEqualTo("One or more records have been rejected due to 10 record errors in"
                + " total, and only showing the first three errors at most: [RecordError(batchIndex=0, message='"
                + why + "'), RecordError(batchIndex=10, message='" + why + "'), RecordError(batchIndex=20, message='"
                + why + "')]");
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void anyTimestampOutOfRangeMakesTheBatchInvalidTimestampAndEveryFaultIsNamed() throws Exception {
        Log log = open(Map.of(LogConfig.CLEANUP_POLICY, "compact", LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS, 1000));
        long now = fx.clock.millis();
        ByteBuffer b = new RecordBatchBuilder(Compression.NONE).baseOffset(40)
                .append(now, null, bytes("no key"))
                .append(now, bytes("k"), bytes("fine"))
                .append(now - 5000, bytes("k"), bytes("too old")).build();
        AppendResult r = log.append(b, 0);

        assertThat(r.error()).isEqualTo(Errors.INVALID_TIMESTAMP);
        assertThat(r.errorMessage()).isEqualTo("One or more records have been rejected due to invalid timestamp");
        assertThat(r.recordErrors()).extracting(RecordError::batchIndex).containsExactly(0, 2);
        assertThat(r.recordErrors().get(1).message()).isEqualTo("Timestamp " + (now - 5000)
                + " of message with offset 42 is out of range. The timestamp should be within [" + (now - 1000)
                + ", " + (now + 3_600_000L) + "]");
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void aBatchOfTinyFaultyRecordsNamesAtMostOnePer64BytesButCountsThemAll() throws Exception {
        Log log = open(Map.of(LogConfig.CLEANUP_POLICY, "compact"));
        RecordBatchBuilder builder = new RecordBatchBuilder(Compression.NONE);
        int count = 5000;
        for (int i = 0; i < count; i++) {
            builder.append(fx.clock.millis(), (byte[]) null, new byte[0]);
        }
        ByteBuffer b = builder.build();
        AppendResult r = log.append(b, 0);

        assertThat(r.error()).isEqualTo(Errors.INVALID_RECORD);
        int named = b.remaining() / RecordChecks.BATCH_BYTES_PER_ERROR;
        assertThat(named).isLessThan(count);
        assertThat(r.recordErrors()).hasSize(named);
        assertThat(r.recordErrors().get(named - 1).batchIndex()).isEqualTo(named - 1);
        assertThat(r.errorMessage()).startsWith("One or more records have been rejected due to " + count
                + " record errors in total");
    }

    @Test
    void aBatchWhoseRecordsAllPassNamesNone() throws Exception {
        Log log = open(Map.of(LogConfig.CLEANUP_POLICY, "compact"));
        AppendResult r = log.append(new RecordBatchBuilder(Compression.NONE)
                .append(fx.clock.millis(), bytes("k"), bytes("v")).build(), 0);
        assertThat(r.error()).isEqualTo(Errors.NONE);
        assertThat(r.recordErrors()).isEmpty();
    }
}
