package io.brook.coordinator.group;

import static io.brook.coordinator.group.GroupHarness.done;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.brook.wire.message.DeleteGroupsRequest;
import io.brook.wire.message.DeleteGroupsResponse;
import io.brook.wire.message.DescribeGroupsRequest;
import io.brook.wire.message.DescribeGroupsResponse;
import io.brook.wire.message.ListGroupsRequest;
import io.brook.wire.message.ListGroupsResponse;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** DescribeGroups, ListGroups and DeleteGroups. */
@Timeout(10)
class GroupAdminTest {

    // ------------------------------------------------------------------ Describe / List

    @Test
    void shouldDescribeGroupsWithExactStateStrings() {
        GroupHarness h = new GroupHarness();
        String id = h.stableConsumer("g", "t");
        done(h.commit("simple", -1, "", null, 8, "t", 0, 1, ""));
        CompletableFuture<DescribeGroupsResponse> f = h.coordinator.describeGroups(
                new DescribeGroupsRequest().groups(new ArrayList<>(List.of("g", "simple", "missing"))), (short) 5);
        h.run();
        List<DescribeGroupsResponse.DescribedGroup> groups = done(f).groups();
        assertThat(groups).extracting(DescribeGroupsResponse.DescribedGroup::groupState).containsExactly("Stable", "Empty", "Dead");
        assertThat(groups.get(0).protocolType()).isEqualTo("consumer");
        assertThat(groups.get(0).protocolData()).isEqualTo("range");
        assertThat(groups.get(0).members()).singleElement().satisfies(m -> {
            assertThat(m.memberId()).isEqualTo(id);
            assertThat(m.clientId()).isEqualTo("client");
            assertThat(m.clientHost()).isEqualTo("/127.0.0.1");
            assertThat(new String(m.memberAssignment())).isEqualTo("assignment");
            assertThat(ConsumerSubscription.topics(m.memberMetadata())).containsExactly("t");
        });
        assertThat(groups.get(1).protocolType()).isEmpty();
        assertThat(Errors.forCode(groups.get(2).errorCode())).isEqualTo(Errors.NONE);

        assertThat(groups.get(0).authorizedOperations()).as("not asked for").isEqualTo(Integer.MIN_VALUE);
        CompletableFuture<DescribeGroupsResponse> withOps = h.coordinator.describeGroups(new DescribeGroupsRequest()
                .groups(new ArrayList<>(List.of("g"))).includeAuthorizedOperations(true), (short) 5);
        h.run();
        assertThat(done(withOps).groups().get(0).authorizedOperations())
                .isEqualTo((1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11));

        CompletableFuture<DescribeGroupsResponse> v6 = h.coordinator.describeGroups(
                new DescribeGroupsRequest().groups(new ArrayList<>(List.of("missing"))), (short) 6);
        h.run();
        assertThat(Errors.forCode(done(v6).groups().get(0).errorCode())).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        assertThat(done(v6).groups().get(0).errorMessage()).isNotNull();
    }

    @Test
    void shouldHideMemberMetadataWhenNotStable() {
        GroupHarness h = new GroupHarness();
        done(h.joinNew("g", "range"));
        CompletableFuture<DescribeGroupsResponse> f = h.coordinator.describeGroups(
                new DescribeGroupsRequest().groups(new ArrayList<>(List.of("g"))), (short) 5);
        h.run();
        DescribeGroupsResponse.DescribedGroup g = done(f).groups().get(0);
        assertThat(g.groupState()).isEqualTo("CompletingRebalance");
        assertThat(g.protocolData()).isEmpty();
        assertThat(g.members().get(0).memberMetadata()).isEmpty();
    }

    @Test
    void shouldListGroupsWithStateAndTypeFilters() {
        GroupHarness h = new GroupHarness();
        h.stableConsumer("stable", "t");
        done(h.commit("simple", -1, "", null, 8, "t", 0, 1, ""));
        assertThat(list(h, List.of(), List.of(), 5)).extracting(ListGroupsResponse.ListedGroup::groupId).containsExactly("simple", "stable");
        List<ListGroupsResponse.ListedGroup> all = list(h, List.of(), List.of(), 5);
        assertThat(all).extracting(ListGroupsResponse.ListedGroup::groupState).containsExactly("Empty", "Stable");
        assertThat(all).extracting(ListGroupsResponse.ListedGroup::protocolType).containsExactly("", "consumer");
        assertThat(all).extracting(ListGroupsResponse.ListedGroup::groupType).containsOnly("classic");
        assertThat(list(h, List.of("stable"), List.of(), 4)).extracting(ListGroupsResponse.ListedGroup::groupId).containsExactly("stable");
        assertThat(list(h, List.of("Empty", "Dead"), List.of(), 4)).extracting(ListGroupsResponse.ListedGroup::groupId).containsExactly("simple");
        assertThat(list(h, List.of(), List.of("consumer"), 5)).isEmpty();
        assertThat(list(h, List.of(), List.of("Classic"), 5)).hasSize(2);
        // Filters are not part of older versions.
        assertThat(list(h, List.of("Dead"), List.of("consumer"), 3)).hasSize(2);
    }

    private static List<ListGroupsResponse.ListedGroup> list(GroupHarness h, List<String> states, List<String> types, int version) {
        CompletableFuture<ListGroupsResponse> f = h.coordinator.listGroups(new ListGroupsRequest()
                .statesFilter(new ArrayList<>(states)).typesFilter(new ArrayList<>(types)), (short) version);
        h.run();
        return done(f).groups();
    }

    // ------------------------------------------------------------------ DeleteGroups / OffsetDelete

    @Test
    void shouldDeleteOnlyEmptyGroups() {
        GroupHarness h = new GroupHarness();
        h.stableConsumer("busy", "t");
        done(h.commit("idle", -1, "", null, 8, "t", 0, 7, ""));
        CompletableFuture<DeleteGroupsResponse> f = h.coordinator.deleteGroups(
                new DeleteGroupsRequest().groupsNames(new ArrayList<>(List.of("busy", "idle", "missing"))), (short) 2);
        h.run();
        assertThat(done(f).results()).extracting(r -> r.groupId() + "=" + Errors.forCode(r.errorCode()))
                .containsExactly("busy=NON_EMPTY_GROUP", "idle=NONE", "missing=GROUP_ID_NOT_FOUND");
        assertThat(h.group("idle")).isNull();
        assertThat(h.committed("idle", "t", 0)).isEqualTo(-1);
    }

    @Test
    void shouldTreatGroupAsDeadWhileItsDeletionIsBeingWritten() {
        GroupHarness h = new GroupHarness();
        done(h.commit("g", -1, "", null, 8, "t", 0, 5, ""));
        h.log.holdAppends(true);
        CompletableFuture<DeleteGroupsResponse> del = h.coordinator.deleteGroups(
                new DeleteGroupsRequest().groupsNames(new ArrayList<>(List.of("g"))), (short) 2);
        h.run();
        assertThat(del).isNotDone();
        assertThat(h.state("g")).isEqualTo(GroupState.DEAD);
        assertThat(Errors.forCode(done(h.join("g", "", "range")).errorCode())).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(h.heartbeat("g", 0, "m")).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(h.commitError("g", -1, "", 8)).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(list(h, List.of(), List.of(), 5)).isEmpty();
        CompletableFuture<DescribeGroupsResponse> d = h.coordinator.describeGroups(
                new DescribeGroupsRequest().groups(new ArrayList<>(List.of("g"))), (short) 5);
        h.run();
        assertThat(done(d).groups().get(0).groupState()).isEqualTo("Dead");
        h.log.releaseHeld();
        h.run();
        assertThat(Errors.forCode(done(del).results().get(0).errorCode())).isEqualTo(Errors.NONE);
        assertThat(h.group("g")).isNull();
    }

    @Test
    void shouldKeepGroupWhenItsDeletionCannotBeWritten() {
        GroupHarness h = new GroupHarness();
        done(h.commit("g", -1, "", null, 8, "t", 0, 5, ""));
        h.log.failAppends(true);
        CompletableFuture<DeleteGroupsResponse> del = h.coordinator.deleteGroups(
                new DeleteGroupsRequest().groupsNames(new ArrayList<>(List.of("g"))), (short) 2);
        h.run();
        assertThat(Errors.forCode(done(del).results().get(0).errorCode())).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(h.state("g")).isEqualTo(GroupState.EMPTY);
        h.log.failAppends(false);
        assertThat(h.committed("g", "t", 0)).isEqualTo(5);
    }
}
