package io.brook.coordinator.group;

import static io.brook.coordinator.group.GroupHarness.done;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import io.brook.wire.message.ConsumerGroupDescribeRequest;
import io.brook.wire.message.ConsumerGroupDescribeResponse;
import io.brook.wire.message.ConsumerGroupHeartbeatRequest;
import io.brook.wire.message.ConsumerGroupHeartbeatResponse;
import io.brook.wire.message.DeleteGroupsRequest;
import io.brook.wire.message.DeleteGroupsResponse;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.message.ListGroupsRequest;
import io.brook.wire.message.ListGroupsResponse;
import io.brook.wire.message.OffsetCommitResponse;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Consumer groups of the new consumer protocol (KIP-848), driven through ConsumerGroupHeartbeat as
 * Kafka's consumer drives them. The first member gets every partition; when members come, leave,
 * go silent or hold on to partitions too long, partitions move to the others, and a partition is
 * handed to a member only once the member that had it has said it gave it up, so two members never
 * hold the same partition. Member epochs, static members, bad requests and full groups are answered
 * with Kafka's errors; subscriptions follow topics that appear or grow, and patterns; the range
 * assignor can be asked for. The group also behaves as Kafka's towards ListGroups,
 * ConsumerGroupDescribe, DeleteGroups, offset commits and fetches, and classic members.
 */
@Timeout(10)
class ConsumerGroupHeartbeatTest {

    private static final String GROUP = "g";
    private static final int SESSION_MS = 10_000;
    private static final int HEARTBEAT_MS = 1_000;
    private static final int REBALANCE_MS = 60_000;

    private FakeConsumerGroupTopics topics;
    private GroupHarness h;

    /** A consumer as Kafka's behaves: it reports what it owns and takes what it is given. */
    private final class Client {
        final String memberId;
        final String instanceId;
        int epoch;
        Map<UUID, Set<Integer>> owned = Map.of();

        Client(String memberId, String instanceId) {
            this.memberId = memberId;
            this.instanceId = instanceId;
        }

        ConsumerGroupHeartbeatResponse join(ConsumerGroupHeartbeatRequest request) {
            return apply(send(request.memberId(memberId).instanceId(instanceId)));
        }

        ConsumerGroupHeartbeatResponse join(String... topicNames) {
            return join(joinRequest(memberId, topicNames));
        }

        /** A regular heartbeat: its epoch and what it owns now. */
        ConsumerGroupHeartbeatResponse heartbeat() {
            return apply(send(request().topicPartitions(owned(owned))));
        }

        ConsumerGroupHeartbeatRequest request() {
            return new ConsumerGroupHeartbeatRequest().groupId(GROUP).memberId(memberId).instanceId(instanceId).memberEpoch(epoch);
        }

        ConsumerGroupHeartbeatResponse leave(int leaveEpoch) {
            ConsumerGroupHeartbeatResponse r = send(request().memberEpoch(leaveEpoch));
            assertThat(error(r)).isEqualTo(Errors.NONE);
            assertThat(r.memberEpoch()).isEqualTo(leaveEpoch);
            owned = Map.of();
            return r;
        }

        private ConsumerGroupHeartbeatResponse apply(ConsumerGroupHeartbeatResponse r) {
            assertThat(error(r)).as("%s: %s", memberId, r.errorMessage()).isEqualTo(Errors.NONE);
            assertThat(r.heartbeatIntervalMs()).isEqualTo(HEARTBEAT_MS);
            epoch = r.memberEpoch();
            if (r.assignment() != null) owned = assigned(r.assignment());
            return r;
        }
    }

    @BeforeEach
    void setUp() {
        start(100);
    }

    @AfterEach
    void noTaskFailed() {
        assertThat(h.coordinator.taskFailures()).as("requests or timers that threw").isZero();
    }

    private void start(int maxSize) {
        topics = new FakeConsumerGroupTopics();
        h = new GroupHarness(config(maxSize), topics);
    }

    private static GroupCoordinatorConfig config(int maxSize) {
        return GroupHarness.config().withConsumerGroups(
                new ConsumerGroupConfig(SESSION_MS, HEARTBEAT_MS, maxSize, List.of("uniform", "range")));
    }

    /** A new coordinator over the same log and clock, as after a restart of the broker. */
    private void restart() {
        h.coordinator.close();
        h = new GroupHarness(config(100), h.log, h.clock, topics);
    }

    // ------------------------------------------------------------------ restarts

    @Test
    void membersCarryOnAfterARestartWithTheirEpochsAndPartitions() {
        UUID orders = topics.create("orders", 4);
        Client a = new Client("a", null);
        Client b = new Client("b", "instance-b");
        a.join("orders");
        b.join("orders");
        settle(a, b);
        ConsumerGroupDescribeResponse.DescribedGroup before = describe();
        Map<UUID, Set<Integer>> aHeld = a.owned;
        Map<UUID, Set<Integer>> bHeld = b.owned;

        restart();
        ConsumerGroupDescribeResponse.DescribedGroup after = describe();
        assertThat(after.groupEpoch()).isEqualTo(before.groupEpoch());
        assertThat(after.assignmentEpoch()).isEqualTo(before.assignmentEpoch());
        assertThat(after.groupState()).isEqualTo("Stable");
        assertThat(after.members()).hasSize(2);
        int epoch = a.epoch;
        a.heartbeat();
        b.heartbeat();
        assertThat(a.epoch).as("no rebalance").isEqualTo(epoch);
        assertThat(a.owned).isEqualTo(aHeld);
        assertThat(b.owned).isEqualTo(bHeld);
        assertThat(describe().groupEpoch()).isEqualTo(before.groupEpoch());
        assertThat(h.commitError(GROUP, a.epoch, "a", 9)).isEqualTo(Errors.NONE);

        // the session timers run again from the restart: b stays silent and goes, a gets everything
        h.advance(SESSION_MS / 2);
        a.heartbeat();
        h.advance(SESSION_MS / 2 + 1);
        for (int i = 0; i < 3; i++) a.heartbeat();
        assertThat(a.owned).isEqualTo(Map.of(orders, Set.of(0, 1, 2, 3)));
        assertThat(describe().members()).extracting(ConsumerGroupDescribeResponse.Member::memberId).containsExactly("a");
    }

    @Test
    void aRevocationUnderWayAndALeaveSurviveARestart() {
        topics.create("orders", 4);
        Client a = new Client("a", null);
        a.join("orders");
        Client b = new Client("b", null);
        b.join("orders");
        a.heartbeat(); // told to give up two partitions
        assertThat(a.owned.values().iterator().next()).hasSize(2);

        restart();
        assertThat(b.heartbeat().assignment()).as("still held by a").isNull();
        a.heartbeat(); // a confirms the revocation
        b.heartbeat();
        settle(a, b);
        assertThat(b.owned.values().iterator().next()).hasSize(2);
        assertNoPartitionHeldTwice();

        b.leave(-1);
        a.leave(-1);
        restart();
        assertThat(describe().groupState()).isEqualTo("Empty");
        assertThat(deleteGroup()).isEqualTo(Errors.NONE);
        restart();
        assertThat(Errors.forCode(describe().errorCode())).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
    }

    // ------------------------------------------------------------------ joining and reconciling

    @Test
    void firstMemberGetsEveryPartitionAndTheGroupIsListedAndDescribed() {
        UUID orders = topics.create("orders", 4);
        Client a = new Client("a", null);
        ConsumerGroupHeartbeatResponse r = a.join("orders");
        assertThat(r.memberId()).isEqualTo("a");
        assertThat(r.memberEpoch()).isEqualTo(1);
        assertThat(a.owned).isEqualTo(Map.of(orders, Set.of(0, 1, 2, 3)));

        assertThat(listGroups()).singleElement().satisfies(g -> {
            assertThat(g.groupId()).isEqualTo(GROUP);
            assertThat(g.groupType()).isEqualTo("consumer");
            assertThat(g.protocolType()).isEqualTo("consumer");
            assertThat(g.groupState()).isEqualTo("Stable");
        });

        ConsumerGroupDescribeResponse.DescribedGroup g = describe();
        assertThat(Errors.forCode(g.errorCode())).isEqualTo(Errors.NONE);
        assertThat(g.groupState()).isEqualTo("Stable");
        assertThat(g.groupEpoch()).isEqualTo(1);
        assertThat(g.assignmentEpoch()).isEqualTo(1);
        assertThat(g.assignorName()).isEqualTo("uniform");
        assertThat(g.members()).singleElement().satisfies(m -> {
            assertThat(m.memberId()).isEqualTo("a");
            assertThat(m.memberEpoch()).isEqualTo(1);
            assertThat(m.clientId()).isEqualTo("client");
            assertThat(m.clientHost()).isEqualTo("/127.0.0.1");
            assertThat(m.subscribedTopicNames()).containsExactly("orders");
            assertThat(m.memberType()).isEqualTo((byte) 1);
            assertThat(m.assignment().topicPartitions()).singleElement().satisfies(tp -> {
                assertThat(tp.topicId()).isEqualTo(orders);
                assertThat(tp.topicName()).isEqualTo("orders");
                assertThat(tp.partitions()).containsExactlyInAnyOrder(0, 1, 2, 3);
            });
            assertThat(described(m.targetAssignment())).isEqualTo(described(m.assignment()));
        });
    }

    @Test
    void versionZeroJoinWithoutMemberIdGetsOneFromTheCoordinator() {
        topics.create("orders", 1);
        ConsumerGroupHeartbeatResponse r = send(joinRequest("", "orders"), 0);
        assertThat(error(r)).isEqualTo(Errors.NONE);
        assertThat(r.memberId()).isNotEmpty();
        assertThat(r.memberEpoch()).isEqualTo(1);
    }

    @Test
    void secondMemberGetsPartitionsOnlyAfterTheFirstRevokedThem() {
        UUID orders = topics.create("orders", 4);
        Client a = new Client("a", null);
        Client b = new Client("b", null);
        a.join("orders");

        ConsumerGroupHeartbeatResponse joined = b.join("orders");
        assertThat(joined.memberEpoch()).isEqualTo(2);
        assertThat(b.owned).as("everything is still a's").isEmpty();
        assertThat(describe().groupEpoch()).isEqualTo(2);
        assertNoPartitionHeldTwice();

        ConsumerGroupHeartbeatResponse revoke = a.heartbeat();
        assertThat(revoke.memberEpoch()).as("keeps its epoch while revoking").isEqualTo(1);
        assertThat(a.owned.get(orders)).hasSize(2);
        assertThat(describe().groupState()).isEqualTo("Reconciling");
        assertNoPartitionHeldTwice();

        ConsumerGroupHeartbeatResponse waiting = b.heartbeat();
        assertThat(waiting.assignment()).as("a has not confirmed yet").isNull();
        assertThat(b.owned).isEmpty();
        assertNoPartitionHeldTwice();

        assertThat(a.heartbeat().memberEpoch()).as("confirmed: next epoch").isEqualTo(2);
        assertNoPartitionHeldTwice();
        b.heartbeat();
        assertThat(b.epoch).isEqualTo(2);
        Set<Integer> rest = new TreeSet<>(Set.of(0, 1, 2, 3));
        rest.removeAll(a.owned.get(orders));
        assertThat(b.owned).isEqualTo(Map.of(orders, rest));
        assertThat(describe().groupState()).isEqualTo("Stable");
        assertNoPartitionHeldTwice();
    }

    @Test
    void leavingMemberPartitionsGoBackToTheOthers() {
        UUID orders = topics.create("orders", 4);
        Client a = new Client("a", null);
        Client b = new Client("b", null);
        a.join("orders");
        b.join("orders");
        settle(a, b);
        assertThat(b.owned.get(orders)).hasSize(2);

        b.leave(-1);
        assertThat(describe().members()).extracting(ConsumerGroupDescribeResponse.Member::memberId).containsExactly("a");
        settle(a);
        assertThat(a.owned).isEqualTo(Map.of(orders, Set.of(0, 1, 2, 3)));
    }

    @Test
    void silentMemberIsRemovedAfterTheSessionTimeout() {
        UUID orders = topics.create("orders", 4);
        Client a = new Client("a", null);
        Client b = new Client("b", null);
        a.join("orders");
        b.join("orders");
        settle(a, b);

        h.advance(SESSION_MS / 2 + 1);
        a.heartbeat();
        assertThat(describe().members()).hasSize(2);
        h.advance(SESSION_MS / 2 + 1);
        assertThat(describe().members()).extracting(ConsumerGroupDescribeResponse.Member::memberId).containsExactly("a");
        assertThat(error(send(b.request().topicPartitions(owned(b.owned))))).isEqualTo(Errors.UNKNOWN_MEMBER_ID);

        settle(a);
        assertThat(a.owned).isEqualTo(Map.of(orders, Set.of(0, 1, 2, 3)));
    }

    @Test
    void memberThatDoesNotRevokeWithinItsRebalanceTimeoutIsRemoved() {
        UUID orders = topics.create("orders", 4);
        Client a = new Client("a", null);
        Client b = new Client("b", null);
        a.join(joinRequest("a", "orders").rebalanceTimeoutMs(5_000));
        Map<UUID, Set<Integer>> everything = a.owned;
        b.join("orders");
        ConsumerGroupHeartbeatRequest stillOwnsAll = a.request().topicPartitions(owned(everything));
        assertThat(assigned(send(stillOwnsAll).assignment()).get(orders)).as("told to revoke half").hasSize(2);

        for (int i = 0; i < 2; i++) {
            h.advance(2_000);
            assertThat(error(send(stillOwnsAll))).isEqualTo(Errors.NONE);
            b.heartbeat();
            assertThat(b.owned).isEmpty();
        }
        h.advance(2_000);
        assertThat(error(send(stillOwnsAll))).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        b.heartbeat();
        assertThat(b.owned).isEqualTo(Map.of(orders, Set.of(0, 1, 2, 3)));
    }

    // ------------------------------------------------------------------ epochs and static members

    @Test
    void epochsAreCheckedAndAFencedMemberRejoinsWithEpochZero() {
        UUID orders = topics.create("orders", 2);
        Client a = new Client("a", null);
        a.join("orders");

        ConsumerGroupHeartbeatResponse ahead = send(a.request().memberEpoch(5));
        assertThat(error(ahead)).isEqualTo(Errors.FENCED_MEMBER_EPOCH);
        assertThat(ahead.errorMessage()).isNotEmpty();
        assertThat(error(send(a.request().memberId("nobody")))).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(error(send(a.request().memberEpoch(-1).memberId("nobody")))).isEqualTo(Errors.UNKNOWN_MEMBER_ID);

        ConsumerGroupHeartbeatResponse rejoined = a.join("orders");
        assertThat(rejoined.memberId()).isEqualTo("a");
        assertThat(rejoined.memberEpoch()).isPositive();
        assertThat(a.owned).isEqualTo(Map.of(orders, Set.of(0, 1)));
        int epoch = a.epoch;
        assertThat(describe().members()).singleElement().satisfies(m -> assertThat(m.memberEpoch()).isEqualTo(epoch));
        assertThat(a.heartbeat().memberEpoch()).isEqualTo(epoch);
    }

    @Test
    void staticMemberThatLeftKeepsItsPartitionsForItsNextIncarnation() {
        UUID orders = topics.create("orders", 4);
        Client a = new Client("a", "instance-a");
        Client b = new Client("b", null);
        a.join("orders");
        b.join("orders");
        settle(a, b);
        Map<UUID, Set<Integer>> reserved = a.owned;
        int groupEpoch = describe().groupEpoch();

        a.leave(-2);
        for (int i = 0; i < 3; i++) b.heartbeat();
        assertThat(b.owned.get(orders)).hasSize(2).doesNotContainAnyElementsOf(reserved.get(orders));
        assertThat(describe().groupEpoch()).as("no rebalance").isEqualTo(groupEpoch);

        Client a2 = new Client("a2", "instance-a");
        ConsumerGroupHeartbeatResponse back = a2.join("orders");
        assertThat(back.memberEpoch()).isEqualTo(groupEpoch);
        assertThat(a2.owned).isEqualTo(reserved);
        assertThat(describe().members()).extracting(ConsumerGroupDescribeResponse.Member::memberId)
                .containsExactlyInAnyOrder("a2", "b");
        assertThat(describe().groupEpoch()).isEqualTo(groupEpoch);
        assertNoPartitionHeldTwice();

        ConsumerGroupHeartbeatResponse second = send(joinRequest("a3", "orders").instanceId("instance-a"));
        assertThat(error(second)).isEqualTo(Errors.UNRELEASED_INSTANCE_ID);
        assertThat(error(send(a.request().memberEpoch(groupEpoch)))).as("the old incarnation").isEqualTo(Errors.FENCED_INSTANCE_ID);
    }

    @Test
    void staticMemberBackUnderTheSameIdKeepsItsPartitionsWithoutARebalance() {
        topics.create("orders", 4);
        Client a = new Client("a", "instance-a");
        Client b = new Client("b", null);
        a.join("orders");
        b.join("orders");
        settle(a, b);
        Map<UUID, Set<Integer>> held = a.owned;
        int groupEpoch = describe().groupEpoch();

        a.leave(-2);
        ConsumerGroupHeartbeatResponse back = a.join("orders");
        assertThat(error(back)).isEqualTo(Errors.NONE);
        assertThat(back.memberEpoch()).isEqualTo(groupEpoch);
        assertThat(a.owned).isEqualTo(held);
        assertThat(describe().groupEpoch()).as("nobody else moves").isEqualTo(groupEpoch);
        assertNoPartitionHeldTwice();
    }

    /** A pattern consumer joins with no topic names while nothing matches yet; Kafka accepts it (KAFKA-18095). */
    @Test
    void anEmptySubscriptionJoinsAndWaitsForTopics() {
        Client a = new Client("a", null);
        ConsumerGroupHeartbeatResponse joined = a.join(joinRequest("a"));
        assertThat(error(joined)).isEqualTo(Errors.NONE);
        assertThat(joined.memberEpoch()).isEqualTo(1);
        assertThat(a.owned).isEmpty();
        Client b = new Client("b", null);
        assertThat(error(b.join(joinRequest("b").subscribedTopicNames(null).subscribedTopicRegex("")))).isEqualTo(Errors.NONE);
    }

    // ------------------------------------------------------------------ refused requests

    @Test
    void invalidRequestsAreRefusedWithoutCreatingAGroup() {
        topics.create("orders", 1);
        assertRefused(joinRequest("a", "orders").groupId(""), Errors.INVALID_REQUEST);
        assertRefused(joinRequest("a", "orders").rebalanceTimeoutMs(-1), Errors.INVALID_REQUEST);
        assertRefused(joinRequest("a", "orders").topicPartitions(owned(Map.of(UUID.randomUUID(), Set.of(0)))), Errors.INVALID_REQUEST);
        assertRefused(joinRequest("a", "orders").topicPartitions(null), Errors.INVALID_REQUEST);
        assertRefused(joinRequest("a").subscribedTopicNames(null), Errors.INVALID_REQUEST);
        assertRefused(joinRequest("", "orders"), Errors.INVALID_REQUEST);
        assertRefused(joinRequest("a", "orders").memberEpoch(-3), Errors.INVALID_REQUEST);
        assertRefused(joinRequest("a", "orders").memberEpoch(-2), Errors.INVALID_REQUEST);
        assertRefused(joinRequest("a", "orders").serverAssignor("sticky"), Errors.UNSUPPORTED_ASSIGNOR);
        assertRefused(joinRequest("a").subscribedTopicNames(null).subscribedTopicRegex("orders-["), Errors.INVALID_REGULAR_EXPRESSION);
        assertThat(listGroups()).isEmpty();
    }

    @Test
    void fullGroupRefusesNewMembers() {
        start(2);
        topics.create("orders", 4);
        new Client("a", null).join("orders");
        Client b = new Client("b", null);
        b.join("orders");
        assertRefused(joinRequest("c", "orders"), Errors.GROUP_MAX_SIZE_REACHED);
        b.heartbeat();
        assertThat(describe().members()).hasSize(2);
    }

    // ------------------------------------------------------------------ classic groups

    /** No mixed groups: a consumer of the other protocol waits (a retriable error) until the members have left. */
    @Test
    void consumerAndClassicMembersDoNotShareAGroup() {
        topics.create("orders", 2);
        h.stableConsumer("classic", "orders");
        assertRefused(joinRequest("a", "orders").groupId("classic"), Errors.COORDINATOR_LOAD_IN_PROGRESS);
        String worker = done(h.join(GroupHarness.joinRequest("connect", "", null, "default").protocolType("connect"), 9)).memberId();
        done(h.join(GroupHarness.joinRequest("connect", worker, null, "default").protocolType("connect"), 9));
        assertRefused(joinRequest("a", "orders").groupId("connect"), Errors.GROUP_ID_NOT_FOUND);

        Client a = new Client("a", null);
        a.join("orders");
        JoinGroupResponse classicJoin = done(h.join(GROUP, "", "range"));
        assertThat(Errors.forCode(classicJoin.errorCode())).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);
        JoinGroupResponse connectJoin = done(h.join(GroupHarness.joinRequest(GROUP, "", null, "default").protocolType("connect"), 9));
        assertThat(Errors.forCode(connectJoin.errorCode())).isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);

        a.leave(-1);
        JoinGroupResponse joined = done(h.joinNew(GROUP, "range"));
        assertThat(Errors.forCode(joined.errorCode())).isEqualTo(Errors.NONE);
        assertThat(joined.generationId()).isEqualTo(1);
        assertThat(listGroups()).filteredOn(g -> g.groupId().equals(GROUP)).singleElement()
                .satisfies(g -> assertThat(g.groupType()).isEqualTo("classic"));
    }

    // ------------------------------------------------------------------ offsets and deletion

    @Test
    void offsetsAreCommittedAndFetchedByMembersAtTheirCurrentEpoch() {
        topics.create("orders", 1);
        Client a = new Client("a", null);
        a.join("orders");
        assertThat(h.commitError(GROUP, a.epoch, "a", 9)).isEqualTo(Errors.NONE);
        assertThat(h.commitError(GROUP, a.epoch + 1, "a", 9)).isEqualTo(Errors.STALE_MEMBER_EPOCH);
        assertThat(h.commitError(GROUP, a.epoch, "nobody", 9)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(h.commitError(GROUP, a.epoch, "a", 8)).isEqualTo(Errors.UNSUPPORTED_VERSION);
        assertThat(h.commitError(GROUP, -1, "", 9)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);

        assertThat(fetch("a", a.epoch)).satisfies(g -> {
            assertThat(Errors.forCode(g.errorCode())).isEqualTo(Errors.NONE);
            assertThat(g.topics().get(0).partitions().get(0).committedOffset()).isEqualTo(42);
        });
        assertThat(Errors.forCode(fetch("a", a.epoch - 1).errorCode())).isEqualTo(Errors.STALE_MEMBER_EPOCH);
        assertThat(Errors.forCode(fetch("nobody", a.epoch).errorCode())).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(Errors.forCode(fetch(null, -1).errorCode())).isEqualTo(Errors.NONE);

        a.leave(-1);
        assertThat(h.commitError(GROUP, -1, "", 9)).isEqualTo(Errors.NONE);
        assertThat(h.committed(GROUP, "t", 0)).isEqualTo(42);
    }

    @Test
    void groupWithMembersIsNotDeleted() {
        topics.create("orders", 1);
        Client a = new Client("a", null);
        a.join("orders");
        assertThat(deleteGroup()).isEqualTo(Errors.NON_EMPTY_GROUP);
        assertThat(describe().members()).hasSize(1);

        a.leave(-1);
        assertThat(deleteGroup()).isEqualTo(Errors.NONE);
        assertThat(Errors.forCode(describe().errorCode())).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
    }

    /** KIP-1251: a commit sent just before the member's epoch moved on is still accepted for what it holds. */
    @Test
    void aCommitWithTheEpochBeforeALaterMoveIsAcceptedForPartitionsStillHeld() {
        UUID orders = topics.create("orders", 4);
        topics.create("other", 1);
        Client a = new Client("a", null);
        a.join("orders");
        int before = a.epoch;
        Client b = new Client("b", null);
        b.join("orders");
        settle(a, b);
        assertThat(a.epoch).isGreaterThan(before);
        int kept = a.owned.get(orders).iterator().next();
        int given = b.owned.get(orders).iterator().next();
        assertThat(commit(before, "a", "orders", kept)).isEqualTo(Errors.NONE);
        assertThat(commit(before, "a", "orders", given)).isEqualTo(Errors.STALE_MEMBER_EPOCH);
        assertThat(commit(a.epoch + 1, "a", "orders", kept)).isEqualTo(Errors.STALE_MEMBER_EPOCH);
    }

    private Errors commit(int epoch, String memberId, String topic, int partition) {
        OffsetCommitResponse r = done(h.commit(GROUP, epoch, memberId, null, 9, topic, partition, 5, ""));
        return Errors.forCode(r.topics().get(0).partitions().get(0).errorCode());
    }

    // ------------------------------------------------------------------ subscriptions and assignors

    @Test
    void subscriptionFollowsTopicsThatAppearAndGrow() {
        Client a = new Client("a", null);
        a.join("later");
        assertThat(a.owned).isEmpty();
        assertThat(describe().groupEpoch()).isEqualTo(1);

        UUID later = topics.create("later", 2);
        a.heartbeat();
        assertThat(a.owned).isEqualTo(Map.of(later, Set.of(0, 1)));
        assertThat(describe().groupEpoch()).isEqualTo(2);

        topics.create("later", 3);
        a.heartbeat();
        assertThat(a.owned).isEqualTo(Map.of(later, Set.of(0, 1, 2)));
        assertThat(describe().groupEpoch()).isEqualTo(3);
        assertThat(a.epoch).isEqualTo(3);
    }

    @Test
    void patternSubscriptionGetsMatchingTopicsOnly() {
        UUID eu = topics.create("orders-eu", 2);
        UUID us = topics.create("orders-us", 1);
        topics.create("payments", 2);
        Client a = new Client("a", null);
        a.join(joinRequest("a").subscribedTopicNames(null).subscribedTopicRegex("orders-.*"));
        assertThat(a.owned).isEqualTo(Map.of(eu, Set.of(0, 1), us, Set.of(0)));
        assertThat(describe().members().get(0).subscribedTopicRegex()).isEqualTo("orders-.*");

        UUID asia = topics.create("orders-asia", 1);
        a.heartbeat();
        assertThat(a.owned).isEqualTo(Map.of(eu, Set.of(0, 1), us, Set.of(0), asia, Set.of(0)));
    }

    @Test
    void rangeAssignorGivesContiguousRanges() {
        UUID orders = topics.create("orders", 4);
        Client a = new Client("a", null);
        Client b = new Client("b", null);
        a.join(joinRequest("a", "orders").serverAssignor("range"));
        b.join(joinRequest("b", "orders").serverAssignor("range"));
        settle(a, b);
        assertThat(a.owned).isEqualTo(Map.of(orders, Set.of(0, 1)));
        assertThat(b.owned).isEqualTo(Map.of(orders, Set.of(2, 3)));
        assertThat(describe().assignorName()).isEqualTo("range");
    }

    // ------------------------------------------------------------------ helpers

    private static ConsumerGroupHeartbeatRequest joinRequest(String memberId, String... topicNames) {
        return new ConsumerGroupHeartbeatRequest().groupId(GROUP).memberId(memberId).memberEpoch(0)
                .rebalanceTimeoutMs(REBALANCE_MS).subscribedTopicNames(new ArrayList<>(List.of(topicNames)))
                .topicPartitions(new ArrayList<>());
    }

    private ConsumerGroupHeartbeatResponse send(ConsumerGroupHeartbeatRequest request) {
        return send(request, 1);
    }

    private ConsumerGroupHeartbeatResponse send(ConsumerGroupHeartbeatRequest request, int version) {
        CompletableFuture<ConsumerGroupHeartbeatResponse> f =
                h.coordinator.consumerGroupHeartbeat(request, (short) version, "client", "/127.0.0.1", null);
        h.run();
        return done(f);
    }

    private void assertRefused(ConsumerGroupHeartbeatRequest request, Errors expected) {
        ConsumerGroupHeartbeatResponse r = send(request);
        assertThat(error(r)).as("%s", request).isEqualTo(expected);
        assertThat(r.errorMessage()).isNotEmpty();
    }

    private static Errors error(ConsumerGroupHeartbeatResponse r) {
        return Errors.forCode(r.errorCode());
    }

    /** Heartbeats the clients in turn until the group is Stable and none of them moves any more. */
    private void settle(Client... clients) {
        for (int round = 0; round < 10; round++) {
            boolean changed = false;
            for (Client c : clients) {
                int epoch = c.epoch;
                changed |= c.heartbeat().assignment() != null || c.epoch != epoch;
                assertNoPartitionHeldTwice();
            }
            if (!changed && describe().groupState().equals("Stable")) return;
        }
        fail("the group did not settle: " + describe());
    }

    /** What each member holds, its partitions pending revocation included, never overlaps. */
    private void assertNoPartitionHeldTwice() {
        Map<String, String> holder = new HashMap<>();
        for (ConsumerGroupMember m : h.group(GROUP).modern.members.values()) {
            for (Map<UUID, Set<Integer>> held : List.of(m.assigned, m.pendingRevocation)) {
                held.forEach((topic, parts) -> parts.forEach(p -> {
                    String previous = holder.put(topic + "-" + p, m.memberId);
                    if (previous != null && !previous.equals(m.memberId)) {
                        fail("partition " + topic + "-" + p + " held by " + previous + " and " + m.memberId);
                    }
                }));
            }
        }
    }

    private static List<ConsumerGroupHeartbeatRequest.TopicPartitions> owned(Map<UUID, Set<Integer>> partitions) {
        List<ConsumerGroupHeartbeatRequest.TopicPartitions> out = new ArrayList<>();
        partitions.forEach((topic, parts) -> out.add(new ConsumerGroupHeartbeatRequest.TopicPartitions()
                .topicId(topic).partitions(new ArrayList<>(parts))));
        return out;
    }

    private static Map<UUID, Set<Integer>> assigned(ConsumerGroupHeartbeatResponse.Assignment assignment) {
        Map<UUID, Set<Integer>> out = new TreeMap<>();
        for (ConsumerGroupHeartbeatResponse.TopicPartitions tp : assignment.topicPartitions()) {
            out.put(tp.topicId(), Set.copyOf(tp.partitions()));
        }
        return out;
    }

    private static Map<UUID, Set<Integer>> described(ConsumerGroupDescribeResponse.Assignment assignment) {
        Map<UUID, Set<Integer>> out = new TreeMap<>();
        for (ConsumerGroupDescribeResponse.TopicPartitions tp : assignment.topicPartitions()) {
            out.put(tp.topicId(), Set.copyOf(tp.partitions()));
        }
        return out;
    }

    private ConsumerGroupDescribeResponse.DescribedGroup describe() {
        CompletableFuture<ConsumerGroupDescribeResponse> f = h.coordinator.consumerGroupDescribe(
                new ConsumerGroupDescribeRequest().groupIds(new ArrayList<>(List.of(GROUP))), (short) 1);
        h.run();
        return done(f).groups().get(0);
    }

    private List<ListGroupsResponse.ListedGroup> listGroups() {
        CompletableFuture<ListGroupsResponse> f = h.coordinator.listGroups(new ListGroupsRequest(), (short) 5);
        h.run();
        assertThat(Errors.forCode(done(f).errorCode())).isEqualTo(Errors.NONE);
        return done(f).groups();
    }

    private OffsetFetchResponse.OffsetFetchResponseGroup fetch(String memberId, int memberEpoch) {
        OffsetFetchRequest request = new OffsetFetchRequest().groups(new ArrayList<>(List.of(
                new OffsetFetchRequest.OffsetFetchRequestGroup().groupId(GROUP).memberId(memberId).memberEpoch(memberEpoch)
                        .topics(new ArrayList<>(List.of(new OffsetFetchRequest.OffsetFetchRequestTopics().name("t")
                                .partitionIndexes(new ArrayList<>(List.of(0)))))))));
        CompletableFuture<OffsetFetchResponse> f = h.coordinator.fetchOffsets(request, (short) 9);
        h.run();
        return done(f).groups().get(0);
    }

    private Errors deleteGroup() {
        CompletableFuture<DeleteGroupsResponse> f = h.coordinator.deleteGroups(
                new DeleteGroupsRequest().groupsNames(new ArrayList<>(List.of(GROUP))), (short) 2);
        h.run();
        return Errors.forCode(done(f).results().get(0).errorCode());
    }
}
