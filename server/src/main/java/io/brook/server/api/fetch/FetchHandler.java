package io.brook.server.api.fetch;

import io.brook.server.topic.DistinctPartitions;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.topic.Topic;
import io.brook.server.topic.TopicPartition;
import io.brook.server.topic.Topics;
import io.brook.storage.AbortedTransaction;
import io.brook.storage.Log;
import io.brook.storage.LogReadResult;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchRequest.FetchPartition;
import io.brook.wire.message.FetchRequest.FetchTopic;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.FetchResponse.FetchableTopicResponse;
import io.brook.wire.message.FetchResponse.PartitionData;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * Fetch (key 1) for consumers (no follower fetching, no fetch sessions). From v13 topics are
 * named by id ({@link FetchTopicIds}).
 *
 * <ul>
 *   <li>Sessionless: a full request (session id 0, epoch 0 or -1) is answered with session id 0,
 *       which makes the Java client send full requests from then on; an incremental request
 *       gets FETCH_SESSION_ID_NOT_FOUND / INVALID_FETCH_SESSION_EPOCH. The answer holds exactly
 *       the requested partitions, in request order.</li>
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

    private final BrokerContext broker;
    private final FetchWaiters waiters;
    private final int fetchMaxBytes;

    public FetchHandler(BrokerContext broker, FetchWaiters waiters) {
        this.broker = broker;
        this.waiters = waiters;
        this.fetchMaxBytes = broker.config().fetchMaxBytes();
    }

    /** Reads are index lookups and file slices (page cache); waiting is a {@link DelayedFetch}. */
    @Override
    public boolean runsOnEventLoop(FetchRequest request) {
        return true;
    }

    @Override
    public void handle(RequestContext ctx, FetchRequest request) {
        if (request.sessionId() != 0) {
            ctx.respond(topLevelError(Errors.FETCH_SESSION_ID_NOT_FOUND, request.sessionId()));
            return;
        }
        if (request.sessionEpoch() > 0) {
            ctx.respond(topLevelError(Errors.INVALID_FETCH_SESSION_EPOCH, 0));
            return;
        }
        boolean byId = ctx.apiVersion() >= FetchTopicIds.FIRST_VERSION;
        if (byId) {
            FetchTopicIds.resolveNames(broker.topics(), request.topics());
        }
        request.topics(DistinctPartitions.lastOfEach(request.topics(), FetchTopic::topic, FetchTopic::partitions,
                FetchPartition::partition,
                (t, parts) -> new FetchTopic().topic(t.topic()).topicId(t.topicId()).partitions(parts)));
        int maxBytes = Math.max(0, Math.min(request.maxBytes(), fetchMaxBytes));
        int minBytes = Math.min(request.minBytes(), maxBytes);
        Read first = read(broker, request, maxBytes, byId);
        if (first.errors || first.bytes >= minBytes || request.maxWaitMs() <= 0 || first.watched.isEmpty()
                || !waiters.tryAdmit(first.watched.size())) {
            ctx.respond(first.response);
            return;
        }
        DelayedFetch delayed = new DelayedFetch(waiters, first.watched, ctx.nonBlockingExecutor(),
                deadlinePassed -> {
                    Read again;
                    try {
                        again = read(broker, request, maxBytes, byId);
                    } catch (RuntimeException e) {
                        ctx.fail(e);
                        return true;
                    }
                    if (deadlinePassed || again.errors || again.bytes >= minBytes) {
                        ctx.respond(again.response);
                        return true;
                    }
                    return false;
                });
        delayed.start(broker.timer(), request.maxWaitMs());
        ctx.onConnectionClosed(delayed::cancel);
    }

    /** One pass over the requested partitions. */
    private static final class Read {
        FetchResponse response;
        long bytes;
        boolean errors;
        List<TopicPartition> watched = new ArrayList<>();
    }

    private static Read read(BrokerContext broker, FetchRequest request, int maxBytes, boolean byId) {
        Read out = new Read();
        Topics topics = broker.topics();
        long budget = maxBytes;
        boolean readCommitted = request.isolationLevel() == 1;
        List<FetchableTopicResponse> responses = new ArrayList<>(request.topics().size());
        for (FetchTopic ft : request.topics()) {
            Topic topic = topics.get(ft.topic());
            List<PartitionData> parts = new ArrayList<>(ft.partitions().size());
            for (FetchPartition fp : ft.partitions()) {
                PartitionData pd = new PartitionData().partitionIndex(fp.partition()).preferredReadReplica(-1)
                        .records(BufferRecords.EMPTY);
                Log log = topic == null || fp.partition() < 0 || fp.partition() >= topic.partitions() ? null
                        : topics.log(ft.topic(), fp.partition());
                Errors idError = byId ? FetchTopicIds.check(topics, topic, ft) : Errors.NONE;
                if (idError != Errors.NONE) {
                    failPartition(pd, idError);
                    out.errors = true;
                } else if (log == null) {
                    failPartition(pd, Errors.UNKNOWN_TOPIC_OR_PARTITION);
                    out.errors = true;
                } else if (fp.currentLeaderEpoch() > 0) {
                    // our only leader epoch is 0: a client claiming a later one knows something we do not
                    failPartition(pd, Errors.UNKNOWN_LEADER_EPOCH);
                    out.errors = true;
                } else {
                    int limit = (int) Math.min(Math.min(fp.partitionMaxBytes(), budget), Integer.MAX_VALUE);
                    boolean minOneBatch = out.bytes == 0;
                    LogReadResult r = log.read(fp.fetchOffset(), Math.max(0, limit), minOneBatch, readCommitted);
                    pd.errorCode(r.error().code()).highWatermark(r.highWatermark())
                            .lastStableOffset(r.lastStableOffset()).logStartOffset(r.logStartOffset())
                            .abortedTransactions(readCommitted ? aborted(log, fp.fetchOffset(), r) : null);
                    if (r.error() != Errors.NONE) {
                        out.errors = true;
                    } else if (r.records() != null && r.sizeInBytes() > 0) {
                        pd.records(r.records());
                        out.bytes += r.sizeInBytes();
                        budget -= r.sizeInBytes();
                    }
                    out.watched.add(new TopicPartition(ft.topic(), fp.partition()));
                }
                parts.add(pd);
            }
            responses.add(new FetchableTopicResponse().topic(ft.topic()).topicId(ft.topicId()).partitions(parts));
        }
        out.response = new FetchResponse().errorCode(Errors.NONE.code()).sessionId(0).responses(responses);
        return out;
    }

    /**
     * The aborted transactions a READ_COMMITTED consumer must know to skip records of: those
     * overlapping the fetched range, bounded by the last stable offset (an over-approximation
     * of the returned data's end; the client ignores entries past what it received).
     */
    private static List<FetchResponse.AbortedTransaction> aborted(Log log, long fetchOffset, LogReadResult r) {
        List<FetchResponse.AbortedTransaction> out = new ArrayList<>();
        if (r.error() != Errors.NONE || r.records() == null) {
            return out;
        }
        for (AbortedTransaction a : log.abortedTransactions(fetchOffset, r.lastStableOffset())) {
            out.add(new FetchResponse.AbortedTransaction().producerId(a.producerId()).firstOffset(a.firstOffset()));
        }
        return out;
    }

    private static void failPartition(PartitionData pd, Errors error) {
        pd.errorCode(error.code()).highWatermark(-1).lastStableOffset(-1).logStartOffset(-1);
    }

    private static FetchResponse topLevelError(Errors error, int sessionId) {
        return new FetchResponse().errorCode(error.code()).sessionId(sessionId).responses(new ArrayList<>());
    }
}
