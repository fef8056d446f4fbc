package io.brook.storage;

import io.brook.testkit.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Opens logs in a temporary directory with a test clock; background work runs inline. */
final class LogFixture implements AutoCloseable {
    final Path dir;
    final MutableClock clock = new MutableClock(1_700_000_000_000L);
    final Scheduler scheduler = new Scheduler("test-scheduler");
    LogConfig config;
    Log log;
    /** Writes zeros ahead of the active segment when set (see {@link #withPreallocation}). */
    Preallocator preallocator;

    LogFixture(Path root, Map<String, ?> settings) {
        this.dir = root.resolve("topic-0");
        this.config = LogConfig.defaults().with(Map.of(LogConfig.FILE_DELETE_DELAY_MS, 0)).with(settings);
    }

    /** Opens logs with a preallocator writing at most {@code maxBytes} ahead. */
    LogFixture withPreallocation(int maxBytes) {
        preallocator = new Preallocator("test-preallocator", maxBytes, clock);
        return this;
    }

    Log open() throws IOException {
        return open(0L, true);
    }

    Log open(long recoveryPoint, boolean clean) throws IOException {
        log = Log.open(dir, "topic", 0, config, recoveryPoint, clean, clock, scheduler, null, preallocator);
        return log;
    }

    /** Clean close and open again. */
    Log reopen() throws IOException {
        log.close();
        return open(0L, true);
    }

    /** Simulated crash: nothing flushed at close, recovery from {@code recoveryPoint}. */
    Log crashAndReopen(long recoveryPoint) throws IOException {
        log.closeAbruptly();
        return open(recoveryPoint, false);
    }

    /** Damage applied between a crash and the restart. */
    interface Damage {
        void apply() throws IOException;
    }

    Log crashAndReopenAfter(Damage damage, long recoveryPoint) throws IOException {
        log.closeAbruptly();
        damage.apply();
        return open(recoveryPoint, false);
    }

    /** Damage: every producer snapshot deleted, so a start rebuilds the producers from the log. */
    void deleteProducerSnapshots() throws IOException {
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                if (p.toString().endsWith(ProducerStateManager.SNAPSHOT_SUFFIX)) {
                    Files.delete(p);
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        if (log != null && !log.isClosed()) {
            log.close();
        }
        scheduler.close();
        if (preallocator != null) {
            preallocator.close();
        }
    }
}
