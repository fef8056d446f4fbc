package io.brook.coordinator.group;

import static io.brook.coordinator.group.GroupHarness.done;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.brook.coordinator.runtime.CoordinatorLog;
import io.brook.coordinator.runtime.CoordinatorLogException;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.InMemoryCoordinatorLog;
import io.brook.coordinator.runtime.ReplayChunk;
import io.brook.testkit.MutableClock;
import io.brook.wire.message.DeleteGroupsRequest;
import io.brook.wire.message.DeleteGroupsResponse;
import io.brook.wire.message.DescribeGroupsRequest;
import io.brook.wire.message.DescribeGroupsResponse;
import io.brook.wire.message.HeartbeatRequest;
import io.brook.wire.message.HeartbeatResponse;
import io.brook.wire.message.JoinGroupRequest;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.message.LeaveGroupRequest;
import io.brook.wire.message.LeaveGroupResponse;
import io.brook.wire.message.ListGroupsRequest;
import io.brook.wire.message.ListGroupsResponse;
import io.brook.wire.message.OffsetCommitRequest;
import io.brook.wire.message.OffsetCommitResponse;
import io.brook.wire.message.OffsetDeleteRequest;
import io.brook.wire.message.OffsetDeleteResponse;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.message.SyncGroupRequest;
import io.brook.wire.message.SyncGroupResponse;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The coordinator serves while {@code __consumer_offsets} loads: Kafka's answers for a group whose
 * partition is still loading, the right answers once it is loaded, and nothing answered or expired
 * from a partial load. The loader's reads run on an executor the test holds, one record a read.
 */
@Timeout(20)
class CoordinatorLoadingTest {

    private static final short LOAD_IN_PROGRESS = Errors.COORDINATOR_LOAD_IN_PROGRESS.code();

    /** Runs the loader's reads only when the test says so. */
    private static final class HeldExecutor implements Executor {
        private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

        @Override
        public synchronized void execute(Runnable task) {
            tasks.add(task);
        }

        synchronized Runnable next() {
            return tasks.poll();
        }
    }

    private final MutableClock clock = new MutableClock(1_000_000);
    private final InMemoryCoordinatorLog log = new InMemoryCoordinatorLog();
    private final HeldExecutor reads = new HeldExecutor();
    private final GroupCoordinatorConfig config = GroupHarness.config();

    /** The first of {@code prefix0, prefix1, ...} whose group lives in {@code partition}. */
    private String groupIn(String prefix, int partition) {
        for (int i = 0; ; i++) {
            if (config.partitionFor(prefix + i) == partition) return prefix + i;
        }
    }

    /** A coordinator over {@link #log} whose load advances only through {@link #readOnce}. */
    private GroupCoordinator restartHeld() {
        GroupCoordinator c = new GroupCoordinator(config, log, clock, false, reads, 1);
        c.start();
        return c;
    }

    /** Runs one read of the loader (one record) and applies it; false when there was none to run. */
    private static boolean readOnce(HeldExecutor reads, GroupCoordinator c) {
        Runnable r = reads.next();
        if (r == null) return false;
        r.run();
        c.runPending();
        return true;
    }

    private static <T> T answer(GroupCoordinator c, CompletableFuture<T> f) {
        c.runPending();
        return done(f);
    }

    private static OffsetFetchRequest fetchV7(String group) {
        return new OffsetFetchRequest().groupId(group).topics(new ArrayList<>(List.of(
                new OffsetFetchRequest.OffsetFetchRequestTopic().name("t").partitionIndexes(new ArrayList<>(List.of(0, 1))))));
    }

    private static OffsetCommitRequest commit(String group, long offset) {
        return new OffsetCommitRequest().groupId(group).generationIdOrMemberEpoch(-1).topics(new ArrayList<>(List.of(
                new OffsetCommitRequest.OffsetCommitRequestTopic().name("t").partitions(new ArrayList<>(List.of(
                        new OffsetCommitRequest.OffsetCommitRequestPartition().partitionIndex(0).committedOffset(offset)))))));
    }

    @Test
    void shouldAnswerEveryGroupApiLikeKafkaWhileLoadingAndRightlyOnceLoaded() {
        String consumers = groupIn("c", 1);
        String simple = groupIn("s", 2);
        String member;
        GroupHarness before = new GroupHarness(config, log, clock);
        member = before.stableConsumer(consumers, "t");
        for (long o = 1; o <= 3; o++) before.commit(consumers, 1, member, null, 8, "t", 0, o * 10, "m");
        for (long o = 1; o <= 3; o++) before.commit(simple, -1, "", null, 8, "t", 0, o * 100, "");
        before.coordinator.close();

        GroupCoordinator c = restartHeld();
        // Nothing is read yet: every partition loads.
        OffsetFetchResponse v7 = answer(c, c.fetchOffsets(fetchV7(consumers), (short) 7));
        assertThat(v7.errorCode()).isEqualTo(LOAD_IN_PROGRESS);
        assertThat(v7.topics()).isEmpty();
        OffsetFetchResponse v1 = answer(c, c.fetchOffsets(fetchV7(consumers), (short) 1));
        assertThat(v1.topics().get(0).partitions()).hasSize(2).allSatisfy(p -> {
            assertThat(p.errorCode()).isEqualTo(LOAD_IN_PROGRESS);
            assertThat(p.committedOffset()).isEqualTo(-1);
        });
        OffsetFetchResponse v8 = answer(c, c.fetchOffsets(new OffsetFetchRequest().groups(new ArrayList<>(List.of(
                new OffsetFetchRequest.OffsetFetchRequestGroup().groupId(consumers).topics(null),
                new OffsetFetchRequest.OffsetFetchRequestGroup().groupId(simple).topics(null)))), (short) 8));
        assertThat(v8.groups()).extracting(OffsetFetchResponse.OffsetFetchResponseGroup::errorCode)
                .containsExactly(LOAD_IN_PROGRESS, LOAD_IN_PROGRESS);
        OffsetCommitResponse committed = answer(c, c.commitOffsets(commit(simple, 999), (short) 8));
        assertThat(committed.topics().get(0).partitions().get(0).errorCode()).isEqualTo(LOAD_IN_PROGRESS);

        JoinGroupRequest join = GroupHarness.joinRequest(consumers, member, null, "range");
        JoinGroupResponse joined = answer(c, c.joinGroup(join, (short) 9, "cli", "/h"));
        assertThat(joined.errorCode()).isEqualTo(LOAD_IN_PROGRESS);
        assertThat(joined.memberId()).isEmpty();
        // Kafka checks the id and the session timeout before the partition
        assertThat(answer(c, c.joinGroup(GroupHarness.joinRequest("", "", null, "range"), (short) 9, "cli", "/h")).errorCode())
                .isEqualTo(Errors.INVALID_GROUP_ID.code());
        assertThat(answer(c, c.joinGroup(GroupHarness.joinRequest(consumers, "", null, "range").sessionTimeoutMs(1),
                (short) 9, "cli", "/h")).errorCode()).isEqualTo(Errors.INVALID_SESSION_TIMEOUT.code());
        SyncGroupResponse synced = answer(c, c.syncGroup(new SyncGroupRequest().groupId(consumers).generationId(1).memberId(member), (short) 5));
        assertThat(synced.errorCode()).isEqualTo(LOAD_IN_PROGRESS);
        HeartbeatResponse beat = answer(c, c.heartbeat(new HeartbeatRequest().groupId(consumers).generationId(1).memberId(member), (short) 4));
        assertThat(beat.errorCode()).as("Kafka answers a loading group's heartbeat blindly").isEqualTo(Errors.NONE.code());
        LeaveGroupResponse left = answer(c, c.leaveGroup(new LeaveGroupRequest().groupId(consumers).members(new ArrayList<>(List.of(
                new LeaveGroupRequest.MemberIdentity().memberId(member)))), (short) 5));
        assertThat(left.errorCode()).isEqualTo(LOAD_IN_PROGRESS);
        assertThat(left.members()).isEmpty();
        DescribeGroupsResponse described = answer(c, c.describeGroups(new DescribeGroupsRequest().groups(
                new ArrayList<>(List.of(consumers))), (short) 5));
        assertThat(described.groups().get(0).errorCode()).isEqualTo(LOAD_IN_PROGRESS);
        assertThat(described.groups().get(0).groupState()).isEmpty();
        ListGroupsResponse listed = answer(c, c.listGroups(new ListGroupsRequest(), (short) 4));
        assertThat(listed.errorCode()).isEqualTo(LOAD_IN_PROGRESS);
        assertThat(listed.groups()).isEmpty();
        DeleteGroupsResponse deleted = answer(c, c.deleteGroups(new DeleteGroupsRequest().groupsNames(
                new ArrayList<>(List.of(simple))), (short) 2));
        assertThat(deleted.results().get(0).errorCode()).isEqualTo(LOAD_IN_PROGRESS);
        OffsetDeleteResponse offsetDeleted = answer(c, c.deleteOffsets(new OffsetDeleteRequest().groupId(simple)
                .topics(new ArrayList<>()), (short) 0));
        assertThat(offsetDeleted.errorCode()).isEqualTo(LOAD_IN_PROGRESS);
        assertThat(log.size()).as("nothing written while loading").isEqualTo(before.log.size());

        // One record a read: a group is answered only with everything of its partition loaded.
        boolean sawOneLoadedWhileAnotherLoaded = false;
        while (readOnce(reads, c)) {
            long consumerOffset = answer(c, c.fetchOffsets(fetchV7(consumers), (short) 7)).errorCode() == LOAD_IN_PROGRESS
                    ? -2 : committed(c, consumers);
            OffsetFetchResponse s = answer(c, c.fetchOffsets(fetchV7(simple), (short) 7));
            long simpleOffset = s.errorCode() == LOAD_IN_PROGRESS ? -2 : s.topics().get(0).partitions().get(0).committedOffset();
            assertThat(consumerOffset).as("never from a partial load").isIn(-2L, 30L);
            assertThat(simpleOffset).as("never from a partial load").isIn(-2L, 300L);
            if (consumerOffset == 30 && simpleOffset == -2) sawOneLoadedWhileAnotherLoaded = true;
        }
        assertThat(sawOneLoadedWhileAnotherLoaded).as("partition 1 served while partition 2 loaded").isTrue();
        assertThat(c.loaded()).isCompleted();

        assertThat(committed(c, consumers)).isEqualTo(30);
        assertThat(answer(c, c.heartbeat(new HeartbeatRequest().groupId(consumers).generationId(1).memberId(member), (short) 4))
                .errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(answer(c, c.describeGroups(new DescribeGroupsRequest().groups(new ArrayList<>(List.of(consumers))), (short) 5))
                .groups().get(0).groupState()).isEqualTo("Stable");
        assertThat(answer(c, c.listGroups(new ListGroupsRequest(), (short) 4)).groups()).hasSize(2);
        assertThat(answer(c, c.commitOffsets(commit(simple, 400), (short) 8)).topics().get(0).partitions().get(0).errorCode())
                .isEqualTo(Errors.NONE.code());
        assertThat(answer(c, c.fetchOffsets(fetchV7(simple), (short) 7)).topics().get(0).partitions().get(0).committedOffset())
                .isEqualTo(400);
        assertThat(c.taskFailures()).isZero();
    }

    private static long committed(GroupCoordinator c, String group) {
        return answer(c, c.fetchOffsets(fetchV7(group), (short) 7)).topics().get(0).partitions().get(0).committedOffset();
    }

    @Test
    void shouldNotExpireOffsetsOfAPartiallyLoadedPartition() {
        String simple = groupIn("s", 0);
        GroupHarness before = new GroupHarness(config, log, clock);
        for (long o = 1; o <= 3; o++) before.commit(simple, -1, "", null, 8, "t", (int) o, o, "");
        before.coordinator.close();
        int written = log.size();

        GroupCoordinator c = restartHeld();
        assertThat(readOnce(reads, c)).isTrue(); // one of the three offsets is in memory
        clock.advance(config.offsetsRetentionMs() + config.offsetsRetentionCheckIntervalMs());
        c.runPending(); // the expiry timer is due
        assertThat(log.size()).as("no tombstone written from a partial load").isEqualTo(written);

        while (readOnce(reads, c)) {
            assertThat(log.size()).isEqualTo(written);
        }
        // loaded: now the three expire together, with the group
        clock.advance(config.offsetsRetentionCheckIntervalMs());
        c.runPending();
        assertThat(log.size()).isEqualTo(written + 4);
    }

    @Test
    void shouldAnswerNotCoordinatorForAPartitionThatCannotBeReadAndServeTheOthers() {
        String lost = groupIn("lost", 1);
        String kept = groupIn("kept", 2);
        GroupHarness before = new GroupHarness(config, log, clock);
        before.commit(lost, -1, "", null, 8, "t", 0, 5, "");
        before.commit(kept, -1, "", null, 8, "t", 0, 6, "");
        before.coordinator.close();
        CoordinatorLog unreadable = new CoordinatorLog() {
            @Override
            public CompletableFuture<Long> append(int partition, List<CoordinatorRecord> records) {
                return log.append(partition, records);
            }

            @Override
            public ReplayChunk read(int partition, long fromOffset, int maxBytes) {
                if (partition == 1) throw new CoordinatorLogException(CoordinatorLogException.Reason.UNAVAILABLE, "EIO (test)");
                return log.read(partition, fromOffset, maxBytes);
            }
        };
        GroupCoordinator c = new GroupCoordinator(config, unreadable, clock, false);
        c.start();
        assertThat(c.loaded()).isCompleted();
        assertThat(answer(c, c.fetchOffsets(fetchV7(lost), (short) 7)).errorCode()).isEqualTo(Errors.NOT_COORDINATOR.code());
        assertThat(answer(c, c.commitOffsets(commit(lost, 7), (short) 8)).topics().get(0).partitions().get(0).errorCode())
                .isEqualTo(Errors.NOT_COORDINATOR.code());
        assertThat(committed(c, kept)).isEqualTo(6);
        assertThat(answer(c, c.listGroups(new ListGroupsRequest(), (short) 4)).groups())
                .extracting(ListGroupsResponse.ListedGroup::groupId).containsExactly(kept);
    }

    /** The same on the coordinator's own threads: a read held on a latch, answers from another thread. */
    @Test
    void shouldServeLoadedPartitionsWhileAReadIsHeldOnTheLoaderThread() throws Exception {
        String late = groupIn("late", 3);
        String early = groupIn("early", 0);
        GroupHarness before = new GroupHarness(config, log, clock);
        before.commit(late, -1, "", null, 8, "t", 0, 11, "");
        before.commit(early, -1, "", null, 8, "t", 0, 12, "");
        before.coordinator.close();
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CoordinatorLog gated = new CoordinatorLog() {
            @Override
            public CompletableFuture<Long> append(int partition, List<CoordinatorRecord> records) {
                return log.append(partition, records);
            }

            @Override
            public ReplayChunk read(int partition, long fromOffset, int maxBytes) {
                if (partition == 3) {
                    reached.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }
                return log.read(partition, fromOffset, maxBytes);
            }
        };
        GroupCoordinator c = new GroupCoordinator(config, gated, Clock.systemUTC());
        try {
            c.start();
            assertThat(reached.await(10, TimeUnit.SECONDS)).isTrue();
            OffsetFetchResponse held = c.fetchOffsets(fetchV7(late), (short) 7).get(10, TimeUnit.SECONDS);
            assertThat(held.errorCode()).isEqualTo(LOAD_IN_PROGRESS);
            OffsetFetchResponse served = c.fetchOffsets(fetchV7(early), (short) 7).get(10, TimeUnit.SECONDS);
            assertThat(served.topics().get(0).partitions().get(0).committedOffset()).isEqualTo(12);
            assertThat(c.loaded()).isNotDone();
            release.countDown();
            c.loaded().get(10, TimeUnit.SECONDS);
            OffsetFetchResponse after = c.fetchOffsets(fetchV7(late), (short) 7).get(10, TimeUnit.SECONDS);
            assertThat(after.topics().get(0).partitions().get(0).committedOffset()).isEqualTo(11);
        } finally {
            release.countDown();
            c.close();
        }
    }
}
