package io.brook.storage;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Progress lines for long start-up work (log recovery, a coordinator's load): how many of the
 * items are done out of how many, the amount of data behind them (bytes or records) and its rate,
 * so that a large restart is visibly progressing. At most one line per interval (by default
 * {@value #DEFAULT_INTERVAL_MS} ms) however often {@link #advance} is called, plus one line when
 * the work is {@link #finish finished}; nothing at all for work that finishes within the first
 * interval except that last line. Thread-safe: the recovery threads advance it concurrently.
 *
 * <p>A line reads like {@code Recovering logs in /data: 120/500 logs, 1.2 GiB (85.3 MiB/s), 14 s};
 * the last one starts with the past tense given ({@code Recovered ...}).
 */
public final class ProgressLog {

    /** How often a progress line is written at most. */
    public static final long DEFAULT_INTERVAL_MS = 10_000;

    /** What the amount counts: bytes print in binary units, records as a plain number. */
    public enum Unit { BYTES, RECORDS }

    private final String doing;
    private final String done;
    private final String items;
    private final long total;
    private final Unit unit;
    private final LongSupplier nanoTime;
    private final long intervalNanos;
    private final Consumer<String> sink;
    private final long startNanos;
    private long nextLineNanos;
    private long itemsDone;
    private long amount;

    /**
     * @param doing    the present tense, with what it works on ({@code Recovering logs in /data})
     * @param done     the past tense for the last line ({@code Recovered logs in /data})
     * @param items    what is counted ({@code logs}, {@code partitions})
     * @param total    how many items there are
     * @param nanoTime the time source ({@code System::nanoTime}; a virtual one in tests)
     * @param sink     where lines go (a logger's {@code info})
     */
    public ProgressLog(String doing, String done, String items, long total, Unit unit, LongSupplier nanoTime,
                       long intervalMs, Consumer<String> sink) {
        this.doing = doing;
        this.done = done;
        this.items = items;
        this.total = total;
        this.unit = unit;
        this.nanoTime = nanoTime;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMs);
        this.sink = sink;
        this.startNanos = nanoTime.getAsLong();
        this.nextLineNanos = startNanos + intervalNanos;
    }

    /** Counts {@code items} more items done and {@code amount} more bytes or records behind them. */
    public void advance(long itemsMore, long amountMore) {
        String line = null;
        synchronized (this) {
            itemsDone += itemsMore;
            amount += amountMore;
            long now = nanoTime.getAsLong();
            if (now - nextLineNanos >= 0) {
                nextLineNanos = now + intervalNanos;
                line = line(doing, now);
            }
        }
        if (line != null) {
            sink.accept(line);
        }
    }

    /** Writes the last line. */
    public void finish() {
        String line;
        synchronized (this) {
            line = line(done, nanoTime.getAsLong());
        }
        sink.accept(line);
    }

    private String line(String what, long now) {
        long elapsedNanos = Math.max(0, now - startNanos);
        double seconds = elapsedNanos / 1e9;
        double rate = seconds > 0 ? amount / seconds : 0;
        String amountText = unit == Unit.BYTES ? bytes(amount) : amount + " records";
        String rateText = unit == Unit.BYTES ? bytes((long) rate) + "/s" : String.format(Locale.ROOT, "%.0f records/s", rate);
        return String.format(Locale.ROOT, "%s: %d/%d %s, %s (%s), %d s", what, itemsDone, total, items, amountText,
                rateText, TimeUnit.NANOSECONDS.toSeconds(elapsedNanos));
    }

    /** {@code 1.2 GiB}, {@code 512 B}. */
    static String bytes(long n) {
        if (n < 1024) return n + " B";
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double v = n;
        int i = -1;
        while (v >= 1024 && i < units.length - 1) {
            v /= 1024;
            i++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[i]);
    }
}
