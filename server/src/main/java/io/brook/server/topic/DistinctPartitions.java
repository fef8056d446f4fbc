package io.brook.server.topic;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Partitions named more than once in one Produce or Fetch request are handled once, as Kafka
 * does: Kafka collects a request's partitions in a map keyed by topic and partition, so the last
 * entry of a partition is the one that counts and the answer names each partition once. Without
 * this a client could make the broker append one batch twice, or read one partition as many
 * times as it repeats it, for the price of a few bytes per repetition.
 *
 * <p>The common request names each partition once and costs no allocation here: small requests
 * are compared pairwise, larger ones through a set.
 */
public final class DistinctPartitions {

    /** Up to this many partitions a request is checked pairwise (no allocation); above, with a set. */
    private static final int PAIRWISE_LIMIT = 32;

    private DistinctPartitions() {
    }

    /**
     * {@code topics} itself when no partition repeats; else topics in first-seen order, one
     * entry per topic name, each with one entry per partition (the last one given), in
     * first-seen order.
     *
     * @param name a topic entry's name
     * @param partitions a topic entry's partition entries
     * @param index a partition entry's partition index
     * @param rebuild a copy of a topic entry with other partition entries
     */
    public static <T, P> List<T> lastOfEach(List<T> topics, Function<T, String> name, Function<T, List<P>> partitions,
            ToIntFunction<P> index, BiFunction<T, List<P>, T> rebuild) {
        if (!hasDuplicates(topics, name, partitions, index)) {
            return topics;
        }
        Map<String, T> firstEntry = new LinkedHashMap<>();
        Map<String, Map<Integer, P>> lastPartitions = new LinkedHashMap<>();
        for (T t : topics) {
            firstEntry.putIfAbsent(name.apply(t), t);
            Map<Integer, P> parts = lastPartitions.computeIfAbsent(name.apply(t), k -> new LinkedHashMap<>());
            for (P p : partitions.apply(t)) {
                parts.put(index.applyAsInt(p), p);
            }
        }
        List<T> out = new ArrayList<>(firstEntry.size());
        for (Map.Entry<String, T> e : firstEntry.entrySet()) {
            out.add(rebuild.apply(e.getValue(), new ArrayList<>(lastPartitions.get(e.getKey()).values())));
        }
        return out;
    }

    private static <T, P> boolean hasDuplicates(List<T> topics, Function<T, String> name,
            Function<T, List<P>> partitions, ToIntFunction<P> index) {
        int n = 0;
        for (T t : topics) {
            n += partitions.apply(t).size();
        }
        if (n <= 1) {
            return false;
        }
        if (n > PAIRWISE_LIMIT) {
            Set<TopicPartitionKey> seen = new HashSet<>();
            for (T t : topics) {
                for (P p : partitions.apply(t)) {
                    if (!seen.add(new TopicPartitionKey(name.apply(t), index.applyAsInt(p)))) {
                        return true;
                    }
                }
            }
            return false;
        }
        for (int i = 0; i < topics.size(); i++) {
            T a = topics.get(i);
            List<P> aParts = partitions.apply(a);
            for (int j = i; j < topics.size(); j++) {
                T b = topics.get(j);
                if (j != i && !Objects.equals(name.apply(a), name.apply(b))) {
                    continue;
                }
                List<P> bParts = partitions.apply(b);
                for (int x = 0; x < aParts.size(); x++) {
                    for (int y = j == i ? x + 1 : 0; y < bParts.size(); y++) {
                        if (index.applyAsInt(aParts.get(x)) == index.applyAsInt(bParts.get(y))) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }

    private record TopicPartitionKey(String topic, int partition) {
    }
}
