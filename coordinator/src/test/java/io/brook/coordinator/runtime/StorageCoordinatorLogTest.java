package io.brook.coordinator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.brook.coordinator.runtime.CoordinatorLogException.Reason;
import io.brook.storage.Log;
import io.brook.storage.LogConfig;
import io.brook.storage.LogManager;
import io.brook.storage.LogManagerOptions;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The coordinator log over real partition logs of {@code storage}. */
@Timeout(30)
class StorageCoordinatorLogTest {
    private static final String TOPIC = "__test_state";
    private static final int PARTITIONS = 2;

    @TempDir
    Path dir;

    private LogManager openLogs() throws Exception {
        return LogManager.open(new LogManagerOptions(dir).backgroundThreads(false));
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    private static CoordinatorRecord record(int partition, String key, String value) {
        return new CoordinatorRecord(partition, key.getBytes(), value == null ? null : value.getBytes());
    }

    /** The cause a failed append completes with. */
    private static Throwable failure(CompletableFuture<Long> f) {
        assertThatThrownBy(() -> get(f)).isInstanceOf(ExecutionException.class);
        return f.handle((v, e) -> e).join();
    }

    @Test
    void shouldAppendDurablyAndReplayEveryPartitionInOrderAcrossRestart() throws Exception {
        try (LogManager logs = openLogs()) {
            StorageCoordinatorLog log = StorageLogs.compacted(logs, TOPIC, PARTITIONS, Clock.systemUTC());
            assertThat(get(log.append(0, List.of(record(0, "a", "1"), record(0, "b", "2"))))).isEqualTo(1);
            assertThat(get(log.append(1, List.of(record(1, "c", "3"))))).isZero();
            assertThat(get(log.append(0, List.of(record(0, "a", null))))).isEqualTo(2);
            Log p0 = logs.getLog(TOPIC, 0);
            assertThat(p0.durableOffset()).isEqualTo(p0.logEndOffset()).isEqualTo(3);
            assertThat(p0.config().compact()).isTrue();
        }
        try (LogManager logs = openLogs()) {
            List<String> seen = new ArrayList<>();
            StorageCoordinatorLog log = StorageLogs.compacted(logs, TOPIC, PARTITIONS, Clock.systemUTC());
            for (int p = 0; p < PARTITIONS; p++) {
                // one byte a read: a chunk of one batch each time
                log.replay(p, 1, r -> seen.add(
                        r.partition() + ":" + new String(r.key()) + "=" + (r.isTombstone() ? "null" : new String(r.value()))));
            }
            assertThat(seen).containsExactly("0:a=1", "0:b=2", "0:a=null", "1:c=3");
        }
    }

    @Test
    void shouldTurnStorageFailuresIntoCoordinatorLogExceptions() throws Exception {
        try (LogManager logs = openLogs()) {
            StorageCoordinatorLog log = StorageLogs.compacted(logs, TOPIC, PARTITIONS,
                    LogConfig.defaults().with(Map.of(LogConfig.MAX_MESSAGE_BYTES, "100")), Clock.systemUTC());
            Throwable tooLarge = failure(log.append(0, List.of(record(0, "k", "x".repeat(200)))));
            assertThat(tooLarge).isInstanceOfSatisfying(CoordinatorLogException.class,
                    e -> assertThat(e.reason()).isEqualTo(Reason.RECORDS_TOO_LARGE));

            get(log.append(0, List.of(record(0, "k", "v"))));
            logs.getLog(TOPIC, 0).close();
            Throwable closed = failure(log.append(0, List.of(record(0, "k", "w"))));
            assertThat(closed).isInstanceOfSatisfying(CoordinatorLogException.class,
                    e -> assertThat(e.reason()).isEqualTo(Reason.UNAVAILABLE));
        }
        StorageCoordinatorLog noLogs = new StorageCoordinatorLog(TOPIC, 1, p -> {
            throw new IllegalStateException("no log");
        }, Clock.systemUTC());
        Throwable missing = failure(noLogs.append(0, List.of(record(0, "k", "v"))));
        assertThat(missing).isInstanceOfSatisfying(CoordinatorLogException.class, e -> {
            assertThat(e.reason()).isEqualTo(Reason.UNAVAILABLE);
            assertThat(e).hasCauseInstanceOf(IllegalStateException.class);
        });
        assertThatThrownBy(() -> noLogs.read(0, 0, 1 << 20))
                .isInstanceOfSatisfying(CoordinatorLogException.class, e -> assertThat(e.reason()).isEqualTo(Reason.UNAVAILABLE));
    }

    @Test
    void shouldMapStorageErrorsToReasons() {
        assertThat(StorageCoordinatorLog.reasonFor(Errors.MESSAGE_TOO_LARGE)).isEqualTo(Reason.RECORDS_TOO_LARGE);
        assertThat(StorageCoordinatorLog.reasonFor(Errors.RECORD_LIST_TOO_LARGE)).isEqualTo(Reason.RECORDS_TOO_LARGE);
        assertThat(StorageCoordinatorLog.reasonFor(Errors.INVALID_FETCH_SIZE)).isEqualTo(Reason.RECORDS_TOO_LARGE);
        assertThat(StorageCoordinatorLog.reasonFor(Errors.NOT_LEADER_OR_FOLLOWER)).isEqualTo(Reason.NOT_LEADER);
        assertThat(StorageCoordinatorLog.reasonFor(Errors.KAFKA_STORAGE_ERROR)).isEqualTo(Reason.UNAVAILABLE);
    }
}
