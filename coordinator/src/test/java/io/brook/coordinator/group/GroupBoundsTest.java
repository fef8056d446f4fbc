package io.brook.coordinator.group;

import static io.brook.coordinator.group.GroupHarness.done;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.brook.wire.message.DeleteGroupsRequest;
import io.brook.wire.message.DeleteGroupsResponse;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;

/** What a client's invented group and member ids may cost: bounded counts, with Kafka's errors. */
class GroupBoundsTest {

    private static Errors error(JoinGroupResponse r) {
        return Errors.forCode(r.errorCode());
    }

    @Test
    void shouldBoundGroupsAndMembersByDefault() {
        GroupCoordinatorConfig c = GroupCoordinatorConfig.defaults();
        assertThat(c.maxGroupSize()).isEqualTo(10_000);
        assertThat(c.maxGroups()).isEqualTo(100_000);
        assertThat(GroupCoordinatorConfig.fromConfigs(Map.of("brook.group.max.groups", "5")).maxGroups()).isEqualTo(5);
        assertThat(GroupCoordinatorConfig.CONFIG_NAMES).contains("brook.group.max.groups", "group.max.size");
    }

    @Test
    void shouldRefuseNewGroupsBeyondTheBoundWithARetriableError() {
        GroupHarness h = new GroupHarness(GroupHarness.config().withMaxGroups(2));
        assertThat(error(done(h.join("g1", "", "range")))).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        assertThat(h.commitError("g2", -1, "", 8)).isEqualTo(Errors.NONE);

        assertThat(error(done(h.join("g3", "", "range")))).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(h.commitError("g4", -1, "", 8)).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(h.group("g3")).isNull();
        assertThat(h.group("g4")).isNull();

        // the groups that exist keep working, and a deleted one makes room
        assertThat(h.commitError("g2", -1, "", 8)).isEqualTo(Errors.NONE);
        CompletableFuture<DeleteGroupsResponse> f = h.coordinator.deleteGroups(
                new DeleteGroupsRequest().groupsNames(new ArrayList<>(List.of("g2"))), (short) 2);
        h.run();
        assertThat(done(f).results().get(0).errorCode()).isZero();
        assertThat(error(done(h.join("g3", "", "range")))).isEqualTo(Errors.MEMBER_ID_REQUIRED);
    }

    @Test
    void shouldBoundUnusedMemberIdsByTheGroupSizeDroppingTheOldest() {
        GroupHarness h = new GroupHarness(GroupHarness.config().withMaxGroupSize(3));
        List<String> handedOut = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            JoinGroupResponse r = done(h.join("g", "", "range"));
            assertThat(error(r)).isEqualTo(Errors.MEMBER_ID_REQUIRED);
            handedOut.add(r.memberId());
        }
        assertThat(h.group("g").pendingMembers).containsExactlyElementsOf(handedOut.subList(2, 5));
        assertThat(error(done(h.join("g", handedOut.get(0), "range")))).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        CompletableFuture<JoinGroupResponse> newest = h.join("g", handedOut.get(4), "range");
        // the other two ids still count: the join waits for them (or for their session timeout)
        h.advance(GroupHarness.SESSION + 1);
        assertThat(error(done(newest))).isEqualTo(Errors.NONE);
        assertThat(h.group("g").pendingMembers).isEmpty();
    }
}
