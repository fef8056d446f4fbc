package io.brook.coordinator.group;

import static io.brook.coordinator.group.GroupHarness.done;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.message.SyncGroupResponse;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member that sends a JoinGroup or SyncGroup while its previous one still waits (kafkajs does,
 * when several of its fetchers see the same metadata change at once) gets the same answer to
 * both, as from a broker that reads a connection's requests one at a time; before, the earlier
 * one was answered UNKNOWN_MEMBER_ID, the client joined anew under another member id, and the
 * group waited a whole session for the abandoned one.
 */
@Timeout(10)
class PipelinedGroupRequestsTest {

    @Test
    void anEarlierParkedJoinGetsTheAnswerOfTheLaterOne() {
        GroupHarness h = new GroupHarness();
        String[] ids = GroupMembershipTest.stableGroupOfTwo(h, "g");
        String leader = ids[0];
        String follower = ids[1];

        CompletableFuture<JoinGroupResponse> first = h.join("g", leader, "range");
        CompletableFuture<JoinGroupResponse> second = h.join("g", leader, "range");
        assertThat(first).as("the follower has not rejoined yet").isNotDone();
        JoinGroupResponse f = done(h.join("g", follower, "range"));

        JoinGroupResponse a = done(first);
        JoinGroupResponse b = done(second);
        assertThat(Errors.forCode(a.errorCode())).isEqualTo(Errors.NONE);
        assertThat(a.memberId()).isEqualTo(leader);
        assertThat(a.generationId()).isEqualTo(3).isEqualTo(b.generationId()).isEqualTo(f.generationId());
        assertThat(a.members()).hasSize(2);
        assertThat(b.members()).hasSize(2);
        assertThat(h.group("g").members).as("no member left behind").hasSize(2);
        assertThat(h.state("g")).isEqualTo(GroupState.COMPLETING_REBALANCE);
    }

    @Test
    void anEarlierParkedSyncGetsTheAssignmentOfTheLaterOne() {
        GroupHarness h = new GroupHarness();
        String[] ids = GroupMembershipTest.stableGroupOfTwo(h, "g");
        String leader = ids[0];
        String follower = ids[1];
        CompletableFuture<JoinGroupResponse> leaderJoin = h.join("g", leader, "range");
        done(h.join("g", follower, "range"));
        done(leaderJoin);

        CompletableFuture<SyncGroupResponse> first = h.sync("g", 3, follower);
        CompletableFuture<SyncGroupResponse> second = h.sync("g", 3, follower);
        assertThat(first).as("the leader has not synced yet").isNotDone();
        done(h.sync("g", 3, leader, leader, "L", follower, "F"));

        for (SyncGroupResponse r : new SyncGroupResponse[]{done(first), done(second)}) {
            assertThat(Errors.forCode(r.errorCode())).isEqualTo(Errors.NONE);
            assertThat(new String(r.assignment(), StandardCharsets.UTF_8)).isEqualTo("F");
        }
        assertThat(h.state("g")).isEqualTo(GroupState.STABLE);
    }
}
