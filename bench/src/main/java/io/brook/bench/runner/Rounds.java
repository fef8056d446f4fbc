package io.brook.bench.runner;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The figures of a run repeated with {@code --repeat N}: every broker measured N times, the
 * brokers taking turns within each round, and each figure reported as the median of its N values.
 *
 * <p>Why: on a shared two-core virtual machine one run of a workload moves by up to 2× between
 * runs of the same code (the disk's sync latency, the page cache, the other broker's JIT), so a
 * ratio from one run can pass or miss a goal by chance. The median of an odd number of rounds
 * ignores the one outlier in each direction; taking turns spreads a slow stretch of the machine
 * over both brokers instead of one.
 *
 * <p>A workload that failed in any round is reported as failed, with the round named: a failure
 * is a finding (a count that did not match, a broker that stopped), not noise to be outvoted.
 */
final class Rounds {
    /** The most rounds {@code --repeat} takes: a full matrix takes 10–12 minutes a round. */
    static final int MAX = 9;

    private Rounds() {
    }

    /**
     * One result per workload and broker, in the order they first appear: the median of each
     * figure over the rounds that have it, or the first failure.
     */
    static List<Result> medians(List<List<Result>> rounds) {
        Map<String, List<Result>> byKey = new LinkedHashMap<>();
        Map<String, String> failures = new LinkedHashMap<>();
        for (int round = 0; round < rounds.size(); round++) {
            for (Result r : rounds.get(round)) {
                String key = r.workload + '\u0000' + r.broker;
                byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
                if (r.failed() && !failures.containsKey(key)) {
                    failures.put(key, "round " + (round + 1) + " of " + rounds.size() + ": " + r.failure);
                }
            }
        }
        List<Result> merged = new ArrayList<>();
        for (Map.Entry<String, List<Result>> e : byKey.entrySet()) {
            Result first = e.getValue().get(0);
            String failure = failures.get(e.getKey());
            if (failure != null) {
                merged.add(Result.failed(first.workload, first.broker, failure));
                continue;
            }
            Map<Metric, List<Double>> values = new EnumMap<>(Metric.class);
            for (Result r : e.getValue()) {
                r.values.forEach((m, v) -> values.computeIfAbsent(m, k -> new ArrayList<>()).add(v));
            }
            Result.Builder b = Result.of(first.workload, first.broker);
            values.forEach((m, v) -> b.put(m, median(v)));
            merged.add(b.build());
        }
        return merged;
    }

    /** The middle value, or the mean of the two middle ones of an even count. */
    static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
