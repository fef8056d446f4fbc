package io.brook.server.cluster.replica;

import io.brook.server.cluster.interbroker.InterBrokerClient;
import io.brook.storage.Log;
import io.brook.storage.ReplicaAppendResult;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition's fetch loop (docs/cluster.md, section 6a), on the fetchers' thread: Fetch v12
 * from the {@linkplain FetchTarget#source() source} node through the inter-broker client, as a
 * follower ({@code replica_id} = this node, the target's leader epoch as the current one, no fetch
 * session), at this log's end; the batches answered are appended as they are
 * ({@link Log#appendReplicated}), and once they are durable the next fetch goes out, a long poll
 * ({@value #MAX_WAIT_MS} ms) so that an idle partition costs one request per poll.
 *
 * <ul>
 *   <li>Bounds: {@value #PARTITION_MAX_BYTES} bytes per fetch (Kafka's {@code replica.fetch.max.bytes}
 *       default), at least one whole batch.</li>
 *   <li>OFFSET_OUT_OF_RANGE (this log's end is below the source's log start, as for a new copy of
 *       a partition whose old records were deleted): the log starts over, empty, at the source's
 *       log start ({@link Log#truncateFullyAndStartAt}).</li>
 *   <li>Any other error, a failed request or a failed append: the fetch is tried again after a
 *       back-off of {@value #BACKOFF_MS} ms doubling up to {@value #BACKOFF_MAX_MS} ms (Kafka's
 *       {@code replica.fetch.backoff.ms}), reset by a fetch that succeeds.</li>
 *   <li>Throttle (Kafka's {@code follower.replication.throttled.rate}, {@link FollowerThrottle}): once
 *       a copy's records are durable, their size is counted against the throttle before the next
 *       fetch; while it is exceeded the fetcher waits what it answers (at most
 *       {@value #THROTTLE_RECHECK_MAX_MS} ms at a time, so that a changed or removed throttle
 *       applies within a second) and asks again. A drain is not throttled: its fetcher is the
 *       partition's leader, in the ISR, and Kafka throttles only replicas out of it.</li>
 *   <li>Progress: when this log's durable end has reached the high watermark of an answer, a copy
 *       reports that it caught up and a drain that it drained (a drain's source names its high
 *       watermark only once it is its final end); a report that fails is sent again after the
 *       next fetch. The loop goes on until it is {@linkplain #stop stopped}: the image that
 *       follows the report ends it.</li>
 * </ul>
 *
 * <p>{@link #stop} waits for an append or truncation in progress, so that the log can be deleted
 * once it returns.
 */
final class PartitionFetcher {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionFetcher.class);

    static final short FETCH_VERSION = 12;
    static final int PARTITION_MAX_BYTES = 1024 * 1024;
    static final int MAX_WAIT_MS = 500;
    static final long BACKOFF_MS = 100;
    static final long BACKOFF_MAX_MS = 1_000;
    static final long THROTTLE_RECHECK_MAX_MS = 1_000;

    private final FetchTarget target;
    private final int nodeId;
    private final Log log;
    private final InterBrokerClient client;
    private final ScheduledExecutorService executor;
    private final ReplicaReports reports;
    private final FollowerThrottle throttle;
    /** Held while this fetcher changes the log; {@link #stop} takes it to wait for such a change. */
    private final Object writing = new Object();
    private volatile boolean stopped;
    /** The fetchers' thread only. */
    private long backoffMs = BACKOFF_MS;
    private boolean reported;
    private boolean failing;

    PartitionFetcher(FetchTarget target, int nodeId, Log log, InterBrokerClient client,
            ScheduledExecutorService executor, ReplicaReports reports, FollowerThrottle throttle) {
        this.target = target;
        this.nodeId = nodeId;
        this.log = log;
        this.client = client;
        this.executor = executor;
        this.reports = reports;
        this.throttle = throttle;
    }

    void start() {
        LOG.info("Node {}: starting the {}", nodeId, target);
        executor.execute(this::fetch);
    }

    /** Stops the loop; returns once no append or truncation of this fetcher's is in progress. */
    void stop() {
        stopped = true;
        synchronized (writing) {
            LOG.info("Node {}: stopped the {}", nodeId, target);
        }
    }

    private void fetch() {
        if (stopped) {
            return;
        }
        FetchRequest request = new FetchRequest().replicaId(nodeId).maxWaitMs(MAX_WAIT_MS).minBytes(1)
                .maxBytes(PARTITION_MAX_BYTES).isolationLevel((byte) 0).sessionId(0).sessionEpoch(-1)
                .topics(List.of(new FetchRequest.FetchTopic().topic(target.topic()).partitions(List.of(
                        new FetchRequest.FetchPartition().partition(target.partition())
                                .currentLeaderEpoch(target.leaderEpoch()).fetchOffset(log.logEndOffset())
                                .logStartOffset(log.logStartOffset()).partitionMaxBytes(PARTITION_MAX_BYTES)))));
        try {
            client.send(target.source(), request, FETCH_VERSION, FetchResponse::read)
                    .whenCompleteAsync(this::answered, executor);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            stopped = true; // closing
        }
    }

    private void answered(FetchResponse response, Throwable failure) {
        if (stopped) {
            return;
        }
        if (failure != null) {
            retry("the fetch failed: " + failure);
            return;
        }
        FetchResponse.PartitionData pd = partitionOf(response);
        if (pd == null) {
            retry("the answer (error " + Errors.forCode(response.errorCode()) + ") has no data for the partition");
            return;
        }
        Errors error = Errors.forCode(pd.errorCode());
        if (error == Errors.OFFSET_OUT_OF_RANGE && pd.logStartOffset() > log.logEndOffset()) {
            startOver(pd.logStartOffset());
            return;
        }
        if (error != Errors.NONE) {
            retry("node " + target.source() + " answered " + error);
            return;
        }
        ByteBuffer records = pd.records() instanceof BufferRecords b ? b.buffer() : null;
        long end;
        synchronized (writing) {
            if (stopped) {
                return;
            }
            if (records != null && records.hasRemaining()) {
                ReplicaAppendResult a = log.appendReplicated(records);
                if (a.error() != Errors.NONE) {
                    retry("the append failed: " + a.error() + " " + a.errorMessage());
                    return;
                }
            }
            end = log.logEndOffset();
        }
        long highWatermark = pd.highWatermark();
        int bytes = records == null ? 0 : records.remaining();
        log.whenDurable(end).whenCompleteAsync((v, e) -> durable(end, highWatermark, bytes, e), executor);
    }

    private void durable(long end, long highWatermark, int bytes, Throwable failure) {
        if (stopped) {
            return;
        }
        if (failure != null) {
            retry("the copied records did not become durable: " + failure);
            return;
        }
        backoffMs = BACKOFF_MS;
        if (failing) {
            failing = false;
            LOG.info("Node {}: the {} fetches again", nodeId, target);
        }
        if (highWatermark >= 0 && end >= highWatermark && !reported) {
            report();
        }
        fetchWithin(bytes);
    }

    /** Fetches again once the throttle has counted the {@code bytes} just copied; on the fetchers' thread. */
    private void fetchWithin(long bytes) {
        if (stopped) {
            return;
        }
        long delay = throttleMs(bytes);
        if (delay <= 0) {
            fetch();
            return;
        }
        try {
            executor.schedule(() -> fetchWithin(bytes), delay, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            stopped = true; // closing
        }
    }

    /**
     * How long to wait before asking the throttle again to count {@code bytes} copied (0: they
     * are counted, fetch now): the throttle's answer, at most {@value #THROTTLE_RECHECK_MAX_MS}
     * ms; always 0 for a drain.
     */
    long throttleMs(long bytes) {
        if (target.drain()) {
            return 0;
        }
        return Math.min(throttle.delayMs(target.topic(), target.partition(), bytes), THROTTLE_RECHECK_MAX_MS);
    }

    private void report() {
        reported = true;
        LOG.info("Node {}: the {} reached the source's end at offset {}", nodeId, target, log.logEndOffset());
        (target.drain() ? reports.drained(target.topic(), target.partition())
                : reports.caughtUp(target.topic(), target.partition())).whenCompleteAsync((v, e) -> {
                    if (e != null) {
                        reported = false; // sent again after the next fetch
                        LOG.info("Node {}: reporting the {} failed, will retry: {}", nodeId, target, e.toString());
                    }
                }, executor);
    }

    private void startOver(long logStart) {
        synchronized (writing) {
            if (stopped) {
                return;
            }
            try {
                LOG.info("Node {}: the {} starts the log over at the source's log start {} (local end {})", nodeId,
                        target, logStart, log.logEndOffset());
                log.truncateFullyAndStartAt(logStart);
            } catch (IOException | RuntimeException e) {
                retry("cannot start the log over at " + logStart + ": " + e);
                return;
            }
        }
        fetch();
    }

    private void retry(String why) {
        if (stopped) {
            return;
        }
        if (!failing) {
            failing = true;
            LOG.info("Node {}: the {}: {}; retrying", nodeId, target, why);
        } else {
            LOG.debug("Node {}: the {}: {}; retrying", nodeId, target, why);
        }
        long delay = backoffMs;
        backoffMs = Math.min(backoffMs * 2, BACKOFF_MAX_MS);
        try {
            executor.schedule(this::fetch, delay, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            stopped = true; // closing
        }
    }

    private FetchResponse.PartitionData partitionOf(FetchResponse response) {
        for (FetchResponse.FetchableTopicResponse t : response.responses()) {
            if (target.topic().equals(t.topic())) {
                for (FetchResponse.PartitionData pd : t.partitions()) {
                    if (pd.partitionIndex() == target.partition()) {
                        return pd;
                    }
                }
            }
        }
        return null;
    }

    FetchTarget target() {
        return target;
    }
}
