package io.brook.cluster.controller;

import io.brook.cluster.metadata.BrokerInfo;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataRecord.PartitionChange;
import io.brook.cluster.metadata.PartitionInfo;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The controller's rules for ElectLeaders (Kafka's KIP-460), as pure functions from a partition's
 * state to the {@link PartitionChange} that elects its leader:
 *
 * <ul>
 *   <li><b>preferred</b>: the first replica leads, if it is in the ISR and its broker is live;
 *       ELECTION_NOT_NEEDED when it leads already, PREFERRED_LEADER_NOT_AVAILABLE otherwise;</li>
 *   <li><b>unclean</b>, only for a partition without a leader: the first live replica of the ISR,
 *       else the first live replica outside it, which becomes the whole ISR (records only it had
 *       may be lost: that is what unclean means); ELECTION_NOT_NEEDED when the partition has a
 *       leader, ELIGIBLE_LEADERS_NOT_AVAILABLE when no replica is live.</li>
 * </ul>
 */
final class Elections {

    private Elections() {
    }

    static PartitionChange preferred(UUID topicId, int partition, PartitionInfo p, Map<Integer, BrokerInfo> brokers) {
        int preferred = p.replicas().get(0);
        if (p.leader() == preferred) {
            throw new ControllerException(ControllerError.ELECTION_NOT_NEEDED, "the preferred replica " + preferred
                    + " already leads partition " + partition);
        }
        if (!p.isr().contains(preferred) || !live(brokers, preferred)) {
            throw new ControllerException(ControllerError.PREFERRED_LEADER_NOT_AVAILABLE, "the preferred replica "
                    + preferred + " of partition " + partition + " is not live and in sync (ISR " + p.isr() + ")");
        }
        return new PartitionChange(topicId, partition, preferred, p.isr());
    }

    static PartitionChange unclean(UUID topicId, int partition, PartitionInfo p, Map<Integer, BrokerInfo> brokers) {
        if (p.leader() != MetadataRecord.NO_LEADER) {
            throw new ControllerException(ControllerError.ELECTION_NOT_NEEDED, "partition " + partition
                    + " has a leader (" + p.leader() + ")");
        }
        for (int r : p.replicas()) {
            if (p.isr().contains(r) && live(brokers, r)) {
                return new PartitionChange(topicId, partition, r, p.isr());
            }
        }
        for (int r : p.replicas()) {
            if (live(brokers, r)) {
                return new PartitionChange(topicId, partition, r, List.of(r));
            }
        }
        throw new ControllerException(ControllerError.ELIGIBLE_LEADERS_NOT_AVAILABLE, "no replica of partition "
                + partition + " " + p.replicas() + " is on a live broker");
    }

    private static boolean live(Map<Integer, BrokerInfo> brokers, int id) {
        BrokerInfo b = brokers.get(id);
        return b != null && !b.fenced();
    }
}
