package io.brook.coordinator.group;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.brook.coordinator.runtime.CoordinatorLoader;
import io.brook.coordinator.runtime.CoordinatorLog;
import io.brook.coordinator.runtime.CoordinatorRequests;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.DurableWriter;
import io.brook.coordinator.runtime.EventLoop;
import io.brook.wire.message.ConsumerGroupDescribeRequest;
import io.brook.wire.message.ConsumerGroupDescribeResponse;
import io.brook.wire.message.ConsumerGroupHeartbeatRequest;
import io.brook.wire.message.ConsumerGroupHeartbeatResponse;
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
import io.brook.wire.message.TxnOffsetCommitRequest;
import io.brook.wire.message.TxnOffsetCommitResponse;
import io.brook.wire.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group coordinator of a node: consumer groups of the classic and of the KIP-848 protocol and their committed
 * offsets (every group on a single node, those of the partitions it owns in a cluster), kept in
 * {@code __consumer_offsets} through a {@link CoordinatorLog}. This class turns wire messages
 * into calls of {@link ClassicMembership}, {@link GroupOffsets} and {@link GroupAdmin} and their
 * results back into responses.
 *
 * <p><b>Use.</b> Construct, call {@link #start()} (starts the coordinator thread and the loading of
 * {@code __consumer_offsets} in the background), call one method per API from any thread,
 * {@link #close()} at shutdown. FindCoordinator is answered by the server itself.
 *
 * <p><b>Ownership.</b> A single node coordinates every group. In a cluster a node coordinates the
 * groups of the {@code __consumer_offsets} partitions it leads, and the server calls {@link #own}
 * whenever that set changes: a partition gained is loaded (its groups get
 * COORDINATOR_LOAD_IN_PROGRESS meanwhile), a partition lost is dropped at once (its parked joins
 * and syncs and every later request for its groups get NOT_COORDINATOR, writes of its groups
 * still in flight are answered NOT_COORDINATOR too), see {@link CoordinatorLoader}.
 *
 * <p><b>Loading.</b> As in Kafka, the coordinator serves while it loads: a {@link CoordinatorLoader}
 * reads the partitions of {@code __consumer_offsets} one after another, and until a group's
 * partition is loaded every request for that group gets Kafka's answer for a loading coordinator —
 * COORDINATOR_LOAD_IN_PROGRESS (retriable) in the place each API has for an error (per partition
 * of OffsetCommit, per group of DescribeGroups, DeleteGroups and OffsetFetch v8+, the response's
 * error otherwise; OffsetFetch v0-1 has only partition errors), except Heartbeat, which Kafka
 * answers NONE meanwhile, and ListGroups, which gets it as long as any partition loads. Requests
 * with an empty group id are answered INVALID_GROUP_ID first, as Kafka does, except OffsetCommit,
 * OffsetFetch, DescribeGroups and DeleteGroups, for which Kafka keeps the empty id as a group (the
 * standalone commits of clients from before KIP-289, whose default group id was empty). Groups of a
 * partition whose load failed get NOT_COORDINATOR until a restart and are left out of ListGroups.
 * No answer comes from a partially loaded partition, no write of its groups is made meanwhile
 * (so no committed offset goes backwards), and neither session timers nor offset expiry touch it.
 *
 * <p><b>Threading.</b> Every method may be called from any thread (e.g. Netty event loops). Each
 * request is handed through the {@link EventLoop}'s MPSC queue to the one coordinator thread that
 * owns all group state; the returned future completes on that thread, possibly much later
 * (JoinGroup waits for the rebalance, SyncGroup for the leader's assignment, writes for
 * durability). Completions must not block. The request message is read only on the coordinator
 * thread and must not be mutated afterwards.
 *
 * <p><b>Durability.</b> Whatever a response reports as written (a commit, an assignment, a
 * deletion) is durable in the log before the response future completes.
 *
 * <p><b>Errors.</b> Expected failures are error codes in the response. An unexpected exception
 * while handling a request yields a response carrying UNKNOWN_SERVER_ERROR; a request made after
 * {@link #close()}, or parked when it happens, is answered with NOT_COORDINATOR so that clients
 * look the coordinator up again.
 */
public final class GroupCoordinator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinator.class);

    /**
     * Without an authorizer every operation a group supports is allowed: READ (3), DELETE (6),
     * DESCRIBE (8), DESCRIBE_CONFIGS (10) and ALTER_CONFIGS (11, its own settings), as bits of
     * Kafka's AclOperation codes, as Kafka 4 reports them.
     */
    private static final int GROUP_AUTHORIZED_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11);

    private final GroupCoordinatorConfig config;
    private final EventLoop loop;
    private final ClassicGroups groups;
    private final ClassicMembership membership;
    private final Rebalance rebalance;
    private final GroupOffsets offsets;
    private final GroupAdmin admin;
    private final TxnOffsets txnOffsets;
    private final ConsumerGroupHeartbeats consumerGroups;
    private final GroupReplay replay;
    private final CoordinatorLoader loader;
    private final DurableWriter writer;
    private final boolean threaded;
    private final CoordinatorRequests requests =
            new CoordinatorRequests("group coordinator", () -> this.closed, () -> this.shutdown);
    private volatile boolean started;
    private volatile boolean closed;
    /** Set on the coordinator thread at close; from then on every request gets NOT_COORDINATOR. */
    private boolean shutdown;

    public GroupCoordinator(GroupCoordinatorConfig config, CoordinatorLog log, Clock clock) {
        this(config, log, clock, null);
    }

    /**
     * @param loadExecutor runs the reads of {@code __consumer_offsets} at start-up; null for a thread
     *                     of the coordinator's own ({@code group-coordinator-loader})
     */
    public GroupCoordinator(GroupCoordinatorConfig config, CoordinatorLog log, Clock clock, Executor loadExecutor) {
        this(config, log, clock, true, loadExecutor, CoordinatorLoader.DEFAULT_CHUNK_BYTES);
    }

    /**
     * With {@code threaded = false} no thread is started; tests drive the loop with {@link #runPending()},
     * and the log is read on the test thread too, so that {@link #start()} returns loaded.
     */
    GroupCoordinator(GroupCoordinatorConfig config, CoordinatorLog log, Clock clock, boolean threaded) {
        this(config, log, clock, threaded, threaded ? null : Runnable::run, CoordinatorLoader.DEFAULT_CHUNK_BYTES);
    }

    /** Tests: the loading's reads run on {@code loadExecutor}, {@code chunkBytes} at a time. */
    GroupCoordinator(GroupCoordinatorConfig config, CoordinatorLog log, Clock clock, boolean threaded,
                     Executor loadExecutor, int chunkBytes) {
        this.config = config;
        this.threaded = threaded;
        this.loop = new EventLoop(clock, e -> requests.failed("task", e));
        requests.runOn(loop);
        DurableWriter writer = new DurableWriter(loop, log, this::ownershipEpoch);
        this.writer = writer;
        this.groups = new ClassicGroups(config, loop);
        this.rebalance = new Rebalance(config, loop, writer, groups);
        this.membership = new ClassicMembership(config, writer, groups, rebalance);
        this.txnOffsets = new TxnOffsets(config, loop, writer, groups);
        this.consumerGroups = new ConsumerGroupHeartbeats(config.consumerGroups(), loop, groups, writer);
        this.replay = new GroupReplay(groups, rebalance, txnOffsets, consumerGroups, this::migrateLegacyRecords);
        this.loader = new CoordinatorLoader(GroupCoordinatorConfig.OFFSETS_TOPIC, config.offsetsTopicPartitions(), log,
                loop, replay, chunkBytes, loadExecutor, "group-coordinator-loader");
        this.offsets = new GroupOffsets(config, loop, writer, groups, rebalance,
                p -> loader.state(p) == CoordinatorLoader.State.ACTIVE);
        this.admin = new GroupAdmin(loop, writer, groups);
    }

    /**
     * The topics KIP-848 consumer groups are assigned from and the groups' own settings (none until
     * set). Call before {@link #start()}.
     */
    public void consumerGroupSources(ConsumerGroupTopics topics, GroupConfigOverrides overrides) {
        if (started) throw new IllegalStateException("already started");
        consumerGroups.topics(topics);
        consumerGroups.overrides(overrides);
    }

    /**
     * Starts serving, and loading {@code __consumer_offsets} in the background (see the class
     * comment). Never fails because of what that topic holds. Call once.
     */
    public synchronized void start() {
        if (started) throw new IllegalStateException("already started");
        loader.loaded().thenRun(() -> {
            if (replay.skipped() > 0) {
                LOG.warn("{}: skipped {} unreadable records while loading", GroupCoordinatorConfig.OFFSETS_TOPIC, replay.skipped());
            }
        });
        offsets.scheduleExpiry();
        started = true;
        if (threaded) loop.start("group-coordinator");
        loader.start();
        if (!threaded) loop.runPending();
    }

    /**
     * Completes once no partition of {@code __consumer_offsets} is loading any more (each is loaded,
     * or failed); on the coordinator thread, so a dependent action must not block.
     */
    public CompletableFuture<Void> loaded() {
        return loader.loaded();
    }

    /**
     * Writes the records that move what a just-loaded partition held in Brook's earlier record
     * layout to Kafka's (see {@link GroupReplay#migration}), on the coordinator thread; until they
     * are durable the old records stay, and a restart moves them again.
     */
    private void migrateLegacyRecords(int partition, List<CoordinatorRecord> batch) {
        LOG.info("{}-{}: moving {} records of Brook's earlier layout to Kafka's", GroupCoordinatorConfig.OFFSETS_TOPIC,
                partition, batch.size());
        writer.write(partition, batch).whenComplete((v, e) -> {
            if (e != null) {
                LOG.warn("{}-{}: could not move records to Kafka's layout; the next start tries again",
                        GroupCoordinatorConfig.OFFSETS_TOPIC, partition, e);
            }
        });
    }

    /** Stops the coordinator thread; parked requests are answered with NOT_COORDINATOR. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        if (!started) return;
        loader.close();
        loop.execute(() -> {
            shutdown = true;
            rebalance.answerParked(Errors.NOT_COORDINATOR);
        });
        if (threaded) {
            try {
                loop.stop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else {
            loop.runPending();
        }
    }

    /**
     * This node coordinates the groups of exactly these partitions of {@code __consumer_offsets}
     * from now on (all of them until called). Before {@link #start()} it sets what the start loads;
     * after it the change is made on the coordinator thread, in the order of the calls. Any thread.
     */
    public synchronized void own(Set<Integer> partitions) {
        Set<Integer> owned = Set.copyOf(partitions);
        if (!started) {
            loader.own(owned);
            return;
        }
        if (closed) return;
        loop.execute(() -> {
            if (!shutdown) loader.own(owned);
        });
    }

    /** The writer's view of {@link CoordinatorLoader#epoch} (the loader is built after the writer). */
    private long ownershipEpoch(int partition) {
        return loader.epoch(partition);
    }

    /** The {@code __consumer_offsets} partition of a group. */
    public int partitionFor(String groupId) {
        return config.partitionFor(groupId);
    }

    /** The number of partitions of {@code __consumer_offsets} this coordinator hashes groups over. */
    public int partitions() {
        return config.offsetsTopicPartitions();
    }

    // ------------------------------------------------------------------ JoinGroup

    public CompletableFuture<JoinGroupResponse> joinGroup(JoinGroupRequest request, short version, String clientId, String clientHost) {
        return submit(() -> {
            String groupId = request.groupId();
            if (groupId != null && !groupId.isEmpty() && request.sessionTimeoutMs() >= config.minSessionTimeoutMs()
                    && request.sessionTimeoutMs() <= config.maxSessionTimeoutMs()) {
                // Kafka checks the id and the session timeout first, and answers a loading group with no member id
                Errors notLoaded = loadError(groupId);
                if (notLoaded != Errors.NONE) return CompletableFuture.completedFuture(toJoinResponse(JoinResult.error(notLoaded, ""), version));
            }
            ClassicGroup existing = groupId == null ? null : groups.get(groupId);
            if (existing != null && existing.modern != null) {
                // a classic member cannot join a consumer group with members: a consumer waits (retries) until
                // they have left, as in a rolling switch back to the classic protocol; an empty one becomes classic
                if (!existing.modern.isEmpty()) {
                    Errors refusal = ConsumerSubscription.CONSUMER_PROTOCOL_TYPE.equals(request.protocolType())
                            ? Errors.COORDINATOR_LOAD_IN_PROGRESS : Errors.INCONSISTENT_GROUP_PROTOCOL;
                    return CompletableFuture.completedFuture(toJoinResponse(JoinResult.error(refusal,
                            request.memberId() == null ? "" : request.memberId()), version));
                }
                existing.modern = null;
                writer.write(existing.partition, ConsumerGroupHeartbeats.tombstones(existing)); // the join's own records follow
            }
            List<Protocol> protocols = new ArrayList<>(request.protocols().size());
            for (JoinGroupRequest.JoinGroupRequestProtocol p : request.protocols()) {
                protocols.add(new Protocol(p.name(), p.metadata() == null ? GroupMember.EMPTY_BYTES : p.metadata()));
            }
            // v0 has no rebalance timeout: the session timeout serves as both.
            int rebalanceTimeout = version == 0 || request.rebalanceTimeoutMs() < 0 ? request.sessionTimeoutMs() : request.rebalanceTimeoutMs();
            JoinRequest req = new JoinRequest(request.groupId(), request.memberId(),
                    version >= 5 ? request.groupInstanceId() : null, request.protocolType(), protocols,
                    request.sessionTimeoutMs(), rebalanceTimeout, clientId == null ? "" : clientId,
                    clientHost == null ? "" : clientHost, version);
            return membership.join(req).thenApply(r -> toJoinResponse(r, version));
        }, e -> toJoinResponse(JoinResult.error(e, request.memberId() == null ? "" : request.memberId()), version));
    }

    private static JoinGroupResponse toJoinResponse(JoinResult r, short version) {
        List<JoinGroupResponse.JoinGroupResponseMember> members = new ArrayList<>(r.members().size());
        for (JoinedMember m : r.members()) {
            members.add(new JoinGroupResponse.JoinGroupResponseMember().memberId(m.memberId())
                    .groupInstanceId(m.groupInstanceId()).metadata(m.metadata() == null ? GroupMember.EMPTY_BYTES : m.metadata()));
        }
        String protocolName = r.protocolName();
        if (protocolName == null && version < 7) protocolName = "";
        return new JoinGroupResponse().errorCode(r.error().code()).generationId(r.generationId())
                .protocolType(r.protocolType()).protocolName(protocolName)
                .leader(r.leader() == null ? "" : r.leader()).skipAssignment(r.skipAssignment())
                .memberId(r.memberId() == null ? "" : r.memberId()).members(members);
    }

    // ------------------------------------------------------------------ SyncGroup

    public CompletableFuture<SyncGroupResponse> syncGroup(SyncGroupRequest request, short version) {
        return submit(() -> loadErrorUnlessEmpty(request.groupId()), () -> {
            Map<String, byte[]> assignments = new LinkedHashMap<>();
            for (SyncGroupRequest.SyncGroupRequestAssignment a : request.assignments()) {
                assignments.put(a.memberId(), a.assignment());
            }
            SyncRequest req = new SyncRequest(request.groupId(), request.generationId(),
                    request.memberId(), version >= 3 ? request.groupInstanceId() : null,
                    request.protocolType(), request.protocolName(), assignments, version);
            return membership.sync(req).thenApply(GroupCoordinator::toSyncResponse);
        }, e -> toSyncResponse(SyncResult.error(e)));
    }

    private static SyncGroupResponse toSyncResponse(SyncResult r) {
        return new SyncGroupResponse().errorCode(r.error().code()).protocolType(r.protocolType())
                .protocolName(r.protocolName()).assignment(r.assignment() == null ? GroupMember.EMPTY_BYTES : r.assignment());
    }

    // ------------------------------------------------------------------ Heartbeat

    public CompletableFuture<HeartbeatResponse> heartbeat(HeartbeatRequest request, short version) {
        return submit(() -> {
            Errors notLoaded = loadErrorUnlessEmpty(request.groupId());
            if (notLoaded != Errors.NONE) {
                // Kafka answers the heartbeat of a group still loading blindly: NONE
                Errors answer = notLoaded == Errors.COORDINATOR_LOAD_IN_PROGRESS ? Errors.NONE : notLoaded;
                return CompletableFuture.completedFuture(new HeartbeatResponse().errorCode(answer.code()));
            }
            return CompletableFuture.completedFuture(new HeartbeatResponse().errorCode(
                    membership.heartbeat(request.groupId(), request.generationId(), request.memberId(),
                            version >= 3 ? request.groupInstanceId() : null).code()));
        }, e -> new HeartbeatResponse().errorCode(e.code()));
    }

    // ------------------------------------------------------------------ LeaveGroup

    public CompletableFuture<LeaveGroupResponse> leaveGroup(LeaveGroupRequest request, short version) {
        return submit(() -> loadErrorUnlessEmpty(request.groupId()), () -> {
            List<LeavingMember> leaving = new ArrayList<>();
            if (version < 3) {
                leaving.add(new LeavingMember(request.memberId(), null));
            } else {
                for (LeaveGroupRequest.MemberIdentity m : request.members()) {
                    leaving.add(new LeavingMember(m.memberId(), m.groupInstanceId()));
                }
            }
            LeaveResult r = membership.leave(request.groupId(), leaving);
            LeaveGroupResponse response = new LeaveGroupResponse();
            if (version < 3) {
                // One member: its error is the response's error.
                Errors e = r.error() != Errors.NONE || r.members().isEmpty() ? r.error() : r.members().get(0).error();
                return CompletableFuture.completedFuture(response.errorCode(e.code()));
            }
            List<LeaveGroupResponse.MemberResponse> members = new ArrayList<>(r.members().size());
            for (MemberLeaveResult m : r.members()) {
                members.add(new LeaveGroupResponse.MemberResponse().memberId(m.memberId())
                        .groupInstanceId(m.groupInstanceId()).errorCode(m.error().code()));
            }
            return CompletableFuture.completedFuture(response.errorCode(r.error().code()).members(members));
        }, e -> new LeaveGroupResponse().errorCode(e.code()));
    }

    // ------------------------------------------------------------------ OffsetCommit

    public CompletableFuture<OffsetCommitResponse> commitOffsets(OffsetCommitRequest request, short version) {
        return submit(() -> loadErrorUnlessNull(request.groupId()), () -> {
            List<CommitPartition> partitions = new ArrayList<>();
            for (OffsetCommitRequest.OffsetCommitRequestTopic t : request.topics()) {
                for (OffsetCommitRequest.OffsetCommitRequestPartition p : t.partitions()) {
                    partitions.add(new CommitPartition(t.name(), p.partitionIndex(), p.committedOffset(),
                            version >= 6 ? p.committedLeaderEpoch() : -1, p.committedMetadata()));
                }
            }
            return offsets.commit(request.groupId(), request.generationIdOrMemberEpoch(), request.memberId(),
                    version >= 7 ? request.groupInstanceId() : null, partitions, version)
                    .thenApply(GroupCoordinator::toCommitResponse);
        }, e -> {
            List<PartitionResult> failed = new ArrayList<>();
            for (OffsetCommitRequest.OffsetCommitRequestTopic t : request.topics()) {
                for (OffsetCommitRequest.OffsetCommitRequestPartition p : t.partitions()) {
                    failed.add(new PartitionResult(t.name(), p.partitionIndex(), e));
                }
            }
            return toCommitResponse(failed);
        });
    }

    private static OffsetCommitResponse toCommitResponse(List<PartitionResult> results) {
        Map<String, OffsetCommitResponse.OffsetCommitResponseTopic> topics = new LinkedHashMap<>();
        for (PartitionResult r : results) {
            topics.computeIfAbsent(r.topic(), n -> new OffsetCommitResponse.OffsetCommitResponseTopic().name(n))
                    .partitions().add(new OffsetCommitResponse.OffsetCommitResponsePartition()
                            .partitionIndex(r.partition()).errorCode(r.error().code()));
        }
        return new OffsetCommitResponse().topics(new ArrayList<>(topics.values()));
    }

    // ------------------------------------------------------------------ TxnOffsetCommit

    /**
     * TxnOffsetCommit: offsets of a transaction, written at once as a transactional batch of the
     * producer and pending until the transaction's marker ({@link #completeTransaction}). Answered
     * once durable. Topics are named (the caller resolves the topic ids of v6).
     */
    public CompletableFuture<TxnOffsetCommitResponse> txnOffsetCommit(TxnOffsetCommitRequest request, short version) {
        return submit(() -> loadErrorUnlessEmpty(request.groupId()), () -> {
            List<CommitPartition> partitions = new ArrayList<>();
            for (TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic t : request.topics()) {
                for (TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition p : t.partitions()) {
                    partitions.add(new CommitPartition(t.name(), p.partitionIndex(), p.committedOffset(),
                            version >= 2 ? p.committedLeaderEpoch() : -1, p.committedMetadata()));
                }
            }
            boolean v3 = version >= 3;
            return txnOffsets.commit(request.groupId(), request.producerId(), request.producerEpoch(),
                    v3 ? request.generationIdOrMemberEpoch() : -1, v3 ? request.memberId() : "",
                    v3 ? request.groupInstanceId() : null, partitions).thenApply(TxnOffsets::toResponse);
        }, e -> {
            List<PartitionResult> failed = new ArrayList<>();
            for (TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic t : request.topics()) {
                for (TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition p : t.partitions()) {
                    failed.add(new PartitionResult(t.name(), p.partitionIndex(), e));
                }
            }
            return TxnOffsets.toResponse(failed);
        });
    }

    /**
     * WriteTxnMarkers for {@code __consumer_offsets}: writes the COMMIT or ABORT marker of
     * {@code producerId}'s transaction into each of {@code partitions}, and once it is durable the
     * producer's pending offsets in the groups of that partition become committed or are dropped.
     *
     * @return completes once every marker is durable and applied; fails when one could not be
     *         written, or its partition is not loaded (COORDINATOR_LOAD_IN_PROGRESS,
     *         NOT_COORDINATOR for one whose load failed, as {@link CoordinatorMarkerException}),
     *         and the caller writes the markers again (a second marker changes nothing)
     */
    public CompletableFuture<Void> completeTransaction(long producerId, short producerEpoch, boolean commit,
                                                       Set<Integer> partitions) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        if (closed) {
            result.completeExceptionally(new IllegalStateException("group coordinator closed"));
            return result;
        }
        loop.execute(() -> {
            if (shutdown) {
                result.completeExceptionally(new IllegalStateException("group coordinator closed"));
                return;
            }
            try {
                txnOffsets.completeIn(partitions, loader::loadError, producerId, producerEpoch, commit).whenComplete((v, e) -> {
                    if (e != null) {
                        result.completeExceptionally(e);
                    } else {
                        result.complete(null);
                    }
                });
            } catch (RuntimeException e) {
                requests.failed("completing a transaction", e);
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    // ------------------------------------------------------------------ OffsetFetch

    public CompletableFuture<OffsetFetchResponse> fetchOffsets(OffsetFetchRequest request, short version) {
        return submit(() -> version < 8 ? loadErrorUnlessNull(request.groupId()) : Errors.NONE, () -> {
            boolean requireStable = version >= 7 && request.requireStable();
            if (version < 8) {
                return CompletableFuture.completedFuture(OffsetFetchResponses.single(
                        offsets.fetch(request.groupId(), OffsetFetchResponses.topics(request), requireStable)));
            }
            List<OffsetFetchResponse.OffsetFetchResponseGroup> groups = new ArrayList<>();
            for (OffsetFetchRequest.OffsetFetchRequestGroup g : request.groups()) {
                Errors notLoaded = loadErrorUnlessNull(g.groupId());
                if (notLoaded == Errors.NONE && version >= 9) notLoaded = offsets.validateFetch(g.groupId(), g.memberId(), g.memberEpoch());
                groups.add(notLoaded != Errors.NONE ? OffsetFetchResponses.group(g.groupId(), notLoaded)
                        : OffsetFetchResponses.group(g.groupId(),
                                offsets.fetch(g.groupId(), OffsetFetchResponses.topics(g), requireStable)));
            }
            return CompletableFuture.completedFuture(new OffsetFetchResponse().groups(groups));
        }, e -> OffsetFetchResponses.error(request, version, e));
    }

    // ------------------------------------------------------------------ DescribeGroups / ListGroups

    public CompletableFuture<DescribeGroupsResponse> describeGroups(DescribeGroupsRequest request, short version) {
        return submit(() -> CompletableFuture.completedFuture(DescribeGroupsResponses.describe(request, version, admin,
                        this::loadErrorUnlessNull, GROUP_AUTHORIZED_OPERATIONS)),
                e -> DescribeGroupsResponses.error(request, e));
    }

    public CompletableFuture<ListGroupsResponse> listGroups(ListGroupsRequest request, short version) {
        return submit(() -> {
            if (loader.anyLoading()) {
                // Kafka lists every partition's groups or none: a partition still loading fails the whole request
                return CompletableFuture.completedFuture(new ListGroupsResponse().errorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS.code()));
            }
            List<ListGroupsResponse.ListedGroup> out = new ArrayList<>();
            for (ListedGroup g : admin.list(version >= 4 ? request.statesFilter() : null,
                    version >= 5 ? request.typesFilter() : null)) {
                out.add(new ListGroupsResponse.ListedGroup().groupId(g.groupId()).protocolType(g.protocolType())
                        .groupState(g.state()).groupType(g.type()));
            }
            return CompletableFuture.completedFuture(new ListGroupsResponse().groups(out));
        }, e -> new ListGroupsResponse().errorCode(e.code()));
    }

    // ------------------------------------------------------------------ KIP-848 consumer groups

    /**
     * ConsumerGroupHeartbeat: see {@link ConsumerGroupHeartbeats}.
     *
     * @param mayDescribe which topics the client's principal may describe (a pattern subscription
     *                    covers only those), or null for all; called on the coordinator thread
     */
    public CompletableFuture<ConsumerGroupHeartbeatResponse> consumerGroupHeartbeat(ConsumerGroupHeartbeatRequest request,
            short version, String clientId, String clientHost, Predicate<String> mayDescribe) {
        return submit(() -> loadErrorUnlessEmpty(request.groupId()),
                () -> consumerGroups.heartbeat(request, version, clientId, clientHost, mayDescribe),
                e -> ConsumerGroupHeartbeats.error(e, null));
    }

    /** ConsumerGroupDescribe: see {@link ConsumerGroupDescriptions}. */
    public CompletableFuture<ConsumerGroupDescribeResponse> consumerGroupDescribe(ConsumerGroupDescribeRequest request, short version) {
        return submit(() -> CompletableFuture.completedFuture(ConsumerGroupDescriptions.describe(request.groupIds(), version,
                groups, consumerGroups.topics(), config.consumerGroups().defaultAssignor(), this::loadError,
                request.includeAuthorizedOperations() ? GROUP_AUTHORIZED_OPERATIONS : null)), e -> {
            List<ConsumerGroupDescribeResponse.DescribedGroup> out = new ArrayList<>();
            for (String id : request.groupIds()) {
                out.add(new ConsumerGroupDescribeResponse.DescribedGroup().groupId(id).errorCode(e.code()).groupState("").assignorName(""));
            }
            return new ConsumerGroupDescribeResponse().groups(out);
        });
    }

    // ------------------------------------------------------------------ DeleteGroups / OffsetDelete

    public CompletableFuture<DeleteGroupsResponse> deleteGroups(DeleteGroupsRequest request, short version) {
        return submit(() -> {
            List<String> ids = request.groupsNames();
            List<String> loadedIds = new ArrayList<>(ids.size());
            List<Errors> notLoaded = new ArrayList<>(ids.size());
            for (String id : ids) {
                Errors e = loadErrorUnlessNull(id);
                notLoaded.add(e);
                if (e == Errors.NONE) loadedIds.add(id);
            }
            return admin.delete(loadedIds).thenApply(results -> {
                Iterator<Map.Entry<String, Errors>> deleted = results.iterator();
                List<DeleteGroupsResponse.DeletableGroupResult> out = new ArrayList<>(ids.size());
                for (int i = 0; i < ids.size(); i++) {
                    Map.Entry<String, Errors> r = notLoaded.get(i) != Errors.NONE ? Map.entry(ids.get(i), notLoaded.get(i)) : deleted.next();
                    out.add(new DeleteGroupsResponse.DeletableGroupResult().groupId(r.getKey()).errorCode(r.getValue().code()));
                }
                return new DeleteGroupsResponse().results(out);
            });
        }, e -> {
            List<DeleteGroupsResponse.DeletableGroupResult> out = new ArrayList<>();
            for (String id : request.groupsNames()) out.add(new DeleteGroupsResponse.DeletableGroupResult().groupId(id).errorCode(e.code()));
            return new DeleteGroupsResponse().results(out);
        });
    }

    public CompletableFuture<OffsetDeleteResponse> deleteOffsets(OffsetDeleteRequest request, short version) {
        return submit(() -> loadErrorUnlessEmpty(request.groupId()), () -> {
            Map<String, List<Integer>> topics = new LinkedHashMap<>();
            for (OffsetDeleteRequest.OffsetDeleteRequestTopic t : request.topics()) {
                List<Integer> parts = topics.computeIfAbsent(t.name(), n -> new ArrayList<>());
                for (OffsetDeleteRequest.OffsetDeleteRequestPartition p : t.partitions()) parts.add(p.partitionIndex());
            }
            return offsets.delete(request.groupId(), topics).thenApply(r -> {
                Map<String, OffsetDeleteResponse.OffsetDeleteResponseTopic> out = new LinkedHashMap<>();
                for (PartitionResult p : r.partitions()) {
                    out.computeIfAbsent(p.topic(), n -> new OffsetDeleteResponse.OffsetDeleteResponseTopic().name(n))
                            .partitions().add(new OffsetDeleteResponse.OffsetDeleteResponsePartition()
                                    .partitionIndex(p.partition()).errorCode(p.error().code()));
                }
                return new OffsetDeleteResponse().errorCode(r.error().code()).topics(new ArrayList<>(out.values()));
            });
        }, e -> new OffsetDeleteResponse().errorCode(e.code()));
    }

    // ------------------------------------------------------------------ loading

    /**
     * Kafka's error for a group whose partition of {@code __consumer_offsets} is not loaded:
     * COORDINATOR_LOAD_IN_PROGRESS while it loads, NOT_COORDINATOR once its load failed; NONE when
     * loaded, NOT_COORDINATOR too when this node does not own the partition. Coordinator thread.
     */
    private Errors loadError(String groupId) {
        return loader.loadError(config.partitionFor(groupId));
    }

    /** {@link #loadError} for the APIs that Kafka answers INVALID_GROUP_ID first for a null or empty id. */
    private Errors loadErrorUnlessEmpty(String groupId) {
        return groupId == null || groupId.isEmpty() ? Errors.NONE : loadError(groupId);
    }

    /** {@link #loadError} for the APIs where Kafka treats only a null id as invalid (the empty one is a group). */
    private Errors loadErrorUnlessNull(String groupId) {
        return groupId == null ? Errors.NONE : loadError(groupId);
    }

    // ------------------------------------------------------------------ metrics

    /**
     * Every group with its state and committed offsets, taken on the coordinator thread (for
     * metrics and consumer lag); completes exceptionally once the coordinator is closed.
     */
    public CompletableFuture<GroupsSnapshot> snapshot() {
        CompletableFuture<GroupsSnapshot> result = new CompletableFuture<>();
        if (closed || !started) {
            result.completeExceptionally(new IllegalStateException("the group coordinator is not running"));
            return result;
        }
        loop.execute(() -> {
            try {
                result.complete(GroupsSnapshot.of(groups.all(), consumerGroups.topics()));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    // ------------------------------------------------------------------ plumbing

    /** {@link CoordinatorRequests#submit(Supplier, Supplier, Function)}: behind a check on the coordinator thread. */
    private <R> CompletableFuture<R> submit(Supplier<Errors> gate, Supplier<CompletableFuture<R>> task,
                                            Function<Errors, R> errorResponse) {
        return requests.submit(gate, task, errorResponse);
    }

    /** Runs {@code task} on the coordinator thread; any exception becomes the API's error response. */
    private <R> CompletableFuture<R> submit(Supplier<CompletableFuture<R>> task, Function<Errors, R> errorResponse) {
        return requests.submit(task, errorResponse);
    }

    /** Test hook: runs what is queued and every timer that is due (only when not threaded). */
    int runPending() {
        if (threaded) throw new IllegalStateException("driven by its own thread");
        return loop.runPending();
    }

    /** Number of requests and timers that failed with an exception (a bug if not zero). */
    int taskFailures() {
        return requests.failures();
    }

    /** Test view: a group as the coordinator thread sees it, or null. */
    ClassicGroup group(String groupId) {
        return groups.get(groupId);
    }

    /** Test view: records skipped as unreadable at start-up. */
    int replaySkipped() {
        return replay.skipped();
    }

    /** Test hook: the offsets, to mark transactional commits as pending. */
    GroupOffsets offsets() {
        return offsets;
    }
}
