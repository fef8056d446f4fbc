package io.brook.server.telemetry;

import java.util.Map;

/**
 * The latest value of one pushed time series: the metric's name as the client named it, its data
 * point's attributes (sorted by key), and whether it is a monotonic sum (a Prometheus counter) or
 * anything else that is a number (a gauge).
 */
record MetricPoint(String name, Map<String, String> attributes, boolean counter, double value) {

    /** What identifies the series within one client instance. */
    record Series(String name, Map<String, String> attributes) {
    }

    Series series() {
        return new Series(name, attributes);
    }
}
