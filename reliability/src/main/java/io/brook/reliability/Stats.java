package io.brook.reliability;

import java.util.Collection;

/** Min, median, 99th percentile and max of a set of samples (nearest rank; no interpolation). */
record Stats(int count, double min, double median, double p99, double max) {

    static Stats of(Collection<? extends Number> samples) {
        double[] v = samples.stream().mapToDouble(Number::doubleValue).sorted().toArray();
        if (v.length == 0) {
            return new Stats(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        return new Stats(v.length, v[0], rank(v, 0.5), rank(v, 0.99), v[v.length - 1]);
    }

    private static double rank(double[] sorted, double q) {
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    /** Adds {@code name min/median/p99/max} figures to the result. */
    void addTo(ScenarioResult result, String name, String unit) {
        if (count == 0) {
            result.figure(name, "no samples");
            return;
        }
        result.figure(name + " (n)", count, "");
        result.figure(name + " min", min, unit);
        result.figure(name + " median", median, unit);
        result.figure(name + " p99", p99, unit);
        result.figure(name + " max", max, unit);
    }

    @Override
    public String toString() {
        return count == 0 ? "no samples" : "n=" + count + " min=" + min + " median=" + median + " p99=" + p99
                + " max=" + max;
    }
}
