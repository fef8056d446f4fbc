package io.brook.storage;

import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Deleting segments (retention, truncation, compaction, log deletion) while the flusher forces them. */
class FlushRaceTest {
    @TempDir
    Path tmp;
    LogFixture fx;

    @AfterEach
    void tearDown() throws Exception {
        fx.close();
    }

    private static List<String> files(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void shouldSkipSegmentsThatRetentionDeletesWhileTheyAreBeingFlushed() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 300, LogConfig.RETENTION_MS, 0,
                LogConfig.FLUSH_ON_ACK, false));
        Log log = fx.open();
        for (int i = 0; i < 10; i++) {
            log.append(Batches.batch(0, 2, "k"), 0);
        }
        assertThat(log.segmentCount()).isGreaterThan(2);
        int[] deleted = {0};
        log.beforeSegmentFlush = s -> {
            if (deleted[0] == 0) {
                // Retention (file.delete.delay.ms=0: files go at once) after the flusher picked s.
                deleted[0] = log.deleteExpiredSegments(fx.clock.millis());
            }
        };
        log.flush();
        log.beforeSegmentFlush = null;

        assertThat(deleted[0]).isPositive();
        AppendResult r = log.append(Batches.batch(0, 2, "k"), 0);
        assertThat(r.error()).isEqualTo(Errors.NONE);
        log.flush();
        assertThat(log.read(r.baseOffset(), 1 << 20, true).error()).isEqualTo(Errors.NONE);
        // No index file of a deleted segment was written back.
        long active = log.active().baseOffset;
        assertThat(files(fx.dir)).filteredOn(n -> n.endsWith(".index") || n.endsWith(".timeindex"))
                .allMatch(n -> n.startsWith(LogSegment.name(active)));
    }
}
