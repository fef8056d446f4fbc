package io.brook.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.protocol.Errors;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The headroom of file descriptors the logs keep free: what a creation may take, when the process
 * counts as short of them (a reading reused for a second), and that a log short of them rolls
 * only when its active segment cannot take the next batch at all.
 */
@Timeout(60)
class FileDescriptorsTest {
    @TempDir
    Path tmp;

    private final AtomicLong open = new AtomicLong();
    private final AtomicLong max = new AtomicLong(10_000);
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong nanos = new AtomicLong();

    private FileDescriptors files() {
        return new FileDescriptors(() -> {
            reads.incrementAndGet();
            return open.get();
        }, max::get, nanos::get);
    }

    @Test
    void shouldKeepATenthOfTheLimitFreeAndAtLeastTheMinimum() {
        assertThat(FileDescriptors.headroom(10_000)).isEqualTo(1_000);
        assertThat(FileDescriptors.headroom(1_048_576)).isEqualTo(104_857);
        assertThat(FileDescriptors.headroom(600)).isEqualTo(FileDescriptors.MIN_HEADROOM);
        FileDescriptors f = files();
        open.set(8_000);
        assertThat(f.budget().take(1_000)).isNull();
        assertThat(f.budget().take(1_001)).contains("8000 open files of the 10000").contains("keeps 1000 free")
                .contains("1001 more").contains("ulimit -n");
        FileDescriptors.Budget one = f.budget();
        assertThat(one.take(600)).as("the first of a request's topics").isNull();
        assertThat(one.take(401)).as("the second counts the first").contains("8600 open files");
        assertThat(one.take(400)).isNull();
        assertThat(FileDescriptors.UNBOUNDED.budget().take(Long.MAX_VALUE)).isNull();
        assertThat(FileDescriptors.UNBOUNDED.scarce()).isFalse();
    }

    @Test
    void shouldCountAProcessThatCannotCountForWantOfADescriptorAsAtItsLimit() {
        // what the JVM's count throws at the limit: it opens /proc/self/fd to list it
        assertThat(FileDescriptors.countOrLimit(() -> {
            throw new InternalError("errno: 24 error: Unable to open directory /proc/self/fd");
        }, () -> 700)).isEqualTo(700);
        assertThat(FileDescriptors.countOrLimit(() -> 72, () -> 700)).isEqualTo(72);
        FileDescriptors atTheLimit = new FileDescriptors(() -> FileDescriptors.countOrLimit(() -> {
            throw new InternalError("errno: 24");
        }, () -> 700), () -> 700, nanos::get);
        assertThat(atTheLimit.scarce()).isTrue();
        assertThat(atTheLimit.budget().take(1)).contains("700 open files of the 700");
    }

    @Test
    void shouldReuseAReadingOfScarcityForASecond() {
        FileDescriptors f = files();
        open.set(9_000);
        assertThat(f.scarce()).isFalse();
        open.set(9_001);
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(999));
        long before = reads.get();
        assertThat(f.scarce()).isFalse();
        assertThat(reads.get()).isEqualTo(before);
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
        assertThat(f.scarce()).isTrue();
        open.set(100);
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
        assertThat(f.scarce()).isFalse();
    }

    /** Files the logs open between two readings count at once: a burst of rolls cannot pass the headroom unseen. */
    @Test
    void shouldCountTheFilesOpenedSinceTheLastReading() {
        FileDescriptors f = files();
        open.set(8_999);
        assertThat(f.scarce()).isFalse();
        f.opening();
        assertThat(f.scarce()).isFalse();
        f.opening();
        assertThat(f.scarce()).isTrue();
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
        assertThat(f.scarce()).as("a new reading replaces the count").isFalse();
    }

    /**
     * Short of descriptors, a log with tiny segments set to roll every millisecond keeps appending
     * to its active segment (past its size and age) instead of making a file per batch; once
     * descriptors are free again it rolls as before.
     */
    @Test
    void shouldPutOffRollsWhileTheProcessIsShortOfDescriptors() throws Exception {
        try (LogFixture fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 200, LogConfig.SEGMENT_MS, 1))) {
            Log log = fx.open();
            log.files = files();
            open.set(9_500);
            for (int i = 0; i < 20; i++) {
                fx.clock.advance(5);
                assertThat(log.append(Batches.batch(1000 + i, 2, "k" + i + "-"), 0).error()).isEqualTo(Errors.NONE);
            }
            assertThat(log.segmentCount()).isEqualTo(1);
            assertThat(log.active().size()).isGreaterThan(200);

            open.set(100);
            nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
            fx.clock.advance(5);
            assertThat(log.append(Batches.batch(2000, 2, "x-"), 0).error()).isEqualTo(Errors.NONE);
            assertThat(log.segmentCount()).isEqualTo(2);
            log.flush();
            assertThat(Batches.readAll(log, 0)).hasSize(42);
        }
    }
}
