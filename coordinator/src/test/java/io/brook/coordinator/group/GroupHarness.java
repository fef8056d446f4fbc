package io.brook.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.brook.coordinator.runtime.InMemoryCoordinatorLog;
import io.brook.testkit.MutableClock;
import io.brook.wire.message.HeartbeatRequest;
import io.brook.wire.message.HeartbeatResponse;
import io.brook.wire.message.JoinGroupRequest;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.message.LeaveGroupRequest;
import io.brook.wire.message.LeaveGroupResponse;
import io.brook.wire.message.OffsetCommitRequest;
import io.brook.wire.message.OffsetCommitResponse;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.message.SyncGroupRequest;
import io.brook.wire.message.SyncGroupResponse;
import io.brook.wire.protocol.Errors;

/**
 * Drives a {@link GroupCoordinator} without its thread: every call queues the request, then runs the
 * loop on the test thread; {@link #advance} moves the clock and fires due timers. Deterministic.
 */
final class GroupHarness {
    static final int SESSION = 10_000;
    static final int REBALANCE = 30_000;

    final MutableClock clock;
    final InMemoryCoordinatorLog log;
    final GroupCoordinator coordinator;

    GroupHarness() {
        this(config());
    }

    GroupHarness(GroupCoordinatorConfig config) {
        this(config, new InMemoryCoordinatorLog(), new MutableClock(1_000_000));
    }

    GroupHarness(GroupCoordinatorConfig config, InMemoryCoordinatorLog log, MutableClock clock) {
        this(config, log, clock, null);
    }

    /** With the topics KIP-848 consumer groups are assigned from (set before the coordinator starts). */
    GroupHarness(GroupCoordinatorConfig config, ConsumerGroupTopics topics) {
        this(config, new InMemoryCoordinatorLog(), new MutableClock(1_000_000), topics);
    }

    /** Over an existing log and clock (a restart), with the topics of KIP-848 consumer groups. */
    GroupHarness(GroupCoordinatorConfig config, InMemoryCoordinatorLog log, MutableClock clock, ConsumerGroupTopics topics) {
        this(config, log, clock, topics, GroupConfigOverrides.NONE);
    }

    /** With the topics of KIP-848 consumer groups and the groups' own settings. */
    GroupHarness(GroupCoordinatorConfig config, InMemoryCoordinatorLog log, MutableClock clock, ConsumerGroupTopics topics,
            GroupConfigOverrides overrides) {
        this.clock = clock;
        this.log = log;
        this.coordinator = new GroupCoordinator(config, log, clock, false);
        if (topics != null) coordinator.consumerGroupSources(topics, overrides);
        coordinator.start();
    }

    /** Test defaults: no initial delay so a lone join completes at once; Kafka's other defaults; 4 partitions. */
    static GroupCoordinatorConfig config() {
        return GroupCoordinatorConfig.defaults().withInitialRebalanceDelayMs(0).withOffsetsTopicPartitions(4);
    }

    void advance(long ms) {
        clock.advance(ms);
        coordinator.runPending();
    }

    void run() {
        coordinator.runPending();
    }

    static <T> T done(CompletableFuture<T> f) {
        assertThat(f).as("response").isDone();
        return f.join();
    }

    ClassicGroup group(String id) {
        return coordinator.group(id);
    }

    GroupState state(String id) {
        ClassicGroup g = group(id);
        return g == null ? null : g.state;
    }

    // ------------------------------------------------------------------ JoinGroup

    static JoinGroupRequest joinRequest(String group, String memberId, String instanceId, String... protocols) {
        List<JoinGroupRequest.JoinGroupRequestProtocol> list = new ArrayList<>();
        for (String p : protocols) {
            list.add(new JoinGroupRequest.JoinGroupRequestProtocol().name(p).metadata(p.getBytes(StandardCharsets.UTF_8)));
        }
        return new JoinGroupRequest().groupId(group).memberId(memberId).groupInstanceId(instanceId)
                .sessionTimeoutMs(SESSION).rebalanceTimeoutMs(REBALANCE).protocolType("consumer").protocols(list);
    }

    CompletableFuture<JoinGroupResponse> join(JoinGroupRequest request, int version) {
        CompletableFuture<JoinGroupResponse> f = coordinator.joinGroup(request, (short) version, "client", "/127.0.0.1");
        run();
        return f;
    }

    CompletableFuture<JoinGroupResponse> join(String group, String memberId, String... protocols) {
        return join(joinRequest(group, memberId, null, protocols), 9);
    }

    /** First join of a dynamic member at v9: the MEMBER_ID_REQUIRED round trip, then the parked join. */
    CompletableFuture<JoinGroupResponse> joinNew(String group, String... protocols) {
        JoinGroupResponse first = done(join(group, "", protocols));
        assertThat(first.errorCode()).isEqualTo(Errors.MEMBER_ID_REQUIRED.code());
        return join(group, first.memberId(), protocols);
    }

    CompletableFuture<JoinGroupResponse> joinStatic(String group, String memberId, String instanceId, String... protocols) {
        return join(joinRequest(group, memberId, instanceId, protocols), 9);
    }

    /** One consumer member subscribed to {@code topics}, Stable at generation 1; returns its id. */
    String stableConsumer(String group, String... topics) {
        JoinGroupRequest req = joinRequest(group, "", null, "range");
        req.protocols().get(0).metadata(subscription(topics));
        String id = done(join(req, 9)).memberId();
        JoinGroupResponse r = done(join(req.memberId(id), 9));
        assertThat(r.generationId()).isEqualTo(1);
        SyncGroupResponse s = done(sync(group, 1, id, id, "assignment"));
        assertThat(Errors.forCode(s.errorCode())).isEqualTo(Errors.NONE);
        return id;
    }

    // ------------------------------------------------------------------ SyncGroup / Heartbeat / Leave

    CompletableFuture<SyncGroupResponse> syncStatic(String group, int generation, String memberId, String instanceId,
                                                     String... memberAssignmentPairs) {
        List<SyncGroupRequest.SyncGroupRequestAssignment> list = new ArrayList<>();
        for (int i = 0; i + 1 < memberAssignmentPairs.length; i += 2) {
            list.add(new SyncGroupRequest.SyncGroupRequestAssignment().memberId(memberAssignmentPairs[i])
                    .assignment(memberAssignmentPairs[i + 1].getBytes(StandardCharsets.UTF_8)));
        }
        CompletableFuture<SyncGroupResponse> f = coordinator.syncGroup(new SyncGroupRequest().groupId(group)
                .generationId(generation).memberId(memberId).groupInstanceId(instanceId).assignments(list), (short) 5);
        run();
        return f;
    }

    CompletableFuture<SyncGroupResponse> sync(String group, int generation, String memberId, String... pairs) {
        return syncStatic(group, generation, memberId, null, pairs);
    }

    Errors heartbeat(String group, int generation, String memberId, String instanceId) {
        CompletableFuture<HeartbeatResponse> f = coordinator.heartbeat(new HeartbeatRequest().groupId(group)
                .generationId(generation).memberId(memberId).groupInstanceId(instanceId), (short) 4);
        run();
        return Errors.forCode(done(f).errorCode());
    }

    Errors heartbeat(String group, int generation, String memberId) {
        return heartbeat(group, generation, memberId, null);
    }

    LeaveGroupResponse leave(String group, String memberId, int version) {
        CompletableFuture<LeaveGroupResponse> f = coordinator.leaveGroup(new LeaveGroupRequest().groupId(group).memberId(memberId), (short) version);
        run();
        return done(f);
    }

    LeaveGroupResponse leaveBatch(String group, LeaveGroupRequest.MemberIdentity... members) {
        CompletableFuture<LeaveGroupResponse> f = coordinator.leaveGroup(
                new LeaveGroupRequest().groupId(group).members(new ArrayList<>(Arrays.asList(members))), (short) 5);
        run();
        return done(f);
    }

    // ------------------------------------------------------------------ offsets

    CompletableFuture<OffsetCommitResponse> commit(String group, int generation, String memberId, String instanceId,
                                                   int version, String topic, int partition, long offset, String metadata) {
        OffsetCommitRequest request = new OffsetCommitRequest().groupId(group).generationIdOrMemberEpoch(generation)
                .memberId(memberId).groupInstanceId(instanceId).topics(new ArrayList<>(List.of(
                        new OffsetCommitRequest.OffsetCommitRequestTopic().name(topic).partitions(new ArrayList<>(List.of(
                                new OffsetCommitRequest.OffsetCommitRequestPartition().partitionIndex(partition)
                                        .committedOffset(offset).committedLeaderEpoch(3).committedMetadata(metadata)))))));
        CompletableFuture<OffsetCommitResponse> f = coordinator.commitOffsets(request, (short) version);
        run();
        return f;
    }

    Errors commitError(String group, int generation, String memberId, int version) {
        OffsetCommitResponse r = done(commit(group, generation, memberId, null, version, "t", 0, 42, "m"));
        return Errors.forCode(r.topics().get(0).partitions().get(0).errorCode());
    }

    /** Single-group form (v7): committed offset of one partition, -1 if none. */
    OffsetFetchResponse.OffsetFetchResponsePartition fetch(String group, String topic, int partition, boolean requireStable) {
        OffsetFetchRequest request = new OffsetFetchRequest().groupId(group).requireStable(requireStable)
                .topics(new ArrayList<>(List.of(new OffsetFetchRequest.OffsetFetchRequestTopic().name(topic)
                        .partitionIndexes(new ArrayList<>(List.of(partition))))));
        CompletableFuture<OffsetFetchResponse> f = coordinator.fetchOffsets(request, (short) 7);
        run();
        return done(f).topics().get(0).partitions().get(0);
    }

    long committed(String group, String topic, int partition) {
        return fetch(group, topic, partition, false).committedOffset();
    }

    // ------------------------------------------------------------------ consumer protocol bytes

    /** A ConsumerProtocolSubscription v0: topics, null user data. */
    static byte[] subscription(String... topics) {
        int size = 2 + 4 + 4;
        for (String t : topics) size += 2 + t.getBytes(StandardCharsets.UTF_8).length;
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putShort((short) 0);
        b.putInt(topics.length);
        for (String t : topics) {
            byte[] n = t.getBytes(StandardCharsets.UTF_8);
            b.putShort((short) n.length);
            b.put(n);
        }
        b.putInt(-1);
        return b.array();
    }
}
