package io.brook.storage;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class RetentionTest {
    @TempDir
    Path tmp;
    LogFixture fx;

    @AfterEach
    void tearDown() throws Exception {
        fx.close();
    }

    @Test
    void shouldDeleteSegmentsOlderThanRetentionMsByTheirNewestTimestamp() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 300, LogConfig.RETENTION_MS, 10_000));
        Log log = fx.open();
        long t0 = fx.clock.millis();
        for (int i = 0; i < 12; i++) {
            log.append(Batches.batch(t0 + i * 1000L, 2, "k"), 0);
        }
        log.flush();
        int before = log.segmentCount();
        assertThat(log.deleteExpiredSegments(t0 + 10_000)).isZero();
        int deleted = log.deleteExpiredSegments(t0 + 15_500);
        assertThat(deleted).isPositive().isLessThan(before);
        long start = log.logStartOffset();
        assertThat(start).isEqualTo(log.segments.firstKey());
        // Everything still present is either newer than the cut or shares a segment with newer data.
        for (LogSegment s : log.segments.values()) {
            assertThat(s.maxTimestamp()).isGreaterThan(t0 + 15_500 - 10_000 - 1);
        }
        assertThat(Batches.readAll(log, start)).hasSize((int) (24 - start));
    }

    @Test
    void shouldDeleteOldestSegmentsBeyondRetentionBytes() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 300, LogConfig.RETENTION_BYTES, 700));
        Log log = fx.open();
        for (int i = 0; i < 20; i++) {
            log.append(Batches.batch(fx.clock.millis(), 2, "k"), 0);
        }
        log.flush();
        log.deleteExpiredSegments(fx.clock.millis());
        assertThat(log.sizeInBytes()).isLessThanOrEqualTo(700 + 300);
        assertThat(log.sizeInBytes()).isGreaterThan(700 - 300);
        assertThat(log.logStartOffset()).isEqualTo(log.segments.firstKey()).isPositive();
        assertThat(log.logEndOffset()).isEqualTo(40);
    }

    @Test
    void shouldNotDeleteDataAboveTheHighWatermark() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 300, LogConfig.RETENTION_MS, 0));
        Log log = fx.open();
        for (int i = 0; i < 10; i++) {
            log.append(Batches.batch(0, 2, "k"), 0);
        }
        assertThat(log.highWatermark()).isZero();
        assertThat(log.deleteExpiredSegments(fx.clock.millis())).isZero();
        log.flush();
        assertThat(log.deleteExpiredSegments(fx.clock.millis())).isPositive();
        assertThat(log.logStartOffset()).isEqualTo(20);
        assertThat(log.segmentCount()).isEqualTo(1);
    }

    @Test
    void shouldKeepEverythingWithCompactOnlyPolicy() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 300, LogConfig.RETENTION_MS, 0,
                LogConfig.CLEANUP_POLICY, "compact"));
        Log log = fx.open();
        for (int i = 0; i < 10; i++) {
            log.append(Batches.batch(0, 2, "k"), 0);
        }
        log.flush();
        assertThat(log.deleteExpiredSegments(fx.clock.millis())).isZero();
    }

    @Test
    void shouldKeepRetentionResultAcrossRestart() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 300, LogConfig.RETENTION_BYTES, 400));
        Log log = fx.open();
        for (int i = 0; i < 20; i++) {
            log.append(Batches.batch(fx.clock.millis(), 2, "k"), 0);
        }
        log.flush();
        log.deleteExpiredSegments(fx.clock.millis());
        long start = log.logStartOffset();
        log = fx.reopen();
        assertThat(log.logStartOffset()).isEqualTo(start);
        assertThat(Batches.readAll(log, start)).hasSize((int) (40 - start));
    }
}
