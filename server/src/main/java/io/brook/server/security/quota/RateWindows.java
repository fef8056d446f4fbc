package io.brook.server.security.quota;

/**
 * A rate measured the way Kafka measures quota rates (its sampled {@code Rate} over a windowed
 * sum): values are added to the current sample; a sample covers {@code windowMs} from its first
 * value; {@code samples} of them are kept (plus one that may overlap the start of the measured
 * span). The rate is the sum of the kept samples over the time they span, counted as at least
 * {@code samples - 1} full windows so that a fresh client is not measured over a few
 * milliseconds. A sample whose last value is {@code samples * windowMs} old or more is reset.
 *
 * <p>With Kafka's defaults ({@code quota.window.num} 11, {@code quota.window.size.seconds} 1) the
 * rate is averaged over the last 10 to 11 seconds. Not thread-safe: callers synchronize.
 */
public final class RateWindows {

    private final int samples;
    private final long windowMs;
    private final long[] start;
    private final long[] lastEvent;
    private final double[] value;
    /** How many slots are in use (they fill up in order), and which one is current. */
    private int used;
    private int current;

    public RateWindows(int samples, long windowMs) {
        if (samples < 1 || windowMs < 1) {
            throw new IllegalArgumentException("samples and windowMs must be positive");
        }
        this.samples = samples;
        this.windowMs = windowMs;
        int slots = samples + 1;
        this.start = new long[slots];
        this.lastEvent = new long[slots];
        this.value = new double[slots];
    }

    /** Adds {@code v} at {@code nowMs}. */
    public void record(double v, long nowMs) {
        if (used == 0) {
            reset(0, nowMs);
            used = 1;
        } else if (nowMs - start[current] >= windowMs) {
            current = (current + 1) % start.length;
            if (current >= used) {
                used = current + 1;
            }
            reset(current, nowMs);
        }
        value[current] += v;
        lastEvent[current] = nowMs;
    }

    /** The rate per second at {@code nowMs}. */
    public double rate(long nowMs) {
        purge(nowMs);
        double total = 0;
        for (int i = 0; i < used; i++) {
            total += value[i];
        }
        return total / (spanMs(nowMs) / 1000.0);
    }

    /**
     * How long to stay away for the rate to come down to {@code bound}, if nothing more is
     * recorded: with O the rate over a span W, O·W / (W + X) = bound gives X = (O − bound) / bound · W
     * (Kafka's throttle time). Zero when the rate is within the bound.
     */
    public long throttleMs(double bound, long nowMs) {
        double observed = rate(nowMs);
        if (observed <= bound) {
            return 0;
        }
        return Math.round((observed - bound) / bound * spanMs(nowMs));
    }

    /** The time the rate is measured over at {@code nowMs}: at least {@code samples - 1} windows, at least 1 ms. */
    long spanMs(long nowMs) {
        purge(nowMs);
        long oldest = nowMs;
        for (int i = 0; i < used; i++) {
            oldest = Math.min(oldest, start[i]);
        }
        long elapsed = nowMs - oldest;
        long full = elapsed / windowMs;
        if (full < samples - 1) {
            elapsed += (samples - 1 - full) * windowMs;
        }
        return Math.max(elapsed, 1);
    }

    /**
     * Whether every value recorded is {@code samples * windowMs} old or more at {@code nowMs}:
     * the rate then measures as a new one's would, and can be dropped.
     */
    public boolean holdsNothing(long nowMs) {
        long expireAge = samples * windowMs;
        for (int i = 0; i < used; i++) {
            if (nowMs - lastEvent[i] < expireAge) {
                return false;
            }
        }
        return true;
    }

    private void purge(long nowMs) {
        long expireAge = samples * windowMs;
        for (int i = 0; i < used; i++) {
            if (nowMs - lastEvent[i] >= expireAge) {
                reset(i, nowMs);
            }
        }
    }

    private void reset(int i, long nowMs) {
        start[i] = nowMs;
        lastEvent[i] = nowMs;
        value[i] = 0;
    }
}
