package io.brook.bench.runner;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * The figures of one workload against one broker, or why it failed. A failure is kept as a
 * result so that the report shows it next to the other broker's figures.
 */
final class Result {
    final String workload;
    final String broker;
    final Map<Metric, Double> values;
    final String failure;

    private Result(String workload, String broker, Map<Metric, Double> values, String failure) {
        this.workload = workload;
        this.broker = broker;
        this.values = Collections.unmodifiableMap(values);
        this.failure = failure;
    }

    static Builder of(String workload, String broker) {
        return new Builder(workload, broker);
    }

    static Result failed(String workload, String broker, String why) {
        return new Result(workload, broker, new EnumMap<>(Metric.class), why);
    }

    /** The same figures under another workload name (the TLS variants of a workload). */
    Result renamed(String workload) {
        return new Result(workload, broker, values, failure);
    }

    boolean failed() {
        return failure != null;
    }

    static final class Builder {
        private final String workload;
        private final String broker;
        private final Map<Metric, Double> values = new EnumMap<>(Metric.class);

        private Builder(String workload, String broker) {
            this.workload = workload;
            this.broker = broker;
        }

        Builder put(Metric metric, double value) {
            values.put(metric, value);
            return this;
        }

        /** records/s, MB/s, broker CPU s and CPU s per GB from one measured phase. */
        Builder throughput(long records, long bytes, double seconds, double cpuSeconds) {
            put(Metric.RECORDS_PER_S, records / seconds);
            put(Metric.MB_PER_S, bytes / 1e6 / seconds);
            put(Metric.BROKER_CPU_S, cpuSeconds);
            put(Metric.BROKER_CPU_S_PER_GB, cpuSeconds / (bytes / 1e9));
            return this;
        }

        Result build() {
            return new Result(workload, broker, values, null);
        }
    }
}
