package io.brook.cluster.controller;

import io.brook.cluster.metadata.BrokerInfo;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataRecord.PartitionReassignment;
import io.brook.cluster.metadata.PartitionInfo;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The controller's rules for moving a partition's replicas (docs/cluster.md, "Moving
 * partitions"), as Kafka's controller applies them: pure functions from a partition's state to
 * the {@link PartitionReassignment} record that the next step writes.
 *
 * <ul>
 *   <li><b>Start</b>: from the partition's original replicas (its replicas without those a
 *       reassignment under way is adding) and the target, the replicas become the target followed
 *       by the original replicas not in it; the adding replicas are the target's not in the
 *       original, the removing ones the original's not in the target. Leader and ISR stay: the
 *       new replicas join the ISR when they have caught up.</li>
 *   <li><b>Completion</b>, as soon as every target replica is in the ISR (at once when the target
 *       adds no replica): the replicas become the target, the ISR keeps only target replicas, and
 *       the leader stays if it is a target replica, else the first target replica in the ISR on
 *       a live broker leads (a new leader epoch), or none.</li>
 *   <li><b>Cancellation</b>: back to the original replicas, the ISR without the adding ones.</li>
 * </ul>
 */
final class Reassignments {

    private Reassignments() {
    }

    /** The record that starts (or replaces) a reassignment of {@code p} to {@code target}. */
    static PartitionReassignment start(UUID topicId, int partition, PartitionInfo p, List<Integer> target,
                                       Map<Integer, BrokerInfo> brokers) {
        checkTarget(target, brokers);
        if (completing(p)) {
            throw new ControllerException(ControllerError.REASSIGNMENT_IN_PROGRESS, "the move of partition " + partition
                    + " is completing: its new leader " + p.leader() + " is reading the rest of the log of "
                    + p.removingReplicas() + "; try again in a moment");
        }
        List<Integer> original = p.originalReplicas();
        List<Integer> replicas = new ArrayList<>(target);
        List<Integer> removing = new ArrayList<>();
        for (int r : original) {
            if (!target.contains(r)) {
                replicas.add(r);
                removing.add(r);
            }
        }
        List<Integer> adding = target.stream().filter(r -> !original.contains(r)).toList();
        List<Integer> isr = p.isr().stream().filter(replicas::contains).toList();
        if (isr.isEmpty()) {
            throw new ControllerException(ControllerError.INVALID_REPLICA_ASSIGNMENT, "no replica of the ISR "
                    + p.isr() + " would be left to copy the partition from");
        }
        int leader = isr.contains(p.leader()) ? p.leader() : MetadataRecord.NO_LEADER;
        PartitionReassignment started = new PartitionReassignment(topicId, partition, replicas, isr, leader, adding,
                removing);
        return isr.containsAll(target) ? complete(started, brokers) : started;
    }

    /** The record that cancels the reassignment under way. */
    static PartitionReassignment cancel(UUID topicId, int partition, PartitionInfo p, Map<Integer, BrokerInfo> brokers) {
        if (!p.reassigning()) {
            throw new ControllerException(ControllerError.NO_REASSIGNMENT_IN_PROGRESS, "no reassignment of partition "
                    + partition + " is in progress");
        }
        if (completing(p)) {
            throw new ControllerException(ControllerError.NO_REASSIGNMENT_IN_PROGRESS, "the move of partition "
                    + partition + " has completed: its new leader " + p.leader() + " is reading the rest of the log of "
                    + p.removingReplicas());
        }
        List<Integer> original = p.originalReplicas();
        List<Integer> isr = p.isr().stream().filter(original::contains).toList();
        if (isr.isEmpty()) {
            throw new ControllerException(ControllerError.INVALID_REPLICA_ASSIGNMENT, "the original replicas "
                    + original + " are out of sync (ISR " + p.isr() + "); reassign the partition instead");
        }
        return new PartitionReassignment(topicId, partition, original, isr, leaderAmong(p.leader(), original, isr,
                brokers), List.of(), List.of());
    }

    /**
     * The record for a replica being added that has caught up: it joins the ISR, and the
     * reassignment completes if that was the last target replica missing from it.
     */
    static PartitionReassignment caughtUp(UUID topicId, int partition, PartitionInfo p, int brokerId,
                                          Map<Integer, BrokerInfo> brokers) {
        if (!p.addingReplicas().contains(brokerId)) {
            throw new ControllerException(ControllerError.NO_REASSIGNMENT_IN_PROGRESS, "broker " + brokerId
                    + " is not a replica being added to partition " + partition + " (adding " + p.addingReplicas() + ")");
        }
        List<Integer> isr = new ArrayList<>(p.isr());
        if (!isr.contains(brokerId)) {
            isr.add(brokerId);
        }
        PartitionReassignment joined = new PartitionReassignment(topicId, partition, p.replicas(), isr, p.leader(),
                p.addingReplicas(), p.removingReplicas());
        return isr.containsAll(p.targetReplicas()) ? complete(joined, brokers) : joined;
    }

    /**
     * The record for the new leader of a completed move that has read the former leader's log to
     * its end: the former leader leaves the replicas.
     */
    static PartitionReassignment drained(UUID topicId, int partition, PartitionInfo p, int brokerId) {
        if (!completing(p) || p.leader() != brokerId) {
            throw new ControllerException(ControllerError.NO_REASSIGNMENT_IN_PROGRESS, "broker " + brokerId
                    + " is not the new leader of partition " + partition + " draining its former leader (leader "
                    + p.leader() + ", adding " + p.addingReplicas() + ", removing " + p.removingReplicas() + ")");
        }
        return new PartitionReassignment(topicId, partition, p.targetReplicas(), p.isr(), p.leader(), List.of(),
                List.of());
    }

    /** Whether a completed move waits for its new leader to drain the former one. */
    static boolean completing(PartitionInfo p) {
        return p.addingReplicas().isEmpty() && !p.removingReplicas().isEmpty();
    }

    /**
     * {@code r} completed: the target replicas only, the leader among them. When the leader
     * changes, the removing replicas of the ISR (the former leader, or the replica that led
     * until it was fenced: it may hold acknowledged records the new leader has not copied yet)
     * stay, as the replicas being removed, until the new leader has drained them.
     */
    private static PartitionReassignment complete(PartitionReassignment r, Map<Integer, BrokerInfo> brokers) {
        List<Integer> target = r.replicas().stream().filter(x -> !r.removingReplicas().contains(x)).toList();
        List<Integer> isr = r.isr().stream().filter(target::contains).toList();
        int leader = leaderAmong(r.leader(), target, isr, brokers);
        List<Integer> former = r.removingReplicas().stream().filter(r.isr()::contains).toList();
        if (leader != r.leader() && !former.isEmpty()) {
            List<Integer> replicas = new ArrayList<>(target);
            replicas.addAll(former);
            return new PartitionReassignment(r.topicId(), r.partition(), replicas, isr, leader, List.of(), former);
        }
        return new PartitionReassignment(r.topicId(), r.partition(), target, isr, leader, List.of(), List.of());
    }

    /** The current leader if it is one of {@code replicas} in the ISR, else the first live one of them in the ISR. */
    private static int leaderAmong(int leader, List<Integer> replicas, List<Integer> isr, Map<Integer, BrokerInfo> brokers) {
        if (leader != MetadataRecord.NO_LEADER && replicas.contains(leader) && isr.contains(leader)) {
            return leader;
        }
        for (int r : replicas) {
            BrokerInfo b = brokers.get(r);
            if (isr.contains(r) && b != null && !b.fenced()) {
                return r;
            }
        }
        return MetadataRecord.NO_LEADER;
    }

    private static void checkTarget(List<Integer> target, Map<Integer, BrokerInfo> brokers) {
        if (target.isEmpty()) {
            throw new ControllerException(ControllerError.INVALID_REPLICA_ASSIGNMENT,
                    "The manual partition assignment includes an empty replica list.");
        }
        Set<Integer> seen = new HashSet<>();
        for (int r : target) {
            if (!seen.add(r)) {
                throw new ControllerException(ControllerError.INVALID_REPLICA_ASSIGNMENT,
                        "The manual partition assignment includes the broker " + r + " more than once.");
            }
            if (!brokers.containsKey(r)) {
                throw new ControllerException(ControllerError.INVALID_REPLICA_ASSIGNMENT,
                        "The manual partition assignment includes broker " + r + ", but no such broker is registered.");
            }
        }
    }
}
