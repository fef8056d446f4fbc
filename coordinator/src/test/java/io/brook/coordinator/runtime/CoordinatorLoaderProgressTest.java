package io.brook.coordinator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A long coordinator load writes progress lines (partitions done of all, records, rate) at most
 * once per interval, measured with the time source given: here one that moves four seconds on at
 * every look, so that a line is due every third chunk.
 */
@Timeout(30)
class CoordinatorLoaderProgressTest {

    @Test
    void shouldReportPartitionsAndRecordsWhileLoading() {
        InMemoryCoordinatorLog log = new InMemoryCoordinatorLog();
        for (int p = 0; p < 3; p++) {
            List<CoordinatorRecord> batch = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                batch.add(new CoordinatorRecord(p, new byte[] {(byte) i}, new byte[] {1}));
            }
            log.append(p, batch).join();
        }
        EventLoop loop = new EventLoop(Clock.systemUTC(), e -> { throw new AssertionError(e); });
        List<Integer> loaded = new ArrayList<>();
        CoordinatorLoader.Target target = new CoordinatorLoader.Target() {
            @Override
            public void replay(CoordinatorRecord record) { }

            @Override
            public void loaded(int partition) {
                loaded.add(partition);
            }

            @Override
            public void failed(int partition, Throwable cause) {
                throw new AssertionError(cause);
            }

            @Override
            public void unloaded(int partition) {
                throw new AssertionError("unloaded " + partition);
            }
        };
        // chunks of 5 records (the in-memory log counts a record for a byte): two per partition
        CoordinatorLoader loader = new CoordinatorLoader("__consumer_offsets", 3, log, loop, target, 5, Runnable::run,
                "loader");
        AtomicLong nanos = new AtomicLong();
        List<String> lines = new ArrayList<>();
        loader.progress(() -> nanos.getAndAdd(TimeUnit.SECONDS.toNanos(4)), lines::add);
        loader.start();
        while (loop.runPending() > 0) {
            // runs the reads and the replays on this thread
        }
        assertThat(loader.loaded()).isDone();
        assertThat(loaded).containsExactly(0, 1, 2);
        assertThat(lines).isNotEmpty().allMatch(l -> l.startsWith("Loading __consumer_offsets: ")
                && l.contains("/3 partitions, ") && l.contains(" records ("));
        assertThat(lines.get(lines.size() - 1)).contains(" records/s), ");
        // chunk i (from 1) is seen at 4·i s; lines are due from 10 s on, then 10 s apart: chunks 3 and 6
        assertThat(lines).containsExactly(
                "Loading __consumer_offsets: 1/3 partitions, 15 records (1 records/s), 12 s",
                "Loading __consumer_offsets: 3/3 partitions, 30 records (1 records/s), 24 s");
    }
}
