package io.brook.coordinator.group;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * The transactional offset commits of one group whose transaction has not ended (Kafka's pending
 * transactional offsets), by producer id, and the rules by which they become committed offsets.
 *
 * <p>Kafka's rules, applied in the order of the group's records in {@code __consumer_offsets}
 * (live, as each write becomes durable; at load, as the records are read):
 * <ul>
 *   <li>a transactional offset record adds or replaces its producer's pending offset for the
 *       partition;</li>
 *   <li>a COMMIT marker of the producer makes each of its pending offsets the committed offset,
 *       unless the committed offset came from a record later than the pending one (a plain commit
 *       made meanwhile, or another transaction's later offset committed first): the most recent
 *       record wins, as in Kafka, which compares record offsets; an ABORT marker drops them;</li>
 *   <li>an offset tombstone removes the committed offset and every pending one of the partition.</li>
 * </ul>
 * "Later" is the order in which records were applied, which for one group is the order of its
 * partition's log: a counter per group, and for partitions that have pending offsets the order of
 * the record their committed offset came from.
 *
 * <p>{@code marks} (the group's {@link ClassicGroup#pendingTransactionalOffsets}) lists the
 * partitions with a pending offset: OffsetFetch with {@code require_stable} answers them
 * UNSTABLE_OFFSET_COMMIT, and expiry leaves them alone.
 *
 * <p>Owner thread of the group coordinator only.
 */
final class PendingTxnOffsets {

    /** A pending offset and the order of its record. */
    record Pending(CoordinatorRecords.OffsetValue value, long order) {
    }

    /** What a COMMIT does with the committed offsets of the group. */
    interface Committer {
        void put(String topic, int partition, CoordinatorRecords.OffsetValue value, long order);
    }

    /** producer id → topic → partition → offset. */
    private final Map<Long, Map<String, Map<Integer, Pending>>> byProducer = new HashMap<>();
    /** For partitions with pending offsets: the order of the record of the committed offset. */
    private final Map<String, Map<Integer, Long>> committedOrder = new HashMap<>();
    private final Map<String, Set<Integer>> marks;
    private long order;

    PendingTxnOffsets(Map<String, Set<Integer>> marks) {
        this.marks = marks;
    }

    /** The order of the next record applied to the group's offsets. */
    long nextOrder() {
        return ++order;
    }

    boolean isEmpty() {
        return byProducer.isEmpty();
    }

    /** Producers with pending offsets in this group. */
    Set<Long> producers() {
        return byProducer.keySet();
    }

    /** A transactional offset record of {@code producerId}. */
    void add(long producerId, String topic, int partition, CoordinatorRecords.OffsetValue value) {
        byProducer.computeIfAbsent(producerId, x -> new HashMap<>()).computeIfAbsent(topic, x -> new HashMap<>())
                .put(partition, new Pending(value, nextOrder()));
        marks.computeIfAbsent(topic, t -> new HashSet<>()).add(partition);
    }

    /** The committed offset of a partition was set from the record of {@code recordOrder}. */
    void committed(String topic, int partition, long recordOrder) {
        Set<Integer> s = marks.get(topic);
        if (s != null && s.contains(partition)) {
            committedOrder.computeIfAbsent(topic, x -> new HashMap<>()).put(partition, recordOrder);
        }
    }

    /** An offset tombstone: no offset of the partition stays pending. */
    void removed(String topic, int partition) {
        Iterator<Map<String, Map<Integer, Pending>>> it = byProducer.values().iterator();
        while (it.hasNext()) {
            Map<String, Map<Integer, Pending>> topics = it.next();
            Map<Integer, Pending> parts = topics.get(topic);
            if (parts == null || parts.remove(partition) == null) continue;
            if (parts.isEmpty()) topics.remove(topic);
            if (topics.isEmpty()) it.remove();
        }
        unmark(topic, partition);
    }

    /**
     * The marker of {@code producerId}'s transaction: its pending offsets are committed through
     * {@code committer} (each unless a later record set the committed offset) or dropped.
     *
     * @return whether the producer had pending offsets here
     */
    boolean end(long producerId, boolean commit, Committer committer) {
        Map<String, Map<Integer, Pending>> mine = byProducer.remove(producerId);
        if (mine == null) return false;
        mine.forEach((topic, parts) -> parts.forEach((partition, pending) -> {
            if (commit) {
                Map<Integer, Long> orders = committedOrder.get(topic);
                Long current = orders == null ? null : orders.get(partition);
                if (current == null || current < pending.order()) {
                    committer.put(topic, partition, pending.value(), pending.order());
                }
            }
            if (!pendingElsewhere(topic, partition)) unmark(topic, partition);
        }));
        return true;
    }

    /** The pending offset of a producer for a partition, or null (tests). */
    CoordinatorRecords.OffsetValue pending(long producerId, String topic, int partition) {
        Map<String, Map<Integer, Pending>> topics = byProducer.get(producerId);
        Map<Integer, Pending> parts = topics == null ? null : topics.get(topic);
        Pending p = parts == null ? null : parts.get(partition);
        return p == null ? null : p.value();
    }

    private boolean pendingElsewhere(String topic, int partition) {
        for (Map<String, Map<Integer, Pending>> topics : byProducer.values()) {
            Map<Integer, Pending> parts = topics.get(topic);
            if (parts != null && parts.containsKey(partition)) return true;
        }
        return false;
    }

    private void unmark(String topic, int partition) {
        Set<Integer> s = marks.get(topic);
        if (s != null && s.remove(partition) && s.isEmpty()) marks.remove(topic);
        Map<Integer, Long> orders = committedOrder.get(topic);
        if (orders != null && orders.remove(partition) != null && orders.isEmpty()) committedOrder.remove(topic);
    }
}
