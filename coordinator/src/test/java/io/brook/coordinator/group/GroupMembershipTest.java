package io.brook.coordinator.group;

import static io.brook.coordinator.group.GroupHarness.REBALANCE;
import static io.brook.coordinator.group.GroupHarness.SESSION;
import static io.brook.coordinator.group.GroupHarness.done;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

import io.brook.wire.message.JoinGroupRequest;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.message.LeaveGroupRequest;
import io.brook.wire.message.LeaveGroupResponse;
import io.brook.wire.message.SyncGroupResponse;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class GroupMembershipTest {

    private static Errors error(JoinGroupResponse r) {
        return Errors.forCode(r.errorCode());
    }

    private static Errors error(SyncGroupResponse r) {
        return Errors.forCode(r.errorCode());
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** Two members in a Stable group at generation 1: returns {leaderId, followerId}. */
    static String[] stableGroupOfTwo(GroupHarness h, String group) {
        JoinGroupResponse a = done(h.joinNew(group, "range"));
        assertThat(a.generationId()).isEqualTo(1);
        String leader = a.memberId();
        SyncGroupResponse s = done(h.sync(group, 1, leader, leader, "A1"));
        assertThat(text(s.assignment())).isEqualTo("A1");
        // Second member: the leader must rejoin before the join phase completes.
        CompletableFuture<JoinGroupResponse> b = h.joinNew(group, "range");
        assertThat(b).isNotDone();
        assertThat(h.state(group)).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(h.heartbeat(group, 1, leader)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        JoinGroupResponse la = done(h.join(group, leader, "range"));
        JoinGroupResponse fb = done(b);
        assertThat(la.generationId()).isEqualTo(2);
        assertThat(la.leader()).isEqualTo(leader);
        assertThat(la.members()).hasSize(2);
        assertThat(fb.members()).isEmpty();
        String follower = fb.memberId();
        CompletableFuture<SyncGroupResponse> fs = h.sync(group, 2, follower);
        assertThat(fs).isNotDone();
        SyncGroupResponse ls = done(h.sync(group, 2, leader, leader, "L", follower, "F"));
        assertThat(text(ls.assignment())).isEqualTo("L");
        assertThat(text(done(fs).assignment())).isEqualTo("F");
        assertThat(h.state(group)).isEqualTo(GroupState.STABLE);
        return new String[]{leader, follower};
    }

    @Test
    void shouldRequireMemberIdOnFirstJoinFromV4AndAcceptItBack() {
        GroupHarness h = new GroupHarness();
        JoinGroupResponse first = done(h.join("g", "", "range"));
        assertThat(error(first)).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        assertThat(first.memberId()).startsWith("client-");
        assertThat(h.group("g").pendingMembers).containsExactly(first.memberId());
        JoinGroupResponse second = done(h.join("g", first.memberId(), "range"));
        assertThat(error(second)).isEqualTo(Errors.NONE);
        assertThat(second.memberId()).isEqualTo(first.memberId());
        assertThat(second.leader()).isEqualTo(first.memberId());
        assertThat(second.protocolName()).isEqualTo("range");
        assertThat(second.protocolType()).isEqualTo("consumer");
        assertThat(second.members()).extracting(JoinGroupResponse.JoinGroupResponseMember::memberId).containsExactly(first.memberId());
        assertThat(h.state("g")).isEqualTo(GroupState.COMPLETING_REBALANCE);
    }

    @Test
    void shouldAddMemberDirectlyBeforeV4() {
        GroupHarness h = new GroupHarness();
        JoinGroupResponse r = done(h.join(GroupHarness.joinRequest("g", "", null, "range"), 3));
        assertThat(error(r)).isEqualTo(Errors.NONE);
        assertThat(r.generationId()).isEqualTo(1);
    }

    @Test
    void shouldUseSessionTimeoutAsRebalanceTimeoutForV0() {
        GroupHarness h = new GroupHarness();
        JoinGroupRequest req = GroupHarness.joinRequest("g", "", null, "range").rebalanceTimeoutMs(-1);
        JoinGroupResponse r = done(h.join(req, 0));
        assertThat(error(r)).isEqualTo(Errors.NONE);
        assertThat(h.group("g").members.get(r.memberId()).rebalanceTimeoutMs).isEqualTo(SESSION);
    }

    @Test
    void shouldRejectInvalidJoins() {
        GroupHarness h = new GroupHarness();
        assertThat(error(done(h.join(GroupHarness.joinRequest("", "", null, "range"), 9)))).isEqualTo(Errors.INVALID_GROUP_ID);
        assertThat(error(done(h.join(GroupHarness.joinRequest("g", "", null, "range").sessionTimeoutMs(5_999), 9))))
                .isEqualTo(Errors.INVALID_SESSION_TIMEOUT);
        assertThat(error(done(h.join(GroupHarness.joinRequest("g", "", null, "range").sessionTimeoutMs(1_800_001), 9))))
                .isEqualTo(Errors.INVALID_SESSION_TIMEOUT);
        assertThat(error(done(h.join(GroupHarness.joinRequest("g", "", null, "range").protocolType(""), 9))))
                .isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
        assertThat(error(done(h.join(GroupHarness.joinRequest("g", "", null)
                .protocols(new java.util.ArrayList<>()), 9)))).isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
        assertThat(error(done(h.join("nope", "someone", "range")))).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void shouldRejectMemberWithOtherProtocolTypeOrNoCommonProtocol() {
        GroupHarness h = new GroupHarness();
        done(h.joinNew("g", "range"));
        assertThat(error(done(h.join(GroupHarness.joinRequest("g", "", null, "range").protocolType("connect"), 9))))
                .isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
        assertThat(error(done(h.join("g", "", "roundrobin")))).isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
    }

    @Test
    void shouldSelectProtocolByVotesOfAllMembers() {
        GroupHarness h = new GroupHarness();
        String a = done(h.join("g", "", "roundrobin", "range")).memberId();
        CompletableFuture<JoinGroupResponse> ja = h.join("g", a, "roundrobin", "range");
        assertThat(done(ja).protocolName()).isEqualTo("roundrobin");
        String b = done(h.join("g", "", "range", "roundrobin")).memberId();
        String c = done(h.join("g", "", "range", "sticky", "roundrobin")).memberId();
        CompletableFuture<JoinGroupResponse> jb = h.join("g", b, "range", "roundrobin");
        CompletableFuture<JoinGroupResponse> jc = h.join("g", c, "range", "sticky", "roundrobin");
        CompletableFuture<JoinGroupResponse> ja2 = h.join("g", a, "roundrobin", "range");
        // Candidates {roundrobin, range}; votes: a→roundrobin, b→range, c→range.
        assertThat(done(ja2).protocolName()).isEqualTo("range");
        assertThat(done(jb).protocolName()).isEqualTo("range");
        assertThat(done(jc).generationId()).isEqualTo(2);
    }

    @Test
    void shouldRunFullRebalanceWithTwoMembers() {
        GroupHarness h = new GroupHarness();
        String[] ids = stableGroupOfTwo(h, "g");
        assertThat(h.heartbeat("g", 2, ids[0])).isEqualTo(Errors.NONE);
        assertThat(h.heartbeat("g", 2, ids[1])).isEqualTo(Errors.NONE);
        assertThat(h.heartbeat("g", 1, ids[1])).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(h.heartbeat("g", 2, "ghost")).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(h.heartbeat("unknown-group", 2, ids[0])).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        // SyncGroup in Stable returns the stored assignment.
        assertThat(text(done(h.sync("g", 2, ids[1])).assignment())).isEqualTo("F");
    }

    @Test
    void shouldAnswerHeartbeatNoneWhileCompletingRebalanceAndRejectSyncErrors() {
        GroupHarness h = new GroupHarness();
        String a = done(h.joinNew("g", "range")).memberId();
        assertThat(h.state("g")).isEqualTo(GroupState.COMPLETING_REBALANCE);
        assertThat(h.heartbeat("g", 1, a)).isEqualTo(Errors.NONE);
        assertThat(error(done(h.sync("g", 0, a)))).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(error(done(h.sync("g", 1, "ghost")))).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(error(done(h.sync("nope", 1, a)))).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        CompletableFuture<SyncGroupResponse> wrongType = h.coordinator.syncGroup(new io.brook.wire.message.SyncGroupRequest()
                .groupId("g").generationId(1).memberId(a).protocolType("connect"), (short) 5);
        h.run();
        assertThat(error(done(wrongType))).isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
        CompletableFuture<SyncGroupResponse> wrongName = h.coordinator.syncGroup(new io.brook.wire.message.SyncGroupRequest()
                .groupId("g").generationId(1).memberId(a).protocolName("roundrobin"), (short) 5);
        h.run();
        assertThat(error(done(wrongName))).isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
        // Before v5 the fields do not exist and are not checked.
        CompletableFuture<SyncGroupResponse> v4 = h.coordinator.syncGroup(new io.brook.wire.message.SyncGroupRequest()
                .groupId("g").generationId(1).memberId(a).protocolName("roundrobin"), (short) 4);
        h.run();
        assertThat(error(done(v4))).isEqualTo(Errors.NONE);
        assertThat(h.state("g")).isEqualTo(GroupState.STABLE);
    }

    @Test
    void shouldAnswerSyncWithRebalanceInProgressWhilePreparing() {
        GroupHarness h = new GroupHarness();
        String[] ids = stableGroupOfTwo(h, "g");
        CompletableFuture<JoinGroupResponse> rejoin = h.join("g", ids[0], "range");
        assertThat(rejoin).isNotDone();
        assertThat(error(done(h.sync("g", 2, ids[1])))).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
    }

    @Test
    void shouldRebalanceWhenLeaderRejoinsEvenWithSameMetadata() {
        GroupHarness h = new GroupHarness();
        String[] ids = stableGroupOfTwo(h, "g");
        CompletableFuture<JoinGroupResponse> leader = h.join("g", ids[0], "range");
        assertThat(h.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(h.heartbeat("g", 2, ids[1])).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        CompletableFuture<JoinGroupResponse> follower = h.join("g", ids[1], "range");
        assertThat(done(leader).generationId()).isEqualTo(3);
        assertThat(done(follower).generationId()).isEqualTo(3);
    }

    @Test
    void shouldReturnCurrentGenerationToFollowerRejoiningWithSameMetadata() {
        GroupHarness h = new GroupHarness();
        String[] ids = stableGroupOfTwo(h, "g");
        JoinGroupResponse r = done(h.join("g", ids[1], "range"));
        assertThat(error(r)).isEqualTo(Errors.NONE);
        assertThat(r.generationId()).isEqualTo(2);
        assertThat(r.leader()).isEqualTo(ids[0]);
        assertThat(r.members()).isEmpty();
        assertThat(h.state("g")).isEqualTo(GroupState.STABLE);
    }

    @Test
    void shouldRebalanceWhenFollowerRejoinsWithChangedMetadata() {
        GroupHarness h = new GroupHarness();
        String[] ids = stableGroupOfTwo(h, "g");
        CompletableFuture<JoinGroupResponse> f = h.join("g", ids[1], "range", "roundrobin");
        assertThat(f).isNotDone();
        assertThat(h.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);
        JoinGroupResponse l = done(h.join("g", ids[0], "range"));
        assertThat(l.generationId()).isEqualTo(3);
        assertThat(l.members()).filteredOn(m -> m.memberId().equals(ids[1]))
                .extracting(m -> text(m.metadata())).containsExactly("range");
    }

    @Test
    void shouldReturnSameAnswerToMemberRejoiningDuringCompletingRebalance() {
        GroupHarness h = new GroupHarness();
        String a = done(h.joinNew("g", "range")).memberId();
        JoinGroupResponse again = done(h.join("g", a, "range"));
        assertThat(again.generationId()).isEqualTo(1);
        assertThat(again.members()).hasSize(1);
        assertThat(h.state("g")).isEqualTo(GroupState.COMPLETING_REBALANCE);
        CompletableFuture<JoinGroupResponse> changed = h.join("g", a, "roundrobin", "range");
        assertThat(done(changed).generationId()).isEqualTo(2);
        assertThat(done(changed).protocolName()).isEqualTo("roundrobin");
    }

    @Test
    void shouldFailParkedSyncsWhenRebalanceStartsDuringCompletingRebalance() {
        GroupHarness h = new GroupHarness();
        String[] ids = stableGroupOfTwo(h, "g");
        CompletableFuture<JoinGroupResponse> l = h.join("g", ids[0], "range");
        CompletableFuture<JoinGroupResponse> f = h.join("g", ids[1], "range");
        assertThat(done(l).generationId()).isEqualTo(3);
        CompletableFuture<SyncGroupResponse> parked = h.sync("g", 3, ids[1]);
        assertThat(parked).isNotDone();
        // A new member arrives before the leader syncs.
        done(h.join("g", "", "range"));
        h.join("g", done(h.join("g", "", "range")).memberId(), "range");
        assertThat(error(done(parked))).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        assertThat(done(f).generationId()).isEqualTo(3);
    }

    @Test
    void shouldRemoveMembersThatDoNotRejoinWithinRebalanceTimeout() {
        GroupHarness h = new GroupHarness();
        String[] ids = stableGroupOfTwo(h, "g");
        CompletableFuture<JoinGroupResponse> f = h.join("g", ids[1], "range", "roundrobin");
        // Keep the leader's session alive but never rejoin.
        for (int t = 0; t < REBALANCE; t += 5_000) {
            h.advance(5_000);
            if (!f.isDone()) assertThat(h.heartbeat("g", 2, ids[0])).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        }
        JoinGroupResponse r = done(f);
        assertThat(r.generationId()).isEqualTo(3);
        assertThat(r.leader()).isEqualTo(ids[1]);
        assertThat(r.members()).hasSize(1);
        assertThat(h.group("g").hasMember(ids[0])).isFalse();
    }

    @Test
    void shouldDelayInitialRebalanceAndExtendItWhileMembersArrive() {
        GroupHarness h = new GroupHarness(GroupHarness.config().withInitialRebalanceDelayMs(3_000));
        CompletableFuture<JoinGroupResponse> a = h.joinNew("g", "range");
        h.advance(2_000);
        assertThat(a).isNotDone();
        CompletableFuture<JoinGroupResponse> b = h.joinNew("g", "range");
        h.advance(1_000);
        // The first delay expired but a member was added: extended by another delay.
        assertThat(a).isNotDone();
        assertThat(h.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);
        h.advance(2_999);
        assertThat(a).isNotDone();
        h.advance(1);
        assertThat(done(a).generationId()).isEqualTo(1);
        assertThat(done(b).generationId()).isEqualTo(1);
        assertThat(done(a).members()).hasSize(2);
    }

    @Test
    void shouldCapInitialDelayByRebalanceTimeout() {
        GroupHarness h = new GroupHarness(GroupHarness.config().withInitialRebalanceDelayMs(3_000));
        JoinGroupRequest req = GroupHarness.joinRequest("g", "", null, "range").rebalanceTimeoutMs(4_000);
        String id = done(h.join(req, 9)).memberId();
        CompletableFuture<JoinGroupResponse> a = h.join(req.memberId(id), 9);
        h.advance(2_000);
        h.joinNew("g", "range");
        h.advance(1_000); // first delay over, one remaining slice of min(3000, 4000-3000)=1000
        assertThat(a).isNotDone();
        h.advance(1_000);
        assertThat(done(a).generationId()).isEqualTo(1);
    }

    @Test
    void shouldExpireMemberWhoseSessionTimesOutAndRebalance() {
        GroupHarness h = new GroupHarness();
        String[] ids = stableGroupOfTwo(h, "g");
        h.advance(SESSION - 1);
        assertThat(h.heartbeat("g", 2, ids[0])).isEqualTo(Errors.NONE);
        h.advance(1);
        // The follower never heartbeated: gone, and the leader is asked to rejoin.
        assertThat(h.group("g").hasMember(ids[1])).isFalse();
        assertThat(h.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(h.heartbeat("g", 2, ids[0])).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        JoinGroupResponse r = done(h.join("g", ids[0], "range"));
        assertThat(r.generationId()).isEqualTo(3);
        assertThat(r.members()).hasSize(1);
    }

    @Test
    void shouldBecomeEmptyWhenLastMemberExpires() {
        GroupHarness h = new GroupHarness();
        String a = done(h.joinNew("g", "range")).memberId();
        done(h.sync("g", 1, a, a, "x"));
        h.advance(SESSION);
        assertThat(h.state("g")).isEqualTo(GroupState.EMPTY);
        assertThat(h.group("g").generation).isEqualTo(2);
        assertThat(h.heartbeat("g", 1, a)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void shouldExpirePendingMemberThatNeverRejoins() {
        GroupHarness h = new GroupHarness();
        String pending = done(h.join("g", "", "range")).memberId();
        assertThat(h.group("g").pendingMembers).contains(pending);
        h.advance(SESSION);
        assertThat(h.group("g").pendingMembers).isEmpty();
        assertThat(error(done(h.join("g", pending, "range")))).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void shouldWaitForPendingMemberBeforeCompletingJoin() {
        GroupHarness h = new GroupHarness();
        String[] ids = stableGroupOfTwo(h, "g");
        String pending = done(h.join("g", "", "range")).memberId();
        CompletableFuture<JoinGroupResponse> l = h.join("g", ids[0], "range");
        CompletableFuture<JoinGroupResponse> f = h.join("g", ids[1], "range");
        assertThat(l).isNotDone();
        CompletableFuture<JoinGroupResponse> p = h.join("g", pending, "range");
        assertThat(done(l).members()).hasSize(3);
        assertThat(done(f).generationId()).isEqualTo(3);
        assertThat(done(p).generationId()).isEqualTo(3);
    }

    @Test
    void shouldRemoveMembersThatMissSyncAndRebalance() {
        GroupHarness h = new GroupHarness();
        String[] ids = stableGroupOfTwo(h, "g");
        CompletableFuture<JoinGroupResponse> l = h.join("g", ids[0], "range");
        h.join("g", ids[1], "range");
        assertThat(done(l).generationId()).isEqualTo(3);
        // Leader syncs, follower never does; heartbeats keep both sessions alive.
        done(h.sync("g", 3, ids[0], ids[0], "L", ids[1], "F"));
        for (int t = 0; t < REBALANCE; t += 5_000) {
            h.advance(5_000);
            if (h.group("g").hasMember(ids[0]) && h.state("g") == GroupState.STABLE) h.heartbeat("g", 3, ids[0]);
            if (h.group("g").hasMember(ids[1]) && h.state("g") == GroupState.STABLE) h.heartbeat("g", 3, ids[1]);
        }
        assertThat(h.group("g").hasMember(ids[1])).isFalse();
        assertThat(h.group("g").hasMember(ids[0])).isTrue();
        assertThat(h.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);
    }

    @Test
    void shouldDropNewMemberParkedLongerThanNewMemberJoinTimeout() {
        GroupHarness h = new GroupHarness(GroupHarness.config().withNewMemberJoinTimeoutMs(20_000));
        String[] ids = stableGroupOfTwo(h, "g");
        // Long rebalance timeout on the leader so the join phase outlives the new member's timeout.
        CompletableFuture<JoinGroupResponse> newcomer = h.joinNew("g", "range");
        assertThat(newcomer).isNotDone();
        h.advance(9_000);
        h.heartbeat("g", 2, ids[0]);
        h.heartbeat("g", 2, ids[1]);
        h.advance(9_000);
        h.heartbeat("g", 2, ids[0]);
        h.heartbeat("g", 2, ids[1]);
        h.advance(2_000);
        assertThat(error(done(newcomer))).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void shouldLeaveSingleMemberBeforeV3() {
        GroupHarness h = new GroupHarness();
        String[] ids = stableGroupOfTwo(h, "g");
        LeaveGroupResponse r = h.leave("g", ids[1], 1);
        assertThat(Errors.forCode(r.errorCode())).isEqualTo(Errors.NONE);
        assertThat(h.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(Errors.forCode(h.leave("g", "ghost", 2).errorCode())).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(Errors.forCode(h.leave("other", "ghost", 0).errorCode())).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        LeaveGroupResponse unknownGroup = h.leaveBatch("other", new LeaveGroupRequest.MemberIdentity().memberId("ghost"));
        assertThat(Errors.forCode(unknownGroup.errorCode())).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        LeaveGroupResponse last = h.leave("g", ids[0], 2);
        assertThat(Errors.forCode(last.errorCode())).isEqualTo(Errors.NONE);
        assertThat(h.state("g")).isEqualTo(GroupState.EMPTY);
    }

    @Test
    void shouldLeaveBatchWithPerMemberErrors() {
        GroupHarness h = new GroupHarness();
        String[] ids = stableGroupOfTwo(h, "g");
        LeaveGroupResponse r = h.leaveBatch("g",
                new LeaveGroupRequest.MemberIdentity().memberId(ids[0]),
                new LeaveGroupRequest.MemberIdentity().memberId("ghost"),
                new LeaveGroupRequest.MemberIdentity().memberId("").groupInstanceId("no-such-instance"),
                new LeaveGroupRequest.MemberIdentity().memberId(ids[1]));
        assertThat(Errors.forCode(r.errorCode())).isEqualTo(Errors.NONE);
        assertThat(r.members()).extracting(m -> Errors.forCode(m.errorCode()))
                .containsExactly(Errors.NONE, Errors.UNKNOWN_MEMBER_ID, Errors.UNKNOWN_MEMBER_ID, Errors.NONE);
        assertThat(h.state("g")).isEqualTo(GroupState.EMPTY);
    }

    @Test
    void shouldAnswerParkedJoinOfLeavingMemberAndCompleteJoinWithoutIt() {
        GroupHarness h = new GroupHarness();
        String[] ids = stableGroupOfTwo(h, "g");
        CompletableFuture<JoinGroupResponse> l = h.join("g", ids[0], "range");
        h.leave("g", ids[1], 2);
        JoinGroupResponse r = done(l);
        assertThat(r.generationId()).isEqualTo(3);
        assertThat(r.members()).hasSize(1);
    }

    @Test
    void shouldRejectJoinsBeyondMaxGroupSize() {
        GroupHarness h = new GroupHarness(GroupHarness.config().withMaxGroupSize(2));
        String[] ids = stableGroupOfTwo(h, "g");
        JoinGroupResponse third = done(h.join("g", "", "range"));
        assertThat(error(third)).isEqualTo(Errors.GROUP_MAX_SIZE_REACHED);
        assertThat(third.memberId()).isEmpty();
        // While rebalancing, the members already parked fill the group first.
        CompletableFuture<JoinGroupResponse> leader = h.join("g", ids[0], "range", "roundrobin");
        assertThat(h.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);
        JoinGroupResponse pending = done(h.join("g", "", "range"));
        assertThat(error(pending)).as("the MEMBER_ID_REQUIRED round trip is still allowed").isEqualTo(Errors.MEMBER_ID_REQUIRED);
        CompletableFuture<JoinGroupResponse> follower = h.join("g", ids[1], "range");
        assertThat(leader).as("waits for the pending member").isNotDone();
        assertThat(error(done(h.join("g", pending.memberId(), "range")))).isEqualTo(Errors.GROUP_MAX_SIZE_REACHED);
        assertThat(h.group("g").pendingMembers).isEmpty();
        assertThat(done(leader).generationId()).isEqualTo(3);
        assertThat(done(follower).generationId()).isEqualTo(3);
    }

    // ------------------------------------------------------------------ static membership

    @Test
    void shouldGiveRestartedStaticMemberItsAssignmentWithoutRebalance() {
        GroupHarness h = new GroupHarness();
        JoinGroupResponse a = done(h.joinStatic("g", "", "inst-a", "range"));
        assertThat(error(a)).isEqualTo(Errors.NONE); // no MEMBER_ID_REQUIRED for static members
        assertThat(a.memberId()).startsWith("inst-a-");
        CompletableFuture<JoinGroupResponse> b = h.joinStatic("g", "", "inst-b", "range");
        JoinGroupResponse a2 = done(h.joinStatic("g", a.memberId(), "inst-a", "range"));
        JoinGroupResponse b2 = done(b);
        assertThat(a2.generationId()).isEqualTo(2);
        CompletableFuture<SyncGroupResponse> bs = h.syncStatic("g", 2, b2.memberId(), "inst-b");
        done(h.syncStatic("g", 2, a.memberId(), "inst-a", a.memberId(), "LA", b2.memberId(), "LB"));
        assertThat(text(done(bs).assignment())).isEqualTo("LB");
        assertThat(h.state("g")).isEqualTo(GroupState.STABLE);
        int records = h.log.size();

        // inst-b restarts: unknown member id, same instance id.
        JoinGroupResponse b3 = done(h.joinStatic("g", "", "inst-b", "range"));
        assertThat(error(b3)).isEqualTo(Errors.NONE);
        assertThat(b3.memberId()).isNotEqualTo(b2.memberId());
        assertThat(b3.generationId()).isEqualTo(2);
        assertThat(b3.skipAssignment()).isFalse();
        assertThat(h.state("g")).isEqualTo(GroupState.STABLE);
        assertThat(h.log.size()).as("replacement persisted").isEqualTo(records + 1);
        assertThat(text(done(h.syncStatic("g", 2, b3.memberId(), "inst-b")).assignment())).isEqualTo("LB");

        // The old incarnation is fenced everywhere.
        assertThat(h.heartbeat("g", 2, b2.memberId(), "inst-b")).isEqualTo(Errors.FENCED_INSTANCE_ID);
        assertThat(error(done(h.syncStatic("g", 2, b2.memberId(), "inst-b")))).isEqualTo(Errors.FENCED_INSTANCE_ID);
        assertThat(error(done(h.joinStatic("g", b2.memberId(), "inst-b", "range")))).isEqualTo(Errors.FENCED_INSTANCE_ID);
        assertThat(h.commitError("g", 2, b2.memberId(), 8)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(Errors.forCode(done(h.commit("g", 2, b2.memberId(), "inst-b", 8, "t", 0, 1, "")).topics()
                .get(0).partitions().get(0).errorCode())).isEqualTo(Errors.FENCED_INSTANCE_ID);
    }

    @Test
    void shouldTellRestartedStaticLeaderToSkipAssignment() {
        GroupHarness h = new GroupHarness();
        JoinGroupResponse a = done(h.joinStatic("g", "", "inst-a", "range"));
        done(h.syncStatic("g", 1, a.memberId(), "inst-a", a.memberId(), "LA"));
        JoinGroupResponse a2 = done(h.joinStatic("g", "", "inst-a", "range"));
        assertThat(a2.leader()).isEqualTo(a2.memberId());
        assertThat(a2.skipAssignment()).isTrue();
        assertThat(a2.members()).extracting(JoinGroupResponse.JoinGroupResponseMember::groupInstanceId).containsExactly("inst-a");
        assertThat(h.state("g")).isEqualTo(GroupState.STABLE);
        assertThat(text(done(h.syncStatic("g", 1, a2.memberId(), "inst-a", a2.memberId(), "IGNORED")).assignment())).isEqualTo("LA");

        // Before v9 there is no skip_assignment: the leader gets no member list instead.
        JoinGroupResponse a3 = done(h.join(GroupHarness.joinRequest("g", "", "inst-a", "range"), 8));
        assertThat(a3.leader()).isEqualTo(a3.memberId());
        assertThat(a3.skipAssignment()).isFalse();
        assertThat(a3.members()).isEmpty();
        assertThat(a3.generationId()).isEqualTo(1);
    }

    @Test
    void shouldRebalanceWhenRestartedStaticMemberChangesSelectedProtocol() {
        GroupHarness h = new GroupHarness();
        JoinGroupResponse a = done(h.joinStatic("g", "", "inst-a", "range", "roundrobin"));
        done(h.syncStatic("g", 1, a.memberId(), "inst-a", a.memberId(), "LA"));
        CompletableFuture<JoinGroupResponse> a2 = h.joinStatic("g", "", "inst-a", "roundrobin", "range");
        JoinGroupResponse r = done(a2);
        assertThat(r.generationId()).isEqualTo(2);
        assertThat(r.protocolName()).isEqualTo("roundrobin");
    }

    @Test
    void shouldFenceParkedJoinOfReplacedStaticMember() {
        GroupHarness h = new GroupHarness();
        JoinGroupResponse a = done(h.joinStatic("g", "", "inst-a", "range"));
        done(h.syncStatic("g", 1, a.memberId(), "inst-a", a.memberId(), "A"));
        CompletableFuture<JoinGroupResponse> bj = h.joinNew("g", "range");
        CompletableFuture<JoinGroupResponse> aj = h.joinStatic("g", a.memberId(), "inst-a", "range");
        String b = done(bj).memberId();
        done(aj);
        CompletableFuture<SyncGroupResponse> bs = h.sync("g", 2, b);
        done(h.syncStatic("g", 2, a.memberId(), "inst-a", a.memberId(), "A", b, "B"));
        done(bs);
        // The leader (inst-a) rejoins and is parked while b has not rejoined yet...
        CompletableFuture<JoinGroupResponse> parked = h.joinStatic("g", a.memberId(), "inst-a", "range");
        assertThat(parked).isNotDone();
        // ...then a new incarnation of inst-a shows up.
        CompletableFuture<JoinGroupResponse> fresh = h.joinStatic("g", "", "inst-a", "range");
        assertThat(error(done(parked))).isEqualTo(Errors.FENCED_INSTANCE_ID);
        assertThat(fresh).isNotDone();
        done(h.join("g", b, "range"));
        JoinGroupResponse r = done(fresh);
        assertThat(r.generationId()).isEqualTo(3);
        assertThat(r.memberId()).isNotEqualTo(a.memberId()).startsWith("inst-a-");
    }

    @Test
    void shouldKeepStaticMembersThatMissRebalanceAndLeaveByInstanceId() {
        GroupHarness h = new GroupHarness();
        JoinGroupResponse a = done(h.joinStatic("g", "", "inst-a", "range"));
        CompletableFuture<JoinGroupResponse> bj = h.joinStatic("g", "", "inst-b", "range");
        JoinGroupResponse a2 = done(h.joinStatic("g", a.memberId(), "inst-a", "range"));
        String b = done(bj).memberId();
        CompletableFuture<SyncGroupResponse> bs = h.syncStatic("g", 2, b, "inst-b");
        done(h.syncStatic("g", 2, a2.memberId(), "inst-a", a2.memberId(), "A", b, "B"));
        done(bs);
        // inst-b changes metadata, inst-a never rejoins but keeps heartbeating.
        CompletableFuture<JoinGroupResponse> b2 = h.joinStatic("g", b, "inst-b", "range", "roundrobin");
        for (int t = 0; t < REBALANCE; t += 5_000) {
            h.advance(5_000);
            if (!b2.isDone()) h.heartbeat("g", 2, a.memberId(), "inst-a");
        }
        assertThat(done(b2).generationId()).isEqualTo(3);
        assertThat(h.group("g").hasMember(a.memberId())).as("static member kept").isTrue();

        LeaveGroupResponse wrong = h.leaveBatch("g", new LeaveGroupRequest.MemberIdentity().memberId("bogus").groupInstanceId("inst-a"));
        assertThat(Errors.forCode(wrong.members().get(0).errorCode())).isEqualTo(Errors.FENCED_INSTANCE_ID);
        LeaveGroupResponse ok = h.leaveBatch("g", new LeaveGroupRequest.MemberIdentity().memberId("").groupInstanceId("inst-a"));
        assertThat(Errors.forCode(ok.members().get(0).errorCode())).isEqualTo(Errors.NONE);
        assertThat(h.group("g").staticMembers).doesNotContainKey("inst-a");
    }

    @Test
    void shouldExpireStaticMemberAfterSessionTimeout() {
        GroupHarness h = new GroupHarness();
        JoinGroupResponse a = done(h.joinStatic("g", "", "inst-a", "range"));
        done(h.syncStatic("g", 1, a.memberId(), "inst-a", a.memberId(), "LA"));
        h.advance(SESSION);
        assertThat(h.state("g")).isEqualTo(GroupState.EMPTY);
        assertThat(h.group("g").staticMembers).isEmpty();
    }

    @Test
    void shouldAnswerUnknownServerErrorWhenHandlingFailsAndKeepServing() {
        GroupHarness h = new GroupHarness();
        JoinGroupRequest broken = GroupHarness.joinRequest("g", "", null, "range").protocols(null);
        assertThat(error(done(h.join(broken, 9)))).isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
        assertThat(error(done(h.join("g", "", "range")))).isEqualTo(Errors.MEMBER_ID_REQUIRED);
    }

    @Test
    void shouldPutMembersArrivingTogetherIntoOneGenerationEvenWithoutInitialDelay() {
        GroupHarness h = new GroupHarness(); // group.initial.rebalance.delay.ms = 0
        CompletableFuture<JoinGroupResponse> a = h.coordinator.joinGroup(GroupHarness.joinRequest("g", "", null, "range"), (short) 3, "a", "h");
        CompletableFuture<JoinGroupResponse> b = h.coordinator.joinGroup(GroupHarness.joinRequest("g", "", null, "range"), (short) 3, "b", "h");
        h.run();
        assertThat(done(a).generationId()).isEqualTo(1);
        assertThat(done(b).generationId()).isEqualTo(1);
        assertThat(done(a).members().size() + done(b).members().size()).isEqualTo(2);
    }
}
