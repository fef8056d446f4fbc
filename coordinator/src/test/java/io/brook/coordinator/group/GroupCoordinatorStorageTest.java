package io.brook.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.StorageCoordinatorLog;
import io.brook.coordinator.runtime.StorageLogs;
import io.brook.storage.Log;
import io.brook.storage.LogManager;
import io.brook.storage.LogManagerOptions;
import io.brook.wire.message.JoinGroupRequest;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.message.OffsetCommitRequest;
import io.brook.wire.message.OffsetCommitResponse;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.message.SyncGroupRequest;
import io.brook.wire.message.TxnOffsetCommitRequest;
import io.brook.wire.message.TxnOffsetCommitResponse;
import io.brook.wire.protocol.Errors;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The coordinator over real partition logs of {@code storage}, restarted over the same files. */
@Timeout(30)
class GroupCoordinatorStorageTest {
    private static final int PARTITIONS = 3;

    @TempDir
    Path dir;

    private LogManager openLogs() throws Exception {
        return LogManager.open(new LogManagerOptions(dir).backgroundThreads(false));
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
        try (LogManager logs = openLogs();
             GroupCoordinator c = new GroupCoordinator(config(),
                     StorageLogs.compacted(logs, GroupCoordinatorConfig.OFFSETS_TOPIC, PARTITIONS, Clock.systemUTC()), Clock.systemUTC())) {
            c.start();
            get(c.loaded());
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
            // Each group's records are in its own partition, durable before the answer.
            Log gLog = logs.getLog(GroupCoordinatorConfig.OFFSETS_TOPIC, c.partitionFor("g"));
            assertThat(gLog.durableOffset()).isEqualTo(gLog.logEndOffset()).isGreaterThanOrEqualTo(6);
            assertThat(gLog.config().compact()).isTrue();
        }
        try (LogManager logs = openLogs()) {
            StorageCoordinatorLog storageLog = StorageLogs.compacted(logs, GroupCoordinatorConfig.OFFSETS_TOPIC, PARTITIONS, Clock.systemUTC());
            List<CoordinatorRecord> all = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) storageLog.replay(p, 1 << 20, all::add);
            assertThat(all).isNotEmpty().allMatch(r -> r.partition() < PARTITIONS);
            try (GroupCoordinator c = new GroupCoordinator(config(), storageLog, Clock.systemUTC())) {
                c.start();
                get(c.loaded());
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

    @Test
    void shouldFailCommitWithStorageErrorWhenTheLogIsClosed() throws Exception {
        try (LogManager logs = openLogs()) {
            StorageCoordinatorLog storageLog = StorageLogs.compacted(logs, GroupCoordinatorConfig.OFFSETS_TOPIC, PARTITIONS, Clock.systemUTC());
            try (GroupCoordinator c = new GroupCoordinator(config(), storageLog, Clock.systemUTC())) {
                c.start();
                get(c.loaded());
                get(c.commitOffsets(commit("g", -1, "", 1), (short) 8));
                logs.getLog(GroupCoordinatorConfig.OFFSETS_TOPIC, c.partitionFor("g")).close();
                OffsetCommitResponse r = get(c.commitOffsets(commit("g", -1, "", 2), (short) 8));
                assertThat(r.topics().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
                OffsetFetchResponse f = get(c.fetchOffsets(new OffsetFetchRequest().groupId("g").topics(null), (short) 7));
                assertThat(f.topics().get(0).partitions().get(0).committedOffset()).isEqualTo(1);
            }
        }
    }

    private static TxnOffsetCommitRequest txnCommit(String group, long pid, long offset) {
        return new TxnOffsetCommitRequest().transactionalId("tx").groupId(group).producerId(pid).producerEpoch((short) 3)
                .generationIdOrMemberEpoch(-1).memberId("").topics(new ArrayList<>(List.of(
                        new TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic().name("orders").partitions(new ArrayList<>(List.of(
                                new TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition().partitionIndex(2)
                                        .committedOffset(offset).committedMetadata("md")))))));
    }

    private static OffsetFetchResponse.OffsetFetchResponsePartition fetch(GroupCoordinator c, boolean requireStable) throws Exception {
        OffsetFetchResponse f = get(c.fetchOffsets(new OffsetFetchRequest().groupId("g").requireStable(requireStable)
                .topics(new ArrayList<>(List.of(new OffsetFetchRequest.OffsetFetchRequestTopic().name("orders")
                        .partitionIndexes(new ArrayList<>(List.of(2)))))), (short) 7));
        return f.topics().get(0).partitions().get(0);
    }

    @Test
    void transactionalOffsetsAreKafkasTransactionalBatchAndMarkerAndSurviveRestartsOpenOrCommitted() throws Exception {
        try (LogManager logs = openLogs();
             GroupCoordinator c = new GroupCoordinator(config(),
                     StorageLogs.compacted(logs, GroupCoordinatorConfig.OFFSETS_TOPIC, PARTITIONS, Clock.systemUTC()), Clock.systemUTC())) {
            c.start();
            get(c.loaded());
            get(c.commitOffsets(commit("g", -1, "", 5), (short) 8));
            TxnOffsetCommitResponse r = get(c.txnOffsetCommit(txnCommit("g", 7, 42), (short) 3));
            assertThat(r.topics().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.NONE.code());
            Log gLog = logs.getLog(GroupCoordinatorConfig.OFFSETS_TOPIC, c.partitionFor("g"));
            assertThat(gLog.durableOffset()).isEqualTo(gLog.logEndOffset()); // durable before the answer
        }
        // the transaction is still open at the restart: the offset is pending again
        try (LogManager logs = openLogs();
             GroupCoordinator c = new GroupCoordinator(config(),
                     StorageLogs.compacted(logs, GroupCoordinatorConfig.OFFSETS_TOPIC, PARTITIONS, Clock.systemUTC()), Clock.systemUTC())) {
            c.start();
            get(c.loaded());
            assertThat(fetch(c, true).errorCode()).isEqualTo(Errors.UNSTABLE_OFFSET_COMMIT.code());
            assertThat(fetch(c, false).committedOffset()).isEqualTo(5);
            get(c.completeTransaction(7, (short) 3, true, Set.of(c.partitionFor("g"))));
            assertThat(fetch(c, true).committedOffset()).isEqualTo(42);
            // Kafka's own record classes read the partition: a plain batch, the transactional batch
            // of producer 7, then its COMMIT marker
            Log gLog = logs.getLog(GroupCoordinatorConfig.OFFSETS_TOPIC, c.partitionFor("g"));
            List<MutableRecordBatch> batches = new ArrayList<>();
            MemoryRecords.readableRecords(gLog.read(0, 1 << 20, true).records().readAll()).batches().forEach(batches::add);
            assertThat(batches).hasSize(3);
            assertThat(batches.get(0).isTransactional()).isFalse();
            assertThat(batches.get(1).isTransactional()).isTrue();
            assertThat(batches.get(1).producerId()).isEqualTo(7);
            assertThat(batches.get(1).producerEpoch()).isEqualTo((short) 3);
            assertThat(batches.get(1).isControlBatch()).isFalse();
            assertThat(batches.get(2).isControlBatch()).isTrue();
            assertThat(batches.get(2).producerId()).isEqualTo(7);
            assertThat(ControlRecordType.parse(batches.get(2).iterator().next().key())).isEqualTo(ControlRecordType.COMMIT);
            assertThat(gLog.lastStableOffset()).isEqualTo(gLog.logEndOffset());
        }
        try (LogManager logs = openLogs();
             GroupCoordinator c = new GroupCoordinator(config(),
                     StorageLogs.compacted(logs, GroupCoordinatorConfig.OFFSETS_TOPIC, PARTITIONS, Clock.systemUTC()), Clock.systemUTC())) {
            c.start();
            get(c.loaded());
            assertThat(fetch(c, true).errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(fetch(c, true).committedOffset()).isEqualTo(42);
        }
    }
}
