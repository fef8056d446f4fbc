package io.brook.storage;

import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(60)
class LogManagerTest {
    @TempDir
    Path tmp;
    final MutableClock clock = new MutableClock(1_700_000_000_000L);

    LogManager open() throws Exception {
        return LogManager.open(new LogManagerOptions(tmp).clock(clock).backgroundThreads(false)
                .defaults(LogConfig.defaults().with(Map.of(LogConfig.FILE_DELETE_DELAY_MS, 0))));
    }

    @Test
    void shouldCreateGetAndDeleteLogsInTopicPartitionDirectories() throws Exception {
        try (LogManager m = open()) {
            Log a = m.getOrCreateLog("orders-eu", 0, LogConfig.defaults());
            Log b = m.getOrCreateLog("orders-eu", 1, LogConfig.defaults());
            assertThat(m.getOrCreateLog("orders-eu", 0, LogConfig.defaults())).isSameAs(a);
            assertThat(tmp.resolve("orders-eu-0")).isDirectory();
            assertThat(tmp.resolve("orders-eu-1")).isDirectory();
            assertThat(m.getLog("orders-eu", 1)).isSameAs(b);
            assertThat(m.getLog("orders-eu", 2)).isNull();
            assertThat(m.allLogs()).hasSize(2);
            assertThat(m.deleteLog("orders-eu", 1)).isTrue();
            assertThat(m.getLog("orders-eu", 1)).isNull();
            assertThat(tmp.resolve("orders-eu-1")).doesNotExist();
            assertThat(b.append(Batches.batch(0, 1, "k"), 0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
            assertThat(m.deleteLog("orders-eu", 1)).isFalse();
            assertThatThrownBy(() -> m.getOrCreateLog("bad/name", 0, LogConfig.defaults()))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void shouldDeleteTopicsWithTheLongestLegalNamesAndStartAgain() throws Exception {
        String longest = "t".repeat(249);
        try (LogManager m = open()) {
            m.getOrCreateLog(longest, 0, LogConfig.defaults()).append(Batches.batch(0, 1, "k"), 0);
            m.getOrCreateLog(longest, 9999, LogConfig.defaults());
            // "<topic>-<partition>.<32 hex digits>-delete" would be 291 bytes: over any file system's limit
            assertThat(m.deleteLog(longest, 0)).isTrue();
            assertThat(m.deleteLog(longest, 9999)).isTrue();
        }
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("ttt"));
        }
        try (LogManager m = open()) {
            assertThat(m.allLogs()).isEmpty();
        }
    }

    @Test
    void shouldKeepDeleteDirectoryNamesWithinAFileNameAndApart() {
        String a = LogManager.deleteDirName("t".repeat(249), 9999);
        assertThat(a.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(255);
        assertThat(a).startsWith("ttt").endsWith("-9999." + a.substring(a.lastIndexOf('.') + 1));
        assertThat(LogManager.deleteDirName("orders", 3)).matches("orders-3\\.[0-9a-f]{32}-delete");
        assertThat(LogManager.deleteDirName("orders", 3)).isNotEqualTo(LogManager.deleteDirName("orders", 3));
    }

    @Test
    void shouldRemoveDirectoriesLeftByAnInterruptedDeletionAtStartUp() throws Exception {
        Path left = Files.createDirectories(tmp.resolve(LogManager.deleteDirName("gone", 0)));
        Files.write(left.resolve("00000000000000000000.log"), new byte[100]);
        try (LogManager m = open()) {
            assertThat(left).doesNotExist();
            assertThat(m.allLogs()).isEmpty();
        }
    }

    @Test
    void shouldPreallocateByDefaultAndNotWhenSwitchedOff() throws Exception {
        for (int bytes : new int[] {-1, 0}) {
            LogManagerOptions options = new LogManagerOptions(tmp.resolve("p" + bytes)).clock(clock)
                    .backgroundThreads(false);
            if (bytes == 0) {
                options.preallocateBytes(0);
            }
            try (LogManager m = LogManager.open(options)) {
                Log log = m.getOrCreateLog("t", 0, LogConfig.defaults());
                log.append(Batches.batch(1000, 2, "k"), 0);
                LogSegment seg = log.active();
                if (bytes == 0) {
                    assertThat(Files.size(seg.logFile())).isEqualTo(seg.size());
                } else {
                    Await.until("zeros ahead of the data", Duration.ofSeconds(20),
                            () -> seg.logFile().toFile().length() >= Preallocator.MIN_BYTES);
                    assertThat(Files.size(seg.logFile())).isGreaterThanOrEqualTo(Preallocator.MIN_BYTES);
                }
            }
        }
    }

    @Test
    void shouldReopenAllLogsAfterCleanShutdownWithMarker() throws Exception {
        try (LogManager m = open()) {
            for (int p = 0; p < 5; p++) {
                Log log = m.getOrCreateLog("t", p, LogConfig.defaults());
                for (int i = 0; i <= p; i++) {
                    log.append(Batches.batch(1000, 2, "k"), 0);
                }
            }
        }
        assertThat(tmp.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).exists();
        assertThat(tmp.resolve(LogManager.RECOVERY_POINT_FILE)).exists();
        try (LogManager m = open()) {
            assertThat(tmp.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).doesNotExist();
            assertThat(m.allLogs()).hasSize(5);
            for (int p = 0; p < 5; p++) {
                Log log = m.getLog("t", p);
                assertThat(log.logEndOffset()).isEqualTo(2L * (p + 1));
                assertThat(log.highWatermark()).isEqualTo(log.logEndOffset());
                assertThat(Batches.readAll(log, 0)).hasSize(2 * (p + 1));
            }
        }
    }

    @Test
    void shouldRecoverAfterCrashAndKeepEverythingMadeDurable() throws Exception {
        LogManager m = open();
        Log log = m.getOrCreateLog("t", 0, LogConfig.defaults());
        for (int i = 0; i < 10; i++) {
            AppendResult r = log.append(Batches.batch(1000, 2, "k"), 0);
            log.whenDurable(r.lastOffset() + 1).get();
        }
        m.checkpointRecoveryPoints();
        long durable = log.durableOffset();
        m.crash();
        // A torn write after the durable data.
        Path seg = tmp.resolve("t-0").resolve("00000000000000000000.log");
        Files.write(seg, new byte[] {0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 99}, java.nio.file.StandardOpenOption.APPEND);
        try (LogManager m2 = open()) {
            Log again = m2.getLog("t", 0);
            assertThat(again.logEndOffset()).isEqualTo(durable);
            assertThat(Batches.readAll(again, 0)).hasSize((int) durable);
            assertThat(again.append(Batches.batch(1000, 1, "k"), 0).baseOffset()).isEqualTo(durable);
        }
    }

    @Test
    void shouldLowerTheRecoveryPointCheckpointWhenALogIsTruncated() throws Exception {
        LogManager m = open();
        Log log = m.getOrCreateLog("t", 0, LogConfig.defaults());
        for (int i = 0; i < 10; i++) {
            AppendResult r = log.append(Batches.batch(1000, 2, "k"), 0);
            log.whenDurable(r.lastOffset() + 1).get(30, TimeUnit.SECONDS);
        }
        m.checkpointRecoveryPoints();
        Path checkpoint = tmp.resolve(LogManager.RECOVERY_POINT_FILE);
        assertThat(Files.readAllLines(checkpoint, StandardCharsets.UTF_8)).contains("t 0 20");

        log.truncateTo(10);
        // before truncateTo returns, not at the next periodic checkpoint
        assertThat(Files.readAllLines(checkpoint, StandardCharsets.UTF_8)).contains("t 0 10").doesNotContain("t 0 20");

        // Appended after the truncation and not forced, then torn by a crash: a stale checkpoint (20)
        // would have called these offsets durable.
        log.append(Batches.batch(1000, 4, "k"), 0);
        m.crash();
        Path seg = tmp.resolve("t-0").resolve("00000000000000000000.log");
        Files.write(seg, new byte[] {0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 99}, java.nio.file.StandardOpenOption.APPEND);
        try (LogManager m2 = open()) {
            Log again = m2.getLog("t", 0);
            assertThat(again.logEndOffset()).isBetween(10L, 14L);
            long end = again.logEndOffset();
            assertThat(again.append(Batches.batch(1000, 1, "k"), 0).baseOffset()).isEqualTo(end);
        }
    }

    @Test
    void shouldForgetADeletedLogInTheRecoveryPointCheckpoint() throws Exception {
        try (LogManager m = open()) {
            Log log = m.getOrCreateLog("t", 0, LogConfig.defaults());
            AppendResult r = log.append(Batches.batch(1000, 5, "k"), 0);
            log.whenDurable(r.lastOffset() + 1).get(30, TimeUnit.SECONDS);
            m.checkpointRecoveryPoints();
            Path checkpoint = tmp.resolve(LogManager.RECOVERY_POINT_FILE);
            assertThat(Files.readAllLines(checkpoint, StandardCharsets.UTF_8)).contains("t 0 5");
            m.deleteLog("t", 0);
            assertThat(Files.readAllLines(checkpoint, StandardCharsets.UTF_8)).noneMatch(l -> l.startsWith("t 0 "));
        }
    }

    @Test
    void shouldCheckpointRecoveryPointsOnceLogsAreOpenedAfterAnUncleanStart() throws Exception {
        LogManager m = open();
        Log log = m.getOrCreateLog("t", 0, LogConfig.defaults());
        AppendResult r = log.append(Batches.batch(1000, 5, "k"), 0);
        log.whenDurable(r.lastOffset() + 1).get(30, TimeUnit.SECONDS);
        m.crash(); // before a checkpoint covered the data
        Path checkpoint = tmp.resolve(LogManager.RECOVERY_POINT_FILE);
        assertThat(Files.exists(checkpoint) ? Files.readAllLines(checkpoint, StandardCharsets.UTF_8) : java.util.List.of())
                .doesNotContain("t 0 5");

        LogManager m2 = open();
        // Written at start-up, so that a second crash does not scan the same data again.
        assertThat(checkpoint).exists();
        assertThat(Files.readAllLines(checkpoint, StandardCharsets.UTF_8)).contains("t 0 5");
        m2.crash();
        try (LogManager m3 = open()) {
            assertThat(Batches.readAll(m3.getLog("t", 0), 0)).hasSize(5);
        }
    }

    @Test
    void shouldKeepTheDirectoryServingWhenDeleteRecordsRacesTheDeletionOfItsTopic() throws Exception {
        LogManager m = open();
        Log a = m.getOrCreateLog("a", 0, LogConfig.defaults());
        Log b = m.getOrCreateLog("b", 0, LogConfig.defaults());
        AppendResult r = a.append(Batches.batch(1000, 5, "k"), 0);
        a.whenDurable(r.lastOffset() + 1).get(30, TimeUnit.SECONDS);
        // DeleteTopics lands while DeleteRecords is about to write the new log start offset.
        a.stateFiles.beforeWrite = f -> {
            a.stateFiles.beforeWrite = null;
            try {
                m.deleteLog("a", 0);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
        a.deleteRecordsBefore(2);
        assertThat(m.getLog("a", 0)).isNull();
        AppendResult rb = b.append(Batches.batch(1000, 1, "k"), 0);
        assertThat(rb.error()).isEqualTo(Errors.NONE);
        b.whenDurable(rb.lastOffset() + 1).get(30, TimeUnit.SECONDS);
        assertThat(m.getOrCreateLog("c", 0, LogConfig.defaults())).isNotNull();
        m.close();
        assertThat(tmp.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).exists();
    }

    @Test
    void shouldDeleteLeftoverDeletedTopicDirectoriesAtStartup() throws Exception {
        Files.createDirectories(tmp.resolve("gone-0.abc-delete"));
        Files.writeString(tmp.resolve("gone-0.abc-delete").resolve("x.log"), "x");
        try (LogManager m = open()) {
            assertThat(tmp.resolve("gone-0.abc-delete")).doesNotExist();
            assertThat(m.allLogs()).isEmpty();
        }
    }

    @Test
    void shouldApplyTopicConfigUpdatesToEveryPartition() throws Exception {
        try (LogManager m = open()) {
            m.getOrCreateLog("t", 0, LogConfig.defaults());
            m.getOrCreateLog("t", 1, LogConfig.defaults());
            m.getOrCreateLog("u", 0, LogConfig.defaults());
            LogConfig compact = LogConfig.defaults().with(Map.of(LogConfig.CLEANUP_POLICY, "compact"));
            m.updateConfig("t", compact);
            assertThat(m.getLog("t", 1).config().compact()).isTrue();
            assertThat(m.getLog("u", 0).config().compact()).isFalse();
        }
    }

    @Test
    void shouldRunRetentionFromTheManager() throws Exception {
        try (LogManager m = open()) {
            LogConfig cfg = LogConfig.defaults().with(Map.of(LogConfig.SEGMENT_BYTES, 300, LogConfig.RETENTION_MS,
                    1000, LogConfig.FILE_DELETE_DELAY_MS, 0));
            Log log = m.getOrCreateLog("t", 0, cfg);
            for (int i = 0; i < 10; i++) {
                AppendResult r = log.append(Batches.batch(clock.millis(), 2, "k"), 0);
                log.whenDurable(r.lastOffset() + 1).get();
            }
            assertThat(m.runRetention()).isZero();
            clock.advance(2000);
            assertThat(m.runRetention()).isGreaterThan(0);
            assertThat(log.logStartOffset()).isEqualTo(20);
            assertThat(log.logEndOffset()).isEqualTo(20);
            assertThat(log.segmentCount()).isEqualTo(1);
            assertThat(log.append(Batches.batch(clock.millis(), 1, "k"), 0).baseOffset()).isEqualTo(20);
        }
    }

    @Test
    void shouldRefuseADataDirectoryAlreadyInUse() throws Exception {
        try (LogManager m = open()) {
            assertThatThrownBy(this::open).isInstanceOf(java.io.IOException.class).hasMessageContaining("in use");
        }
        try (LogManager again = open()) {
            assertThat(again.allLogs()).isEmpty();
        }
    }

    @Test
    void shouldCreateAndCloseAnEmptyLogWithoutWritingAnythingButItsSegmentFile() throws Exception {
        try (LogManager m = open()) {
            m.getOrCreateLog("empty", 0, LogConfig.defaults());
        }
        try (java.util.stream.Stream<Path> files = Files.list(tmp.resolve("empty-0"))) {
            assertThat(files.map(p -> p.getFileName().toString()).toList())
                    .containsExactly(LogSegment.name(0) + LogSegment.LOG_SUFFIX);
        }
        try (LogManager m = open()) {
            Log log = m.getLog("empty", 0);
            assertThat(log.logEndOffset()).isZero();
            assertThat(log.indexRebuilds).isZero();
            AppendResult r = log.append(Batches.batch(1000, 2, "k"), 0);
            log.whenDurable(r.lastOffset() + 1).get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
        try (LogManager m = open()) {
            assertThat(m.getLog("empty", 0).logEndOffset()).isEqualTo(2);
        }
    }

    @Test
    void shouldFsyncTheDataDirectoryForANewLogAtItsFirstFlushRatherThanAtCreation() throws Exception {
        try (LogManager m = open()) {
            Log log = m.getOrCreateLog("fresh", 0, LogConfig.defaults());
            assertThat(log.durability.parentDirectoryDirty).isTrue();
            AppendResult r = log.append(Batches.batch(1000, 2, "k"), 0);
            log.whenDurable(r.lastOffset() + 1).get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(log.durability.parentDirectoryDirty).isFalse();
        }
    }

    /**
     * A directory that does not belong (a creation that failed midway, say) is deleted without
     * being opened: a start that would fail to open it (here every open below it fails, as when
     * no file descriptors are left) still starts, with the logs that belong.
     */
    @Test
    void shouldDeleteDirectoriesThatDoNotBelongWithoutOpeningThem() throws Exception {
        try (LogManager m = open()) {
            m.getOrCreateLog("kept", 0, LogConfig.defaults()).append(Batches.batch(0, 1, "k"), 0);
            m.getOrCreateLog("stray", 0, LogConfig.defaults());
            m.getOrCreateLog("stray", 1, LogConfig.defaults());
        }
        SegmentChannels.intercept(tmp, (file, ch) -> {
            if (file.getParent().getFileName().toString().startsWith("stray-")) {
                ch.close();
                throw new java.io.IOException("Too many open files");
            }
            return ch;
        });
        try (LogManager m = LogManager.open(new LogManagerOptions(tmp).clock(clock).backgroundThreads(false)
                .belongs((topic, partition) -> topic.equals("kept")))) {
            assertThat(m.getLog("kept", 0).logEndOffset()).isEqualTo(1);
            assertThat(m.getLog("stray", 0)).isNull();
            assertThat(m.allLogs()).hasSize(1);
        } finally {
            SegmentChannels.stopIntercepting(tmp);
        }
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("stray"));
        }
    }

    /** A log whose creation fails leaves no directory behind, so nothing of it is found at the next start. */
    @Test
    void shouldRemoveTheDirectoryOfALogWhoseCreationFailed() throws Exception {
        SegmentChannels.intercept(tmp, (file, ch) -> {
            ch.close();
            throw new java.io.IOException("Too many open files");
        });
        try (LogManager m = open()) {
            assertThatThrownBy(() -> m.getOrCreateLog("doomed", 0, LogConfig.defaults()))
                    .hasMessageContaining("Too many open files");
            assertThat(m.getLog("doomed", 0)).isNull();
            assertThat(tmp.resolve("doomed-0")).doesNotExist();
        } finally {
            SegmentChannels.stopIntercepting(tmp);
        }
    }

    /**
     * Idle producers are forgotten every {@code producer.id.expiration.check.interval.ms} (here
     * 10 ms of real time), not with retention (here an hour apart), once their last batch is older
     * than {@code producer.id.expiration.ms} by the manager's clock.
     */
    @Test
    void shouldExpireIdleProducersEveryCheckIntervalApartFromRetention() throws Exception {
        try (LogManager m = LogManager.open(new LogManagerOptions(tmp).clock(clock).retentionCheckIntervalMs(3_600_000L)
                .producerIdExpirationMs(60_000L).producerIdExpirationCheckIntervalMs(10))) {
            Log log = m.getOrCreateLog("idempotent", 0, LogConfig.defaults());
            assertThat(log.append(Batches.idempotent(7L, (short) 0, 0, 2, clock.millis()), 0).error()).isEqualTo(Errors.NONE);
            assertThat(log.producers.size()).isEqualTo(1);
            assertThat(m.runRetention()).isZero();
            assertThat(log.producers.size()).as("retention leaves producers alone").isEqualTo(1);
            clock.advance(60_001);
            Await.until("the idle producer is forgotten", () -> log.producers.size() == 0);
        }
    }
}
