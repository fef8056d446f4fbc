package io.brook.storage;

import io.brook.testkit.Await;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each I/O fault of a segment file (see {@code docs/storage-faults.md}) and what the log does
 * about it, through {@link DiskFaults}: a full disk refuses writes and nothing else, and writes
 * resume by themselves; an EIO on write or any failed fsync takes the log offline for good; a
 * read error fails that read; a torn tail is cut off at recovery.
 */
@Timeout(60)
class IoFaultTest {
    @TempDir
    Path tmp;
    DiskFaults faults;
    LogFixture fx;

    @BeforeEach
    void setUp() {
        faults = DiskFaults.install(tmp);
    }

    @AfterEach
    void tearDown() throws IOException {
        faults.healthy();
        faults.unlimitedSpace();
        if (fx != null) {
            fx.close();
        }
        faults.close();
    }

    private Log open(Map<String, ?> settings) throws IOException {
        fx = new LogFixture(tmp, settings);
        return fx.open();
    }

    private static void append(Log log, int i) {
        assertThat(log.append(Batches.batch(1000 + i, 2, "k" + i + "-"), 0).error()).isEqualTo(Errors.NONE);
    }

    /** With the fault gone, the next append rolls (to {@code segments + 1}) and the log holds both appends. */
    private void assertRollsAgainOnceHealthy(Log log, int segments) throws IOException {
        faults.healthy();
        append(log, 1);
        assertThat(log.segmentCount()).isEqualTo(segments + 1);
        log.flush();
        assertThat(Batches.readAll(log, 0)).hasSize(4);
    }

    private static long fileLength(Log log) throws IOException {
        return Files.size(log.active().logFile());
    }

    @Test
    void shouldRefuseOnlyTheAppendThatFindsNoSpaceAndResumeOnceSpaceIsFree() throws Exception {
        Log log = open(Map.of());
        append(log, 0);
        append(log, 1);
        log.flush();
        long end = log.logEndOffset();
        int size = log.active().size();

        faults.freeSpace(20); // the next batch is written short, then the disk is full
        AppendResult refused = log.append(Batches.batch(2000, 2, "x-"), 0);
        assertThat(refused.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(refused.errorMessage()).contains(DiskFaults.ENOSPC);
        assertThat(log.append(Batches.batch(2001, 2, "y-"), 0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        // Nothing of the refused batches is in the log or the file; reads go on.
        assertThat(log.logEndOffset()).isEqualTo(end);
        assertThat(log.active().size()).isEqualTo(size);
        assertThat(fileLength(log)).isEqualTo(size);
        assertThat(log.read(0, 1 << 20, true).error()).isEqualTo(Errors.NONE);
        assertThat(Batches.readAll(log, 0)).hasSize(4);
        assertThat(log.durability.failure()).isNull();

        faults.unlimitedSpace();
        AppendResult resumed = log.append(Batches.batch(3000, 2, "z-"), 0);
        assertThat(resumed.error()).isEqualTo(Errors.NONE);
        assertThat(resumed.baseOffset()).isEqualTo(end);
        log.flush();
        assertThat(Batches.readAll(log, 0)).extracting(Batches.Rec::key)
                .containsExactly("k0-0", "k0-1", "k1-0", "k1-1", "z-0", "z-1");
        // The file holds nothing but whole batches: a restart finds no torn tail.
        Log reopened = fx.crashAndReopen(0L);
        assertThat(reopened.corruption()).isNull();
        assertThat(Batches.readAll(reopened, 0)).hasSize(6);
    }

    @Test
    void shouldRefuseAnAppendWhoseRollFindsNoSpaceInsteadOfOverfillingTheSegment() throws Exception {
        Log log = open(Map.of(LogConfig.SEGMENT_BYTES, 200));
        append(log, 0);
        int segments = log.segmentCount();
        long end = log.logEndOffset();

        faults.onOpen = DiskFaults.noSpace(); // the roll cannot create its file
        assertThat(log.append(Batches.batch(2000, 2, "x-"), 0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(log.append(Batches.batch(2001, 2, "x-"), 0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(log.segmentCount()).isEqualTo(segments);
        assertThat(log.logEndOffset()).isEqualTo(end);
        assertThat(log.active().size()).isLessThanOrEqualTo(200);

        assertRollsAgainOnceHealthy(log, segments);
    }

    @Test
    void shouldKeepTheLogOnlineWhenARolledSegmentsIndexesFindNoSpace() throws Exception {
        Log log = open(Map.of(LogConfig.SEGMENT_BYTES, 200));
        append(log, 0);
        log.flush();
        ByteBuffer next = Batches.batch(1001, 2, "k1-");
        faults.freeSpace(next.remaining()); // room for the batch, none for the old segment's time index
        assertThat(log.append(next, 0).error()).isEqualTo(Errors.NONE);
        assertThat(log.segmentCount()).isEqualTo(2);
        log.flush();
        assertThat(log.durability.failure()).isNull();
        assertThat(log.highWatermark()).isEqualTo(log.logEndOffset());

        faults.unlimitedSpace();
        append(log, 2);
        log.flush();
        assertThat(Batches.readAll(log, 0)).hasSize(6);
        Log reopened = fx.reopen(); // the clean close writes the index files that waited
        assertThat(reopened.indexRebuilds).isZero();
        assertThat(Batches.readAll(reopened, 0)).hasSize(6);
    }

    /** EMFILE (and ENFILE) in a roll: the append is refused, the log stays online, the next roll tries again. */
    @Test
    void shouldKeepTheLogOnlineWhenARollFindsNoFileDescriptor() throws Exception {
        Log log = open(Map.of(LogConfig.SEGMENT_BYTES, 200));
        append(log, 0);
        int segments = log.segmentCount();
        long end = log.logEndOffset();
        for (String message : new String[] {"Too many open files", "Too many open files in system"}) {
            faults.onOpen = new IOException(message);
            AppendResult refused = log.append(Batches.batch(2000, 2, "x-"), 0);
            assertThat(refused.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
            assertThat(refused.errorMessage()).contains(message);
        }
        assertThat(log.segmentCount()).isEqualTo(segments);
        assertThat(log.logEndOffset()).isEqualTo(end);
        assertThat(log.durability.failure()).isNull();
        assertThat(log.read(0, 1 << 20, true).error()).isEqualTo(Errors.NONE);

        assertRollsAgainOnceHealthy(log, segments);
    }

    @Test
    void shouldTakeTheLogOfflineOnAnIoErrorInARoll() throws Exception {
        Log log = open(Map.of(LogConfig.SEGMENT_BYTES, 200));
        append(log, 0);
        faults.onOpen = DiskFaults.eio();
        assertThat(log.append(Batches.batch(2000, 2, "x-"), 0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        faults.healthy();
        assertThat(log.append(Batches.batch(2001, 2, "x-"), 0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(log.durability.failure()).isNotNull();
    }

    @Test
    void shouldTakeTheLogOfflineOnAnIoErrorInAWrite() throws Exception {
        Log log = open(Map.of());
        append(log, 0);
        log.flush();
        faults.onWrite = DiskFaults.eio();
        assertThat(log.append(Batches.batch(2000, 2, "x-"), 0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        faults.healthy();
        assertThat(log.append(Batches.batch(2001, 2, "x-"), 0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(log.read(0, 1 << 20, true).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
    }

    @Test
    void shouldTakeTheLogOfflineOnAFailedFsyncAndNeverRetryIt() throws Exception {
        for (IOException error : new IOException[] {DiskFaults.eio(), DiskFaults.noSpace()}) {
            Path root = tmp.resolve(error.getMessage().replace(' ', '_'));
            fx = new LogFixture(root, Map.of());
            Log log = fx.open();
            append(log, 0);
            log.flush();
            long hw = log.highWatermark();
            append(log, 1);
            CompletableFuture<Void> durable = log.whenDurable(log.logEndOffset());

            faults.onForce = error;
            log.flush();
            assertThat(durable).isCompletedExceptionally();
            faults.healthy();
            log.flush(); // no second fsync may turn the lost pages into an acknowledgement
            assertThat(log.whenDurable(log.logEndOffset())).isCompletedExceptionally();
            assertThat(log.highWatermark()).isEqualTo(hw);
            assertThat(log.append(Batches.batch(2000, 2, "x-"), 0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
            fx.close();
        }
    }

    @Test
    void shouldFailOnlyTheReadThatMeetsAReadError() throws Exception {
        Log log = open(Map.of());
        append(log, 0);
        append(log, 1);
        log.flush();
        faults.onRead = DiskFaults.eio();
        // offset 2 is found through a read of the file, not served from memory alone
        assertThat(log.read(2, 1 << 20, true).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        append(log, 2);
        faults.healthy();
        log.flush();
        assertThat(Batches.readAll(log, 0)).hasSize(6);
        assertThat(log.durability.failure()).isNull();
    }

    @Test
    void shouldCutATornTailAtRecoveryAndAppendAfterTheLastWholeBatch() throws Exception {
        Log log = open(Map.of());
        append(log, 0);
        append(log, 1);
        log.flush();
        long end = log.logEndOffset();
        Path file = log.active().logFile();
        ByteBuffer partial = Batches.batch(3000, 2, "torn-");
        partial.limit(partial.limit() / 2);
        Log reopened = fx.crashAndReopenAfter(() -> {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                ch.write(partial);
            }
        }, 0L);
        assertThat(reopened.corruption()).isNull();
        assertThat(reopened.logEndOffset()).isEqualTo(end);
        AppendResult r = reopened.append(Batches.batch(4000, 2, "after-"), 0);
        assertThat(r.baseOffset()).isEqualTo(end);
        reopened.flush();
        assertThat(Batches.readAll(reopened, 0)).hasSize(6);
    }

    @Test
    void shouldPausePreallocationOnAFullDiskGiveTheZerosBackAndResume() throws Exception {
        fx = new LogFixture(tmp, Map.of()).withPreallocation(Preallocator.MIN_BYTES);
        Log log = fx.open();
        faults.freeSpace(16 * 1024); // less than one extension of zeros
        append(log, 0);
        Await.until("preallocation paused", () -> !fx.preallocator.enabled() && !log.active().tail.queued.get());
        Await.until("zeros given back", () -> {
            try {
                return fileLength(log) == log.active().size();
            } catch (IOException e) {
                return false;
            }
        });
        append(log, 1); // appends go on meanwhile, in the space the zeros gave back

        faults.unlimitedSpace();
        fx.clock.advance(Preallocator.PAUSE_AFTER_FAILURE_MS);
        append(log, 2);
        Await.until("preallocation resumed", () -> fx.preallocator.enabled() && log.active().zeroedEnd() > log.active().size());
        log.flush();
        assertThat(Batches.readAll(log, 0)).hasSize(6);
    }
}
