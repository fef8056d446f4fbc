package io.brook.coordinator.group;

import static io.brook.coordinator.group.GroupHarness.done;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.brook.coordinator.runtime.InMemoryCoordinatorLog;
import io.brook.testkit.MutableClock;
import io.brook.wire.message.HeartbeatRequest;
import io.brook.wire.message.HeartbeatResponse;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.message.ListGroupsRequest;
import io.brook.wire.message.ListGroupsResponse;
import io.brook.wire.message.OffsetCommitRequest;
import io.brook.wire.message.OffsetCommitResponse;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A group coordinator that owns only some partitions of {@code __consumer_offsets}, as a cluster
 * node owns those it leads: groups of the others are NOT_COORDINATOR, a partition gained is loaded
 * (COORDINATOR_LOAD_IN_PROGRESS meanwhile) and a partition lost drops its groups, answers their
 * parked joins and fails their writes in flight with NOT_COORDINATOR. Virtual time, no threads.
 */
@Timeout(20)
class GroupOwnershipTest {

    private static final short NOT_COORDINATOR = Errors.NOT_COORDINATOR.code();

    private final MutableClock clock = new MutableClock(1_000_000);
    private final InMemoryCoordinatorLog log = new InMemoryCoordinatorLog();
    private final GroupCoordinatorConfig config = GroupHarness.config();
    private final List<GroupCoordinator> started = new ArrayList<>();

    @AfterEach
    void noFailures() {
        for (GroupCoordinator c : started) {
            assertThat(c.taskFailures()).isZero();
            c.close();
        }
    }

    /** The first of {@code prefix0, prefix1, ...} whose group lives in {@code partition}. */
    private String groupIn(String prefix, int partition) {
        for (int i = 0; ; i++) {
            if (config.partitionFor(prefix + i) == partition) return prefix + i;
        }
    }

    private GroupCoordinator owning(Set<Integer> partitions) {
        GroupCoordinator c = new GroupCoordinator(config, log, clock, false);
        c.own(partitions);
        c.start();
        started.add(c);
        return c;
    }

    /** A commit of a simple group (no generation): offset {@code offset} of t-0. */
    private static OffsetCommitRequest commit(String group, long offset) {
        return new OffsetCommitRequest().groupId(group).generationIdOrMemberEpoch(-1).topics(new ArrayList<>(List.of(
                new OffsetCommitRequest.OffsetCommitRequestTopic().name("t").partitions(new ArrayList<>(List.of(
                        new OffsetCommitRequest.OffsetCommitRequestPartition().partitionIndex(0).committedOffset(offset)))))));
    }

    private static <T> T answer(GroupCoordinator c, CompletableFuture<T> f) {
        c.runPending();
        return done(f);
    }

    private static short fetchError(GroupCoordinator c, String group) {
        OffsetFetchResponse r = answer(c, c.fetchOffsets(new OffsetFetchRequest().groups(new ArrayList<>(List.of(
                new OffsetFetchRequest.OffsetFetchRequestGroup().groupId(group).topics(null)))), (short) 8));
        return r.groups().get(0).errorCode();
    }

    private static long committed(GroupCoordinator c, String group) {
        OffsetFetchResponse r = answer(c, c.fetchOffsets(new OffsetFetchRequest().groups(new ArrayList<>(List.of(
                new OffsetFetchRequest.OffsetFetchRequestGroup().groupId(group).topics(null)))), (short) 8));
        assertThat(r.groups().get(0).errorCode()).isZero();
        return r.groups().get(0).topics().get(0).partitions().get(0).committedOffset();
    }

    @Test
    void shouldAnswerNotCoordinatorForGroupsOfPartitionsItDoesNotOwn() {
        String mine = groupIn("g", 1);
        String theirs = groupIn("g", 2);
        GroupCoordinator c = owning(Set.of(1));
        assertThat(c.loaded()).isDone();

        JoinGroupResponse join = answer(c, c.joinGroup(GroupHarness.joinRequest(theirs, "", null, "range"), (short) 9, "c", "/h"));
        assertThat(join.errorCode()).isEqualTo(NOT_COORDINATOR);
        HeartbeatResponse hb = answer(c, c.heartbeat(new HeartbeatRequest().groupId(theirs).memberId("m").generationId(1), (short) 4));
        assertThat(hb.errorCode()).isEqualTo(NOT_COORDINATOR);
        assertThat(fetchError(c, theirs)).isEqualTo(NOT_COORDINATOR);
        assertThat(answer(c, c.commitOffsets(commit(theirs, 5), (short) 8))
                .topics().get(0).partitions().get(0).errorCode()).isEqualTo(NOT_COORDINATOR);

        // the partition it owns serves as on a single node
        assertThat(answer(c, c.commitOffsets(commit(mine, 5), (short) 8))
                .topics().get(0).partitions().get(0).errorCode()).isZero();
        assertThat(committed(c, mine)).isEqualTo(5);
        ListGroupsResponse listed = answer(c, c.listGroups(new ListGroupsRequest(), (short) 4));
        assertThat(listed.errorCode()).isZero();
        assertThat(listed.groups()).extracting(ListGroupsResponse.ListedGroup::groupId).containsExactly(mine);
    }

    @Test
    void shouldLoadAPartitionWhenItIsGainedAndDropItWhenItIsLost() {
        String group = groupIn("g", 2);
        GroupCoordinator first = owning(Set.of(0, 1, 2, 3));
        assertThat(answer(first, first.commitOffsets(commit(group, 42), (short) 8))
                .topics().get(0).partitions().get(0).errorCode()).isZero();
        first.own(Set.of(0, 1, 3));
        first.runPending();
        assertThat(first.group(group)).as("dropped with its partition").isNull();
        assertThat(fetchError(first, group)).isEqualTo(NOT_COORDINATOR);

        // another node gains it: loading, then the committed offset is there
        GroupCoordinator second = owning(Set.of());
        assertThat(fetchError(second, group)).isEqualTo(NOT_COORDINATOR);
        second.own(Set.of(2));
        second.runPending();
        assertThat(committed(second, group)).isEqualTo(42);

        // and the first one gains it back: loaded again from the log
        first.own(Set.of(0, 1, 2, 3));
        first.runPending();
        assertThat(committed(first, group)).isEqualTo(42);
    }

    @Test
    void shouldAnswerParkedJoinsAndWritesInFlightNotCoordinatorWhenThePartitionIsLost() {
        String group = groupIn("g", 3);
        String other = groupIn("h", 0);
        GroupHarness h = new GroupHarness(config, log, clock);
        started.add(h.coordinator);
        String member = h.stableConsumer(group, "t");
        // a second member joins: its join is parked until the first one rejoins
        CompletableFuture<JoinGroupResponse> parked = h.joinNew(group, "range");
        assertThat(parked).isNotDone();
        // a commit of another group of the same partition, and one of a partition that stays
        String sameGroupMember = member;
        log.holdAppends(true);
        CompletableFuture<OffsetCommitResponse> inFlight = h.coordinator.commitOffsets(commit(groupIn("s", 3), 7), (short) 8);
        CompletableFuture<OffsetCommitResponse> kept = h.coordinator.commitOffsets(commit(other, 8), (short) 8);
        h.run();
        assertThat(log.heldCount()).isEqualTo(2);

        h.coordinator.own(Set.of(0, 1, 2));
        h.run();
        assertThat(done(parked).errorCode()).isEqualTo(NOT_COORDINATOR);
        assertThat(h.heartbeat(group, 1, sameGroupMember)).isEqualTo(Errors.NOT_COORDINATOR);
        log.holdAppends(false);
        log.releaseHeld();
        h.run();
        assertThat(done(inFlight).topics().get(0).partitions().get(0).errorCode()).isEqualTo(NOT_COORDINATOR);
        assertThat(done(kept).topics().get(0).partitions().get(0).errorCode()).isZero();
        // the dropped group's timers are gone: nothing fires for it later
        h.advance(GroupHarness.REBALANCE * 2L);
        assertThat(h.group(group)).isNull();
    }
}
