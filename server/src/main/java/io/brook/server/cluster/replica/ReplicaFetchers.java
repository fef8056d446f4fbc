package io.brook.server.cluster.replica;

import io.brook.server.cluster.interbroker.InterBrokerClient;
import io.brook.storage.Log;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiFunction;

/**
 * The partition fetchers of one node (docs/cluster.md, section 6a), kept to the targets the
 * metadata image gives: after every change the cluster's thread first {@linkplain #retain retains}
 * the fetchers whose target is still wanted (the others stop, before their logs may be deleted),
 * then, once the logs exist, {@linkplain #start starts} the missing ones. All fetchers share one
 * thread, which appends the copied batches; requests wait on the inter-broker client's event
 * loops, not on it.
 */
public final class ReplicaFetchers implements AutoCloseable {

    private final int nodeId;
    private final InterBrokerClient client;
    private final BiFunction<String, Integer, Log> logs;
    private final ReplicaReports reports;
    private final FollowerThrottle throttle;
    private final ScheduledExecutorService executor;
    private final Map<FetchTarget, PartitionFetcher> running = new HashMap<>();
    private boolean closed;

    /**
     * @param logs this node's log of a partition, null when it has none
     * @param throttle the follower side of the replication throttle, which the copies respect
     */
    public ReplicaFetchers(int nodeId, InterBrokerClient client, BiFunction<String, Integer, Log> logs,
            ReplicaReports reports, FollowerThrottle throttle) {
        this.nodeId = nodeId;
        this.client = client;
        this.logs = logs;
        this.reports = reports;
        this.throttle = throttle;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "brook-replica-fetcher-" + nodeId);
            t.setDaemon(true);
            return t;
        });
    }

    /** Stops the fetchers whose target is not in {@code targets}; returns once none of them writes any more. */
    public synchronized void retain(Set<FetchTarget> targets) {
        for (Iterator<Map.Entry<FetchTarget, PartitionFetcher>> it = running.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<FetchTarget, PartitionFetcher> e = it.next();
            if (!targets.contains(e.getKey())) {
                e.getValue().stop();
                it.remove();
            }
        }
    }

    /** Starts a fetcher for each of {@code targets} that has none and whose log this node has. */
    public synchronized void start(Set<FetchTarget> targets) {
        if (closed) {
            return;
        }
        for (FetchTarget t : targets) {
            if (!running.containsKey(t)) {
                Log log = logs.apply(t.topic(), t.partition());
                if (log != null) {
                    PartitionFetcher f = new PartitionFetcher(t, nodeId, log, client, executor, reports, throttle);
                    running.put(t, f);
                    f.start();
                }
            }
        }
    }

    /** The targets being fetched now. */
    public synchronized Set<FetchTarget> running() {
        return Set.copyOf(running.keySet());
    }

    /** Stops every fetcher and the thread. */
    @Override
    public synchronized void close() {
        closed = true;
        running.values().forEach(PartitionFetcher::stop);
        running.clear();
        executor.shutdownNow();
    }
}
