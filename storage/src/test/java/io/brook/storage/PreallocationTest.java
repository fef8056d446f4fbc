package io.brook.storage;

import io.brook.testkit.Await;
import io.brook.wire.protocol.Errors;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Zeros written ahead of the active segment's data: appends land on them, readers never see
 * them, rolls and clean closes cut them off, and a crash that leaves them behind loses nothing
 * and reports no corruption.
 */
@Timeout(60)
class PreallocationTest {
    private static final int AHEAD = Preallocator.MIN_BYTES;

    @TempDir
    Path tmp;
    LogFixture fx;

    @AfterEach
    void tearDown() throws Exception {
        if (fx != null) {
            fx.close();
        }
    }

    private static void await(String what, BooleanSupplier condition) {
        Await.until(what, Duration.ofSeconds(20), condition);
    }

    /** Appends {@code n} batches of 2 records with values of {@code valueSize} bytes. */
    private static void fill(Log log, int from, int n, int valueSize) {
        for (int i = from; i < from + n; i++) {
            AppendResult r = log.append(Batches.batch(Compression.NONE, 1000 + i, 2, "k" + i + "-", valueSize), 0);
            assertThat(r.error()).isEqualTo(Errors.NONE);
        }
    }

    private void awaitZerosAhead(Log log) {
        LogSegment seg = log.active();
        // queued is cleared once the extension (zeros written and forced) is complete
        await("zeros ahead of " + seg, () -> seg.zeroedEnd() > seg.size() + AHEAD / 4 && !seg.tail.queued.get()
                || !fx.preallocator.enabled());
        assertThat(fx.preallocator.enabled()).as("preallocation works on this file system").isTrue();
    }

    /** A log with a preallocator, {@code batches} batches appended, and zeros ahead of them. */
    private Log openWithZerosAhead(Map<String, ?> settings, int batches, int valueSize) throws IOException {
        fx = new LogFixture(tmp, settings).withPreallocation(AHEAD);
        Log log = fx.open();
        fill(log, 0, batches, valueSize);
        awaitZerosAhead(log);
        return log;
    }

    private static boolean allZero(Path file, long from) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate((int) (ch.size() - from));
            while (b.hasRemaining() && ch.read(b, from + b.position()) > 0) {
                // read all
            }
            for (int i = 0; i < b.limit(); i++) {
                if (b.get(i) != 0) {
                    return false;
                }
            }
            return true;
        }
    }

    private static void assertRecords(Log log, int count) throws IOException {
        List<Batches.Rec> recs = Batches.readAll(log, 0);
        assertThat(recs).hasSize(count);
        for (int i = 0; i < count; i++) {
            assertThat(recs.get(i).offset()).isEqualTo(i);
            assertThat(recs.get(i).key()).isEqualTo("k" + (i / 2) + "-" + (i % 2));
        }
    }

    @Test
    void shouldWriteZerosAheadOfTheActiveSegmentThatAppendsThenOverwrite() throws Exception {
        Log log = openWithZerosAhead(Map.of(), 1, 100);
        LogSegment seg = log.active();
        Path file = seg.logFile();
        int dataEnd = seg.size();
        assertThat(Files.size(file)).isEqualTo(seg.zeroedEnd()).isGreaterThan(dataEnd);
        assertThat(allZero(file, dataEnd)).isTrue();
        assertThat(fx.preallocator.bytesWritten()).isGreaterThan(0);

        long fileSize = Files.size(file);
        fill(log, 1, 20, 100);
        log.flush();
        assertThat(seg.size()).isLessThan((int) fileSize);
        assertThat(Files.size(file)).as("the appends landed on the zeros").isGreaterThanOrEqualTo(fileSize);
        assertThat(log.sizeInBytes()).isEqualTo(seg.size());
        assertRecords(log, 42);
    }

    @Test
    void shouldCutTheZerosOffWhenTheSegmentRollsAndAtACleanClose() throws Exception {
        Log log = openWithZerosAhead(Map.of(LogConfig.SEGMENT_BYTES, 200_000), 1, 1000);
        LogSegment first = log.active();
        int i = 1;
        while (log.segmentCount() == 1) {
            fill(log, i++, 1, 1000);
        }
        assertThat(Files.size(first.logFile())).as("rolled: no zeros left").isEqualTo(first.size());
        fill(log, i++, 1, 1000);
        awaitZerosAhead(log);
        Path activeFile = log.active().logFile();
        assertThat(Files.size(activeFile)).isGreaterThan(log.active().size());

        log = fx.reopen();
        assertThat(Files.size(activeFile)).isEqualTo(log.active().size());
        assertThat(log.indexRebuilds).isZero();
        assertThat(log.corruption()).isNull();
        assertRecords(log, 2 * i);
    }

    @Test
    void shouldRecoverEverythingAfterACrashThatLeftTheZerosBehind() throws Exception {
        Log log = openWithZerosAhead(Map.of(), 1, 100);
        fill(log, 1, 9, 100);
        log.flush();
        Path file = log.active().logFile();
        int dataEnd = log.active().size();
        assertThat(Files.size(file)).isGreaterThan(dataEnd);

        log = fx.crashAndReopen(0);
        assertThat(log.corruption()).isNull();
        assertThat(log.logEndOffset()).isEqualTo(20);
        assertThat(Files.size(file)).as("zeros dropped at recovery").isEqualTo(dataEnd);
        assertRecords(log, 20);
        assertThat(log.append(Batches.batch(1, 1, "again"), 0).baseOffset()).isEqualTo(20);
    }

    /** Appends 12 batches over several segments, crashes, puts zeros after the first segment's data, reopens. */
    private Log zeroTailOnFirstSegment(long recoveryPointFraction) throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 300));
        Log log = fx.open();
        fill(log, 0, 12, 10);
        log.flush();
        assertThat(log.segmentCount()).isGreaterThan(2);
        long end = log.logEndOffset();
        Path first = LogSegment.file(fx.dir, 0, LogSegment.LOG_SUFFIX);
        long firstSize = Files.size(first);
        return fx.crashAndReopenAfter(() -> {
            try (FileChannel ch = FileChannel.open(first, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.allocate(8192), firstSize);
            }
        }, end * recoveryPointFraction);
    }

    @Test
    void shouldDropAZeroTailOfAnOlderSegmentAboveTheRecoveryPoint() throws Exception {
        // a crash between a roll and the force of the rolled segment's shorter length: that
        // segment's data is not durable yet, so it is above the recovery point and scanned
        Path first = LogSegment.file(tmp.resolve("topic-0"), 0, LogSegment.LOG_SUFFIX);
        Log log = zeroTailOnFirstSegment(0);
        assertThat(log.corruption()).isNull();
        assertThat(log.logEndOffset()).isEqualTo(24);
        assertThat(Files.size(first)).isEqualTo(log.segments.firstEntry().getValue().size());
        assertRecords(log, 24);
    }

    @Test
    void shouldReportZerosInPlaceOfDurableDataAsCorruption() throws Exception {
        // below the recovery point the data was forced: zeros there mean it was lost
        Log log = zeroTailOnFirstSegment(1);
        assertThat(log.corruption()).contains("bytes of zeros");
        assertThat(log.append(Batches.batch(1, 1, "k"), 0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
    }

    @Test
    void shouldStillTruncateGarbageBeforeZerosAsATornTail() throws Exception {
        fx = new LogFixture(tmp, Map.of());
        Log log = fx.open();
        fill(log, 0, 4, 10);
        log.flush();
        Path file = log.active().logFile();
        long end = Files.size(file);
        log = fx.crashAndReopenAfter(() -> {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.allocate(8192);
                b.put(0, (byte) 7); // half a batch header, then zeros
                ch.write(b, end);
            }
        }, 0);
        assertThat(log.corruption()).isNull();
        assertThat(Files.size(file)).isEqualTo(end);
        assertRecords(log, 8);
    }

    @Test
    void shouldNeverWriteZerosOverDataWhenAppendsOvertakeThePreallocator() throws Exception {
        fx = new LogFixture(tmp, Map.of()).withPreallocation(AHEAD);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        fx.preallocator.beforeExtend = () -> {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        Log log = fx.open();
        fill(log, 0, 1, 100);
        assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
        // the extension was planned from a small segment; the appends now run far past it
        fill(log, 1, 200, 1000);
        int dataEnd = log.active().size();
        fx.preallocator.beforeExtend = null;
        release.countDown();
        awaitZerosAhead(log);
        assertThat(log.active().size()).isEqualTo(dataEnd);
        assertThat(allZero(log.active().logFile(), dataEnd)).isTrue();
        fill(log, 201, 50, 1000);
        log.flush();
        assertRecords(log, 2 * 251);
    }

    @Test
    void shouldKeepEveryBatchIntactWhileAppendsRaceThePreallocator() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 1 << 20)).withPreallocation(AHEAD);
        Log log = fx.open();
        int n = 3000;
        for (int i = 0; i < n; i++) {
            fill(log, i, 1, 200 + (i % 7) * 300);
            if (i % 100 == 0) {
                log.flush();
            }
        }
        log.flush();
        assertThat(log.segmentCount()).isGreaterThan(1);
        assertThat(fx.preallocator.bytesWritten()).isGreaterThan(0);
        for (LogSegment s : log.segments.values()) {
            if (s != log.active()) {
                assertThat(Files.size(s.logFile())).isEqualTo(s.size());
            }
        }
        assertRecords(log, 2 * n);
        log = fx.crashAndReopen(0);
        assertThat(log.corruption()).isNull();
        assertRecords(log, 2 * n);
    }

    @Test
    void shouldCutTheZerosWithATruncation() throws Exception {
        Log log = openWithZerosAhead(Map.of(), 10, 100);
        log.truncateTo(10);
        Path file = log.active().logFile();
        assertThat(Files.size(file)).isEqualTo(log.active().size());
        fill(log, 5, 5, 100);
        log.flush();
        assertRecords(log, 20);
    }

    @Test
    void shouldNotWriteZerosWithoutAPreallocator() throws Exception {
        fx = new LogFixture(tmp, Map.of());
        Log log = fx.open();
        fill(log, 0, 10, 100);
        log.flush();
        assertThat(Files.size(log.active().logFile())).isEqualTo(log.active().size());
    }

    @Test
    void shouldLeaveLogsWithoutFsyncOnAckAlone() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.FLUSH_ON_ACK, false)).withPreallocation(AHEAD);
        Log log = fx.open();
        fill(log, 0, 50, 1000);
        log.flush();
        // a log that does take zeros, appended to after the one above: once its zeros are there,
        // any request the first log made would have been served before
        LogFixture other = new LogFixture(tmp.resolve("other"), Map.of());
        other.preallocator = fx.preallocator;
        Log withZeros = other.open();
        fill(withZeros, 0, 1, 100);
        LogSegment seg = withZeros.active();
        await("zeros ahead of the other log", () -> seg.zeroedEnd() > seg.size());
        other.preallocator = null; // shared with fx, which closes it
        other.close();
        assertThat(Files.size(log.active().logFile())).isEqualTo(log.active().size());
    }

    @Test
    void shouldStopPreallocatingALogWhoseForcesAreLarge() throws Exception {
        fx = new LogFixture(tmp, Map.of()).withPreallocation(AHEAD);
        Log log = fx.open();
        LogConfig cfg = fx.config;
        for (int i = 0; i < 20; i++) {
            fill(log, i, 1, 8 * 1024); // 16 KiB per force
            log.flush();
        }
        assertThat(log.wantsPreallocation(cfg)).isTrue();
        int i = 20;
        while (log.wantsPreallocation(cfg)) {
            assertThat(i).as("forces of 512 KiB switch it off").isLessThan(40);
            fill(log, i++, 1, 256 * 1024);
            log.flush();
        }
        // back to small forces: it comes back
        int more = 0;
        while (!log.wantsPreallocation(cfg)) {
            assertThat(more++).as("forces of 2 KiB switch it back on").isLessThan(60);
            fill(log, i++, 1, 1024);
            log.flush();
        }
        assertRecords(log, 2 * i);
    }

    @Test
    void shouldNotPreallocateWithoutAPreallocatorOrWithoutFsyncOnAck() throws Exception {
        fx = new LogFixture(tmp, Map.of());
        Log log = fx.open();
        assertThat(log.wantsPreallocation(fx.config)).isFalse();
        fx.close();
        fx = new LogFixture(tmp.resolve("b"), Map.of()).withPreallocation(AHEAD);
        log = fx.open();
        assertThat(log.wantsPreallocation(fx.config)).isTrue();
        assertThat(log.wantsPreallocation(fx.config.with(Map.of(LogConfig.FLUSH_ON_ACK, false)))).isFalse();
    }

    @Test
    void shouldRejectAPreallocationSmallerThanItsMinimum() {
        LogManagerOptions options = new LogManagerOptions(tmp);
        assertThatThrownBy(() -> options.preallocateBytes(4096)).isInstanceOf(IllegalArgumentException.class);
        options.preallocateBytes(0);
        options.preallocateBytes(Preallocator.MIN_BYTES);
    }
}
