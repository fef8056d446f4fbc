package io.brook.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.brook.coordinator.group.CoordinatorRecord;
import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.GroupCoordinatorConfig;
import io.brook.coordinator.group.StorageCoordinatorLog;
import io.brook.wire.message.JoinGroupRequest;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.message.OffsetCommitRequest;
import io.brook.wire.message.OffsetCommitResponse;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.message.SyncGroupRequest;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator over real partition logs of {@code storage}, restarted over the same files.
 * Lives in storage's package (test scope only) because logs are opened with package-private
 * factories until storage has a public log manager.
 */
@Timeout(30)
class StorageCoordinatorLogTest {
    private static final int PARTITIONS = 3;

    @TempDir
    Path dir;

    /** Opens the {@code __consumer_offsets} logs on demand, like the broker's log manager will. */
    private final class Logs implements AutoCloseable {
        final Scheduler scheduler = new Scheduler("test-scheduler");
        final Flusher flusher = new Flusher("test-flusher");
        final Map<Integer, Log> open = new HashMap<>();

        synchronized Log log(int partition) {
            return open.computeIfAbsent(partition, p -> {
                try {
                    LogConfig config = LogConfig.defaults().with(Map.of(LogConfig.CLEANUP_POLICY, "compact"));
                    return Log.open(dir.resolve(GroupCoordinatorConfig.OFFSETS_TOPIC + "-" + p),
                            GroupCoordinatorConfig.OFFSETS_TOPIC, p, config, 0L, true, Clock.systemUTC(), scheduler, flusher);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        }

        @Override
        public void close() throws java.io.IOException {
            try {
                flusher.close();
                for (Log l : open.values()) l.close();
                scheduler.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while closing logs");
            }
        }
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    private static GroupCoordinatorConfig config() {
        return GroupCoordinatorConfig.defaults().withInitialRebalanceDelayMs(0).withOffsetsTopicPartitions(PARTITIONS);
    }

    private static JoinGroupRequest join(String group, String memberId) {
        return new JoinGroupRequest().groupId(group).memberId(memberId).sessionTimeoutMs(30_000).rebalanceTimeoutMs(30_000)
                .protocolType("consumer").protocols(new ArrayList<>(List.of(
                        new JoinGroupRequest.JoinGroupRequestProtocol().name("range").metadata(new byte[]{1}))));
    }

    private static OffsetCommitRequest commit(String group, int generation, String member, long offset) {
        return new OffsetCommitRequest().groupId(group).generationIdOrMemberEpoch(generation).memberId(member)
                .topics(new ArrayList<>(List.of(new OffsetCommitRequest.OffsetCommitRequestTopic().name("orders")
                        .partitions(new ArrayList<>(List.of(new OffsetCommitRequest.OffsetCommitRequestPartition()
                                .partitionIndex(2).committedOffset(offset).committedMetadata("md")))))));
    }

    @Test
    void shouldKeepOffsetsAndGroupsInStoragePartitionsAcrossRestart() throws Exception {
        String member;
        try (Logs logs = new Logs();
             GroupCoordinator c = new GroupCoordinator(config(), new StorageCoordinatorLog(PARTITIONS, logs::log, Clock.systemUTC()),
                     Clock.systemUTC())) {
            c.start();
            JoinGroupResponse first = get(c.joinGroup(join("g", ""), (short) 9, "cli", "h"));
            JoinGroupResponse joined = get(c.joinGroup(join("g", first.memberId()), (short) 9, "cli", "h"));
            member = joined.memberId();
            get(c.syncGroup(new SyncGroupRequest().groupId("g").generationId(1).memberId(member).assignments(new ArrayList<>(List.of(
                    new SyncGroupRequest.SyncGroupRequestAssignment().memberId(member).assignment(new byte[]{7})))), (short) 5));
            for (long o = 1; o <= 5; o++) {
                OffsetCommitResponse r = get(c.commitOffsets(commit("g", 1, member, o * 10), (short) 8));
                assertThat(r.topics().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.NONE.code());
            }
            get(c.commitOffsets(commit("standalone", -1, "", 77), (short) 8));
            // Everything went to the partition of each group, and is durable.
            Log gLog = logs.log(c.partitionFor("g"));
            assertThat(gLog.durableOffset()).isEqualTo(gLog.logEndOffset()).isGreaterThanOrEqualTo(6);
        }
        try (Logs logs = new Logs()) {
            StorageCoordinatorLog storageLog = new StorageCoordinatorLog(PARTITIONS, logs::log, Clock.systemUTC());
            List<CoordinatorRecord> all = new ArrayList<>();
            storageLog.replay(all::add);
            assertThat(all).isNotEmpty().allMatch(r -> r.partition() < PARTITIONS);
            try (GroupCoordinator c = new GroupCoordinator(config(), storageLog, Clock.systemUTC())) {
                c.start();
                OffsetFetchResponse f = get(c.fetchOffsets(new OffsetFetchRequest().groupId("g").topics(null), (short) 7));
                assertThat(f.topics().get(0).partitions().get(0).committedOffset()).isEqualTo(50);
                assertThat(f.topics().get(0).partitions().get(0).metadata()).isEqualTo("md");
                OffsetFetchResponse s = get(c.fetchOffsets(new OffsetFetchRequest().groupId("standalone").topics(null), (short) 7));
                assertThat(s.topics().get(0).partitions().get(0).committedOffset()).isEqualTo(77);
                // The member of generation 1 is back and may keep committing.
                OffsetCommitResponse again = get(c.commitOffsets(commit("g", 1, member, 60), (short) 8));
                assertThat(again.topics().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.NONE.code());
            }
        }
    }
}
