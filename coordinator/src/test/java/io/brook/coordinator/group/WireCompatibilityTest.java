package io.brook.coordinator.group;

import static io.brook.coordinator.group.GroupHarness.done;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.brook.wire.message.DeleteGroupsRequest;
import io.brook.wire.message.DescribeGroupsRequest;
import io.brook.wire.message.HeartbeatRequest;
import io.brook.wire.message.JoinGroupRequest;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.message.LeaveGroupRequest;
import io.brook.wire.message.ListGroupsRequest;
import io.brook.wire.message.OffsetCommitRequest;
import io.brook.wire.message.OffsetDeleteRequest;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.SyncGroupRequest;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the coordinator answers must be encodable at the version it was asked with (e.g. no
 * skip_assignment before v9, no error message before DescribeGroups v6), over the whole range
 * Brook advertises; and the subscriptions it reads are those kafka-clients writes.
 */
@Timeout(10)
class WireCompatibilityTest {

    private static void encodes(ApiMessage response, int version) {
        assertThatCode(() -> response.toByteBuffer((short) version))
                .as(response.getClass().getSimpleName() + " v" + version).doesNotThrowAnyException();
    }

    private static <T extends ApiMessage> T call(GroupHarness h, CompletableFuture<T> f) {
        h.run();
        return done(f);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
    void shouldEncodeEveryGroupResponseAtTheRequestVersion(int v) {
        GroupHarness h = new GroupHarness();
        short jv = (short) v;
        short sv = (short) Math.min(v, 5);
        short hv = (short) Math.min(v, 4);
        short lv = (short) Math.min(v, 5);
        boolean staticMember = v >= 5;
        String instance = staticMember ? "inst" : null;

        JoinGroupRequest join = GroupHarness.joinRequest("g", "", instance, "range");
        JoinGroupResponse first = call(h, h.coordinator.joinGroup(join, jv, "cli", "host"));
        encodes(first, jv);
        JoinGroupResponse joined = first;
        if (first.errorCode() == Errors.MEMBER_ID_REQUIRED.code()) {
            joined = call(h, h.coordinator.joinGroup(join.memberId(first.memberId()), jv, "cli", "host"));
            encodes(joined, jv);
        }
        String member = joined.memberId();
        encodes(call(h, h.coordinator.joinGroup(GroupHarness.joinRequest("g", "", null, "range").protocolType("x"), jv, "c", "h")), jv);
        encodes(call(h, h.coordinator.syncGroup(new SyncGroupRequest().groupId("g").generationId(1).memberId(member)
                .groupInstanceId(sv >= 3 ? instance : null).assignments(new ArrayList<>(List.of(
                        new SyncGroupRequest.SyncGroupRequestAssignment().memberId(member).assignment(new byte[]{1})))), sv)), sv);
        encodes(call(h, h.coordinator.syncGroup(new SyncGroupRequest().groupId("g").generationId(9).memberId(member), sv)), sv);
        if (staticMember) {
            // Static rejoin in Stable: the leader is told to skip assignment only where the field exists.
            JoinGroupResponse rejoined = call(h, h.coordinator.joinGroup(GroupHarness.joinRequest("g", "", instance, "range"), jv, "c", "h"));
            encodes(rejoined, jv);
            assertThat(rejoined.skipAssignment()).isEqualTo(v >= 9);
            member = rejoined.memberId();
        }
        encodes(call(h, h.coordinator.heartbeat(new HeartbeatRequest().groupId("g").generationId(1).memberId("nobody"), hv)), hv);

        for (int cv = 2; cv <= 9; cv++) {
            encodes(call(h, h.coordinator.commitOffsets(new OffsetCommitRequest().groupId("g").generationIdOrMemberEpoch(1)
                    .memberId("nobody").topics(new ArrayList<>(List.of(new OffsetCommitRequest.OffsetCommitRequestTopic().name("t")
                            .partitions(new ArrayList<>(List.of(new OffsetCommitRequest.OffsetCommitRequestPartition())))))), (short) cv)), cv);
        }
        for (int fv = 1; fv <= 9; fv++) {
            OffsetFetchRequest fetch = fv < 8
                    ? new OffsetFetchRequest().groupId("g").topics(fv >= 2 ? null : new ArrayList<>(List.of(
                            new OffsetFetchRequest.OffsetFetchRequestTopic().name("t").partitionIndexes(new ArrayList<>(List.of(0))))))
                    : new OffsetFetchRequest().groups(new ArrayList<>(List.of(new OffsetFetchRequest.OffsetFetchRequestGroup().groupId("g"))));
            encodes(call(h, h.coordinator.fetchOffsets(fetch, (short) fv)), fv);
        }
        for (int dv = 0; dv <= 6; dv++) {
            encodes(call(h, h.coordinator.describeGroups(new DescribeGroupsRequest()
                    .groups(new ArrayList<>(List.of("g", "missing"))), (short) dv)), dv);
        }
        for (int gv = 0; gv <= 5; gv++) {
            encodes(call(h, h.coordinator.listGroups(new ListGroupsRequest(), (short) gv)), gv);
        }
        encodes(call(h, h.coordinator.deleteOffsets(new OffsetDeleteRequest().groupId("g").topics(new ArrayList<>(List.of(
                new OffsetDeleteRequest.OffsetDeleteRequestTopic().name("t").partitions(new ArrayList<>(List.of(
                        new OffsetDeleteRequest.OffsetDeleteRequestPartition())))))), (short) 0)), 0);
        LeaveGroupRequest leave = lv < 3 ? new LeaveGroupRequest().groupId("g").memberId(member)
                : new LeaveGroupRequest().groupId("g").members(new ArrayList<>(List.of(
                        new LeaveGroupRequest.MemberIdentity().memberId(member).groupInstanceId(instance))));
        encodes(call(h, h.coordinator.leaveGroup(leave, lv)), lv);
        for (int xv = 0; xv <= 3; xv++) {
            encodes(call(h, h.coordinator.deleteGroups(new DeleteGroupsRequest().groupsNames(new ArrayList<>(List.of("g", "missing"))), (short) xv)), xv);
        }
        assertThat(h.group("g")).as("deleted once empty").isNull();
    }

    @Test
    void shouldReadTopicsOfEveryConsumerProtocolSubscriptionVersion() {
        ByteBuffer userData = ByteBuffer.wrap(new byte[]{1, 2, 3});
        ConsumerPartitionAssignor.Subscription subscription = new ConsumerPartitionAssignor.Subscription(
                List.of("orders", "payments"), userData, List.of(new TopicPartition("orders", 1)), 7, Optional.of("rack-a"));
        for (short version = 0; version <= 3; version++) {
            ByteBuffer bytes = ConsumerProtocol.serializeSubscription(subscription, version);
            byte[] array = new byte[bytes.remaining()];
            bytes.get(array);
            assertThat(ConsumerSubscription.topics(array)).as("v" + version).containsExactlyInAnyOrder("orders", "payments");
        }
        assertThat(Optional.ofNullable(ConsumerSubscription.topics(new byte[0]))).isEmpty();
    }
}
