package io.brook.server.security.quota;

import java.util.function.LongSupplier;

/**
 * One CreateTopics, CreatePartitions or DeleteTopics request's share of its client's
 * {@code controller_mutation_rate} quota (KIP-599), as Kafka's ControllerMutationQuota: the
 * handler charges each topic it is about to create, delete or grow with its partitions (created,
 * deleted or added), in request order, on the {@link TokenBucket} of the quota that applies to
 * the request's user and client id ({@link ClientQuotas#mutations}).
 *
 * <ul>
 *   <li>Strict (the versions whose clients know THROTTLING_QUOTA_EXCEEDED): a topic is refused
 *       when the bucket is already below zero, and then nothing of it is done; otherwise it is
 *       done and charged in full, even when that takes the bucket below zero.
 *   <li>Permissive (older versions): every topic is done and charged.
 * </ul>
 *
 * <p>The throttle time is Kafka's: the time the bucket needs to come back to zero, taken when a
 * topic was refused (strict) or when a charge left the bucket below zero (permissive), less the
 * time that has passed since. So a strict request that takes the bucket below zero without being
 * refused is not throttled; the next one is refused and throttled. Used by one request at a time;
 * its answer may be built on another thread than its charges.
 */
public final class MutationQuota {

    /** No quota applies: everything is done, nothing is charged or throttled. */
    public static final MutationQuota UNLIMITED = new MutationQuota(null, 0, 0, false, () -> 0L);

    /** Null when no quota applies. */
    private final TokenBucket bucket;
    private final double rate;
    private final double burst;
    private final boolean strict;
    private final LongSupplier nowMs;
    private long throttleMs;
    private long throttledAtMs;

    MutationQuota(TokenBucket bucket, double rate, double burst, boolean strict, LongSupplier nowMs) {
        this.bucket = bucket;
        this.rate = rate;
        this.burst = burst;
        this.strict = strict;
        this.nowMs = nowMs;
    }

    /**
     * Charges a topic's {@code partitions} mutations: true when the topic may be done (it is
     * charged), false when it is refused with THROTTLING_QUOTA_EXCEEDED (strict only; nothing
     * charged).
     */
    public boolean charge(int partitions) {
        if (bucket == null) {
            return true;
        }
        long now = nowMs.getAsLong();
        double debt;
        boolean refused;
        synchronized (bucket) {
            double before = bucket.tokens(rate, burst, now);
            refused = strict && before < 0;
            debt = refused ? before : bucket.take(partitions, rate, burst, now);
        }
        if (refused || (!strict && debt < 0)) {
            throttled(TokenBucket.msToZero(debt, rate), now);
        }
        return !refused;
    }

    private synchronized void throttled(long ms, long now) {
        throttleMs = ms;
        throttledAtMs = now;
    }

    /** The throttle time for the answer, in ms: 0 unless a charge asked for one (see the class comment). */
    public synchronized int throttleMs() {
        if (throttleMs == 0) {
            return 0;
        }
        long left = throttleMs - (nowMs.getAsLong() - throttledAtMs);
        return (int) Math.min(Integer.MAX_VALUE, Math.max(0, left));
    }
}
