package io.brook.reliability;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The highest offset each group had committed successfully for each partition: a committed
 * offset read back later (after a restart) must never be below the floor that stood before it.
 * Thread-safe.
 */
final class CommitFloors {
    private final Map<String, Map<TopicPartition, Long>> floors = new ConcurrentHashMap<>();

    void raise(String group, TopicPartition tp, long offset) {
        floors.computeIfAbsent(group, g -> new ConcurrentHashMap<>()).merge(tp, offset, Math::max);
    }

    /** A copy of the floors now. */
    Map<String, Map<TopicPartition, Long>> snapshot() {
        Map<String, Map<TopicPartition, Long>> copy = new TreeMap<>();
        floors.forEach((g, m) -> copy.put(g, Map.copyOf(m)));
        return copy;
    }

    /**
     * Every partition whose committed offset in {@code observed} is below its floor in
     * {@code before} (a missing commit counts as -1), described in words; empty when none went back.
     */
    static List<String> regressions(Map<String, Map<TopicPartition, Long>> before,
            Map<String, Map<TopicPartition, OffsetAndMetadata>> observed) {
        List<String> out = new ArrayList<>();
        before.forEach((group, floor) -> {
            Map<TopicPartition, OffsetAndMetadata> now = observed.getOrDefault(group, Map.of());
            floor.forEach((tp, min) -> {
                OffsetAndMetadata om = now.get(tp);
                long seen = om == null ? -1 : om.offset();
                if (seen < min) {
                    out.add(group + " " + tp + ": committed " + min + " before, " + seen + " after");
                }
            });
        });
        return out;
    }
}
