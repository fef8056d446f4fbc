package io.brook.server.telemetry;

import io.brook.wire.protocol.Errors;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What the broker knows of one client instance (KIP-714): who it is (for the match patterns and
 * the labels), the subscription computed for it, when it last asked and pushed, whether it said
 * it is terminating, and the latest value of each series it pushed. Guarded by the
 * {@link ClientTelemetry} that holds it.
 */
final class ClientInstance {

    final UUID id;
    final ClientSelector client;
    /** The version of the subscription set this instance's subscription was computed from. */
    final int subscriptionVersion;
    final int subscriptionId;
    final List<String> metrics;
    final int pushIntervalMs;
    long lastGetMs = Long.MIN_VALUE / 2;
    long lastPushMs = Long.MIN_VALUE / 2;
    long lastHeardMs;
    boolean terminating;
    /** A subscription was handed out since the last accepted push (Kafka compares the two times). */
    boolean gotSinceLastPush;
    Errors lastError = Errors.NONE;
    final Map<MetricPoint.Series, MetricPoint> points = new LinkedHashMap<>();

    ClientInstance(UUID id, ClientSelector client, int subscriptionVersion, int subscriptionId, List<String> metrics,
            int pushIntervalMs) {
        this.id = id;
        this.client = client;
        this.subscriptionVersion = subscriptionVersion;
        this.subscriptionId = subscriptionId;
        this.metrics = List.copyOf(metrics);
        this.pushIntervalMs = pushIntervalMs;
    }

    /** How long it may stay silent before it is forgotten: three intervals, at least a minute (Kafka's rule). */
    long expiryMs() {
        return Math.max(ClientTelemetry.MIN_EXPIRY_MS, 3L * pushIntervalMs);
    }

    /**
     * Kafka's rule for GetTelemetrySubscriptions: one per push interval since the last request of
     * either kind; records the time when accepted.
     */
    boolean acceptGet(long now) {
        if (now - Math.max(lastGetMs, lastPushMs) >= pushIntervalMs) {
            gotSubscription(now);
            return true;
        }
        return false;
    }

    void gotSubscription(long now) {
        lastGetMs = now;
        gotSinceLastPush = true;
    }

    /**
     * Kafka's rule for PushTelemetry: the first push after a GetTelemetrySubscriptions is accepted
     * at once (the client spreads its first push over 0.5 to 1.5 intervals), later ones one per
     * interval; records the time when accepted.
     */
    boolean acceptPush(long now) {
        if (gotSinceLastPush || now - lastPushMs >= pushIntervalMs) {
            lastPushMs = now;
            gotSinceLastPush = false;
            return true;
        }
        return false;
    }

    /** Keeps the latest value of each series, at most {@code room} new series; returns how many were added. */
    int store(Collection<MetricPoint> pushed, int room) {
        int added = 0;
        for (MetricPoint p : pushed) {
            MetricPoint.Series s = p.series();
            if (points.containsKey(s)) {
                points.put(s, p);
            } else if (added < room) {
                points.put(s, p);
                added++;
            }
        }
        return added;
    }
}
