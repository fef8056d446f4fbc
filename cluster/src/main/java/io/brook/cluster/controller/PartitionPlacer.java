package io.brook.cluster.controller;

import io.brook.cluster.metadata.BrokerInfo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Where the replicas of new partitions go (docs/cluster.md, section 5), over the live (unfenced)
 * brokers only.
 *
 * <p>The brokers are first put in a rack-interleaved order: the first broker of each rack, then
 * the second of each, and so on (racks and brokers in sorted order; a broker without {@code
 * broker.rack} is a rack of its own). Partition {@code p}'s first replica, its leader, is the
 * broker at position {@code (start + p) mod n} of that order, so leaders spread evenly and
 * consecutive leaders sit on different racks. Its other replicas follow from a shifted position
 * (the shift grows with each round over the brokers, so followers spread too), taking first
 * brokers on racks the partition has no replica on yet, then any broker it has none on.
 *
 * <p>Deterministic: the same brokers, start and counts give the same assignment.
 */
final class PartitionPlacer {

    private PartitionPlacer() {
    }

    /**
     * The replicas of partitions {@code firstPartition .. firstPartition + count - 1}.
     *
     * @throws ControllerException INVALID_REPLICATION_FACTOR if there are fewer live brokers than
     *     {@code replicationFactor}
     */
    static List<List<Integer>> place(int firstPartition, int count, int replicationFactor, List<BrokerInfo> liveBrokers,
                                     int start) {
        if (replicationFactor < 1) {
            throw new ControllerException(ControllerError.INVALID_REPLICATION_FACTOR,
                    "replication factor must be at least 1, not " + replicationFactor);
        }
        if (replicationFactor > liveBrokers.size()) {
            throw new ControllerException(ControllerError.INVALID_REPLICATION_FACTOR, "replication factor "
                    + replicationFactor + " is larger than the " + liveBrokers.size() + " live brokers");
        }
        List<BrokerInfo> order = rackInterleaved(liveBrokers);
        int n = order.size();
        List<List<Integer>> out = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            long slot = (long) start + firstPartition + k;
            int leaderPos = (int) (slot % n);
            int shift = n == 1 ? 0 : 1 + (int) ((slot / n) % (n - 1));
            List<Integer> replicas = new ArrayList<>(replicationFactor);
            Set<String> racksUsed = new HashSet<>();
            replicas.add(order.get(leaderPos).id());
            racksUsed.add(rackKey(order.get(leaderPos)));
            while (replicas.size() < replicationFactor) {
                BrokerInfo next = pick(order, leaderPos + shift, replicas, racksUsed, true);
                if (next == null) {
                    next = pick(order, leaderPos + shift, replicas, racksUsed, false);
                }
                replicas.add(next.id());
                racksUsed.add(rackKey(next));
            }
            out.add(List.copyOf(replicas));
        }
        return out;
    }

    private static BrokerInfo pick(List<BrokerInfo> order, int from, List<Integer> chosen, Set<String> racksUsed,
                                   boolean newRackOnly) {
        int n = order.size();
        for (int step = 0; step < n; step++) {
            BrokerInfo b = order.get((from + step) % n);
            if (!chosen.contains(b.id()) && (!newRackOnly || !racksUsed.contains(rackKey(b)))) {
                return b;
            }
        }
        return null;
    }

    /** The brokers ordered first broker of each rack, then second of each, ... */
    static List<BrokerInfo> rackInterleaved(List<BrokerInfo> brokers) {
        Map<String, List<BrokerInfo>> byRack = new TreeMap<>();
        List<BrokerInfo> sorted = new ArrayList<>(brokers);
        sorted.sort(Comparator.comparingInt(BrokerInfo::id));
        for (BrokerInfo b : sorted) {
            byRack.computeIfAbsent(rackKey(b), r -> new ArrayList<>()).add(b);
        }
        List<BrokerInfo> out = new ArrayList<>(brokers.size());
        for (int round = 0; out.size() < brokers.size(); round++) {
            for (List<BrokerInfo> rack : byRack.values()) {
                if (round < rack.size()) {
                    out.add(rack.get(round));
                }
            }
        }
        return out;
    }

    /** A broker's rack; one without {@code broker.rack} is a rack of its own. */
    private static String rackKey(BrokerInfo b) {
        return b.rack() != null ? "rack:" + b.rack() : String.format(java.util.Locale.ROOT, "broker:%011d", b.id());
    }
}
