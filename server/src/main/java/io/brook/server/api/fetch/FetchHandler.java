package io.brook.server.api.fetch;

import io.brook.server.topic.DistinctPartitions;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.security.quota.ClientQuotas;
import io.brook.server.topic.TopicPartition;
import io.brook.server.topic.TopicIds;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchRequest.FetchPartition;
import io.brook.wire.message.FetchRequest.FetchTopic;
import io.brook.wire.message.FetchRequest.ForgottenTopic;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Fetch (key 1) for consumers. From v13 topics are named by id ({@link FetchTopicIds}).
 *
 * <p>A fetch naming a replica id of 0 or more (a follower's, the replica state from v15) is
 * served as {@link io.brook.server.node.PartitionLeadership#checkReplica} says: in cluster mode,
 * a leader serves the other replicas of its partitions (a node copying a moved partition,
 * docs/cluster.md section 6a) and a former leader serves the new one its fenced log; a single
 * node has no followers. Any other partition is answered as Kafka answers a
 * replica it does not know: UNKNOWN_LEADER_EPOCH when the partition names a current leader epoch,
 * else NOT_LEADER_OR_FOLLOWER with the current leader of KIP-951's hints (v16+, added by
 * {@link io.brook.server.node.LeaderHints} to every answer with those errors; as in Kafka, an
 * answer to a follower lists no node endpoints). A follower reads up to the high watermark, as
 * a consumer does: a copy never holds what the leader could still lose. The follower
 * fields of v15+ (the replica's broker epoch, KIP-903), v17 (its directory id, KIP-853) and v18
 * (its high watermark, KIP-1166) are read and ignored.
 *
 * <ul>
 *   <li>Fetch sessions (KIP-227, as Kafka's): a full request (epoch 0 or -1) names every
 *       partition and is answered for each, in request order (a partition named twice counts
 *       once, with its last entry). With epoch 0 its answer opens a session in
 *       {@link FetchSessionCache} and carries its id (0 when the cache has no room: the client
 *       then stays with full requests); with epoch -1 it opens none. A full request that names
 *       a session id closes that session. An incremental request (the session's id and the
 *       epoch it expects) names only the partitions it adds or whose offset or limits changed
 *       and lists those it drops in {@code forgotten_topics_data}; its answer holds only the
 *       partitions with records, an error, or another high watermark or log start offset than
 *       the client was last told, in the session's order (partitions that returned records
 *       move to its end). Errors, with session id 0: an unknown id FETCH_SESSION_ID_NOT_FOUND,
 *       another epoch INVALID_FETCH_SESSION_EPOCH, a session opened with topic ids used below
 *       v13 or the reverse FETCH_SESSION_TOPIC_ID_ERROR; the client then starts over with a
 *       full request. An incremental request that leaves its session empty closes it and is
 *       answered as a sessionless one, and so is one that grows its session past
 *       {@code brook.fetch.session.max.partitions} (the session closes: the answer's session id
 *       is 0). Sessions are memory only (a restarted broker has none).
 *       Cost of a steady consumer's incremental request: one pass over the session's partitions
 *       (a topic lookup and an empty log read each, nothing allocated for them, see
 *       {@link FetchPass}) and an answer built only for the partitions it holds; a long poll
 *       also registers on every session partition, as a full fetch does.</li>
 *   <li>Limits: {@code max_bytes} over the response, capped by the broker's {@code fetch.max.bytes}
 *       as Kafka caps it, and {@code partition_max_bytes} per partition, except that the first
 *       partition that returns data returns at least its first whole batch (KIP-74) so a consumer
 *       always progresses. A {@code max_bytes} of 0 therefore returns that one batch and nothing
 *       more, as in Kafka; a negative one (or a negative {@code partition_max_bytes}) counts as 0
 *       — Kafka's segment read throws on it and answers that partition UNKNOWN_SERVER_ERROR.
 *       {@code min_bytes} is capped by the same limit (Kafka does so too), or a fetch could wait
 *       for more than it may return.</li>
 *   <li>Long poll: when fewer than {@code min_bytes} are available and nothing failed, the fetch
 *       waits as a {@link DelayedFetch} — woken by the produce path when a partition's high
 *       watermark moves, and by a timer at {@code max_wait_ms}; its re-checks run where the
 *       connection's non-blocking work runs (the event loop, unless inline requests are off).
 *       It stops waiting when its connection closes, and waits at all only while the broker's
 *       waiters stay within {@code brook.fetch.max.waiting.partitions} (see
 *       {@link FetchWaiters}); otherwise it is answered at once, as if {@code max_wait_ms} had
 *       passed.
 *       Records are file slices, sent with sendfile (small ones copied into the response, see
 *       the network layer's response encoder).</li>
 *   <li>Isolation: READ_UNCOMMITTED reads up to the high watermark; READ_COMMITTED up to the
 *       last stable offset, with the aborted transactions of the range (none until transactions
 *       exist: produce refuses transactional batches for now).</li>
 * </ul>
 */
public final class FetchHandler implements ApiHandler<FetchRequest> {

    /** The first version that carries the replica id in the replica state, with its broker epoch (KIP-903). */
    static final short REPLICA_STATE_MIN_VERSION = 15;

    private final BrokerContext broker;
    private final FetchWaiters waiters;
    private final FetchSessionCache sessions;
    private final int fetchMaxBytes;
    private final ClientQuotas quotas;

    public FetchHandler(BrokerContext broker, FetchWaiters waiters, FetchSessionCache sessions) {
        this(broker, waiters, sessions, ClientQuotas.none());
    }

    /** A handler whose consumers' fetches count against their {@code consumer_byte_rate} in {@code quotas}. */
    public FetchHandler(BrokerContext broker, FetchWaiters waiters, FetchSessionCache sessions, ClientQuotas quotas) {
        this.quotas = quotas;
        this.broker = broker;
        this.waiters = waiters;
        this.sessions = sessions;
        this.fetchMaxBytes = broker.config().fetchMaxBytes();
    }

    /** Reads are index lookups and file slices (page cache); waiting is a {@link DelayedFetch}. */
    @Override
    public boolean runsOnEventLoop(FetchRequest request) {
        return true;
    }

    @Override
    public void handle(RequestContext ctx, FetchRequest request) {
        boolean byId = ctx.apiVersion() >= FetchTopicIds.FIRST_VERSION;
        if (byId) {
            FetchTopicIds.resolveNames(broker.topics(), request.topics());
        }
        int epoch = request.sessionEpoch();
        if (epoch == FetchSession.INITIAL_EPOCH || epoch == FetchSession.FINAL_EPOCH) {
            if (request.sessionId() != 0) {
                sessions.remove(request.sessionId()); // a full request closes the session it names
            }
            new Fetch(ctx, request, byId, requested(request), null, 0, epoch == FetchSession.INITIAL_EPOCH).start();
            return;
        }
        FetchSession session = sessions.get(request.sessionId());
        if (session == null) {
            ctx.respond(topLevelError(Errors.FETCH_SESSION_ID_NOT_FOUND, 0));
            return;
        }
        int expectedEpoch;
        boolean emptied;
        synchronized (session) {
            if (session.epoch() != epoch) {
                ctx.respond(topLevelError(Errors.INVALID_FETCH_SESSION_EPOCH, 0));
                return;
            }
            if (session.byId != byId) {
                ctx.respond(topLevelError(Errors.FETCH_SESSION_TOPIC_ID_ERROR, 0));
                return;
            }
            update(session, request, byId);
            emptied = session.size() == 0;
            if (!emptied) {
                session.advanceEpoch();
            }
            expectedEpoch = session.epoch();
        }
        if (emptied) {
            // nothing left to fetch: the session closes and the request is answered as a sessionless one
            sessions.remove(session);
            new Fetch(ctx, request, byId, requested(request), null, 0, false).start();
            return;
        }
        if (!sessions.touch(session, broker.timer().nowMs())) {
            // grown past brook.fetch.session.max.partitions: closed, and answered as a sessionless request
            new Fetch(ctx, request, byId, requested(request), null, 0, false).start();
            return;
        }
        new Fetch(ctx, request, byId, null, session, expectedEpoch, false).start();
    }

    /** A full request's partitions, each once (the last entry of one named twice), in request order. */
    private static List<SessionPartition> requested(FetchRequest request) {
        List<FetchTopic> topics = DistinctPartitions.lastOfEach(request.topics(), FetchTopic::topic,
                FetchTopic::partitions, FetchPartition::partition,
                (t, parts) -> new FetchTopic().topic(t.topic()).topicId(t.topicId()).partitions(parts));
        List<SessionPartition> out = new ArrayList<>();
        for (FetchTopic ft : topics) {
            for (FetchPartition fp : ft.partitions()) {
                out.add(new SessionPartition(ft.topic(), ft.topicId(), fp));
            }
        }
        return out;
    }

    /**
     * Applies an incremental request to its session: partitions it names are added at the end or
     * take the new parameters, then those in {@code forgotten_topics_data} leave. Hold the
     * session's monitor.
     */
    private void update(FetchSession session, FetchRequest request, boolean byId) {
        for (FetchTopic ft : request.topics()) {
            for (FetchPartition fp : ft.partitions()) {
                SessionPartition known = session.get(SessionPartition.key(byId, ft.topic(), ft.topicId(), fp.partition()));
                if (known != null) {
                    known.update(fp);
                } else {
                    session.add(new SessionPartition(ft.topic(), ft.topicId(), fp));
                }
            }
        }
        for (ForgottenTopic gone : request.forgottenTopicsData()) {
            String name = byId ? TopicIds.nameOf(broker.topics(), gone.topicId()) : gone.topic();
            for (int p : gone.partitions()) {
                session.remove(SessionPartition.key(byId, name, gone.topicId(), p));
            }
        }
    }

    /**
     * One fetch from its first read to its answer: of the partitions of a full request
     * ({@code requested}), or of a session's ({@code session}, which must still be at
     * {@code expectedEpoch} when a pass runs: a duplicate request that moved it on makes this one
     * answer INVALID_FETCH_SESSION_EPOCH, as in Kafka).
     */
    private final class Fetch {
        private final RequestContext ctx;
        private final FetchRequest request;
        private final boolean byId;
        private final List<SessionPartition> requested;
        private final FetchSession session;
        private final int expectedEpoch;
        private final boolean createSession;
        private final int maxBytes;
        private final int minBytes;
        private final int replicaId;
        private final boolean fromFollower;
        private List<TopicPartition> watched;

        Fetch(RequestContext ctx, FetchRequest request, boolean byId, List<SessionPartition> requested,
                FetchSession session, int expectedEpoch, boolean createSession) {
            this.ctx = ctx;
            this.request = request;
            this.byId = byId;
            this.requested = requested;
            this.session = session;
            this.expectedEpoch = expectedEpoch;
            this.createSession = createSession;
            this.replicaId = replicaId(request, ctx.apiVersion());
            this.fromFollower = replicaId >= 0;
            // a consumer under consumer_byte_rate gets at most what its quota allows over the measured span
            int quotaBytes = fromFollower ? Integer.MAX_VALUE
                    : quotas.maxFetchBytes(ctx.session().principal(), ctx.clientId());
            this.maxBytes = Math.max(0, Math.min(Math.min(request.maxBytes(), fetchMaxBytes), quotaBytes));
            this.minBytes = Math.min(request.minBytes(), maxBytes);
        }

        void start() {
            FetchResponse now = attempt(true, false);
            if (now != null) {
                ctx.respond(now);
                return;
            }
            DelayedFetch delayed = new DelayedFetch(waiters, watched, ctx.nonBlockingExecutor(), deadlinePassed -> {
                FetchResponse again;
                try {
                    again = attempt(false, deadlinePassed);
                } catch (RuntimeException e) {
                    ctx.fail(e);
                    return true;
                }
                if (again != null) {
                    ctx.respond(again);
                    return true;
                }
                return false;
            });
            delayed.start(broker.timer(), request.maxWaitMs());
            ctx.onConnectionClosed(delayed::cancel);
        }

        /** One pass: the answer when the fetch is to be answered now, null when it is to wait. */
        private FetchResponse attempt(boolean first, boolean deadlinePassed) {
            if (session == null) {
                FetchPass pass = pass(requested, false);
                if (!answerNow(pass, first, deadlinePassed, requested)) {
                    return null;
                }
                FetchSession created = null;
                if (createSession) {
                    pass.commit();
                    created = sessions.create(broker.timer().nowMs(), byId, requested);
                }
                pass.meter(broker.metrics());
                return answer(pass, created == null ? 0 : created.id);
            }
            synchronized (session) {
                if (session.epoch() != expectedEpoch) {
                    return topLevelError(Errors.INVALID_FETCH_SESSION_EPOCH, session.id);
                }
                FetchPass pass = pass(session.partitions(), true);
                if (!answerNow(pass, first, deadlinePassed, session.partitions())) {
                    return null;
                }
                session.moveToEnd(pass.commit());
                pass.meter(broker.metrics());
                return answer(pass, session.id);
            }
        }

        private FetchPass pass(Iterable<SessionPartition> partitions, boolean incremental) {
            return FetchPass.run(broker.topics(), broker.leadership(), partitions, maxBytes, request.isolationLevel() == 1, byId,
                    incremental, replicaId);
        }

        /** The pass's answer, with KIP-951 leader hints on partitions that need them. */
        private FetchResponse answer(FetchPass pass, int sessionId) {
            FetchResponse response = pass.response(sessionId);
            if (pass.errors) {
                broker.leaderHints().addTo(response, ctx.apiVersion(), fromFollower, ctx.session().listenerName());
            }
            if (!fromFollower) {
                // Kafka answers a throttled fetch without data; here the data goes out (a fetch
                // session may have moved on already) and the connection is held for the throttle
                int throttleMs = quotas.fetched(ctx.session().principal(), ctx.clientId(), pass.bytes);
                response.throttleTimeMs(throttleMs);
                ctx.throttle(throttleMs);
            }
            return response;
        }

        /**
         * Whether to answer after this pass; on the first pass, a fetch that is to wait is
         * admitted among the waiters here (else it is answered at once) and learns which
         * partitions to watch.
         */
        private boolean answerNow(FetchPass pass, boolean first, boolean deadlinePassed,
                Collection<SessionPartition> partitions) {
            if (deadlinePassed || pass.errors || pass.bytes >= minBytes) {
                return true;
            }
            if (!first) {
                return false;
            }
            if (request.maxWaitMs() <= 0 || partitions.isEmpty() || !waiters.tryAdmit(partitions.size())) {
                return true;
            }
            List<TopicPartition> tps = new ArrayList<>(partitions.size());
            for (SessionPartition sp : partitions) {
                tps.add(sp.topicPartition);
            }
            watched = tps;
            return false;
        }
    }

    /**
     * The replica id of a follower's fetch, negative for a consumer's (-1, or -2 and -3 for
     * debugging and future-log consumers): from v15 in the replica state (KIP-903), before in
     * the replica id field.
     */
    public static int replicaId(FetchRequest request, short version) {
        return version >= REPLICA_STATE_MIN_VERSION ? request.replicaState().replicaId() : request.replicaId();
    }

    private static FetchResponse topLevelError(Errors error, int sessionId) {
        return new FetchResponse().errorCode(error.code()).sessionId(sessionId).responses(new ArrayList<>());
    }
}
