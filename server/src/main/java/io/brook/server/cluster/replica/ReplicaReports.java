package io.brook.server.cluster.replica;

import java.util.concurrent.CompletableFuture;

/** What a partition fetcher tells the controller (the cluster member's requests 9 and 16). */
public interface ReplicaReports {

    /** This node, a replica being added, has copied the partition up to its leader's high watermark. */
    CompletableFuture<Void> caughtUp(String topic, int partition);

    /** This node, the new leader, has read the former leader's log to its end, durably. */
    CompletableFuture<Void> drained(String topic, int partition);
}
