package io.brook.server.cluster.replica;

/**
 * What one partition fetcher does: fetch {@code topic}-{@code partition} from node
 * {@code source}, naming {@code leaderEpoch} as the current leader epoch. A {@code drain} reads a
 * former leader's fenced log to its end, for this node, the new leader at {@code leaderEpoch};
 * otherwise this node copies the partition from its leader as a replica being added. A change of
 * any field is another target: the fetcher of the old one stops and a new one starts.
 */
public record FetchTarget(String topic, int partition, int source, int leaderEpoch, boolean drain) {

    @Override
    public String toString() {
        return (drain ? "drain of " : "copy of ") + topic + "-" + partition + " from node " + source + " at leader epoch "
                + leaderEpoch;
    }
}
