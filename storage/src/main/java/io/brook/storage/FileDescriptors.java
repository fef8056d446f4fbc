package io.brook.storage;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The process's file descriptors, as far as the logs are concerned: each segment of each
 * partition holds one open file, so partitions and segments are what a client can make the broker
 * spend descriptors on, and a broker out of them can roll no segment, accept no connection and
 * (with that many segments) not even start again. The logs keep a <em>headroom</em> free, a
 * tenth of the process's limit (at least {@value #MIN_HEADROOM}): a topic creation that would eat
 * into it is refused ({@link #budget}), and while the process is inside it ({@link #scarce}) a
 * log rolls only when its active segment cannot take the next batch at all (offsets or positions
 * would overflow), so a topic set to roll every millisecond, or every megabyte, cannot run the
 * process out. Kafka has no such bound; it stops a log directory when an open fails.
 *
 * <p>Reading the count lists {@code /proc/self/fd}, whose cost grows with the number of open
 * files, so {@link #scarce} (asked on the append path, only when a log wants to roll) reuses a
 * reading for up to a second, adding the files rolls opened since; {@link #budget} (asked once
 * per creating request) reads afresh.
 *
 * <p>Threading: any thread; a reading shared by threads may be up to a second old.
 */
public final class FileDescriptors {
    /** The smallest headroom kept free. */
    static final long MIN_HEADROOM = 128;
    private static final long REUSE_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** No bound: every creation allowed, never scarce (tests, and JVMs that do not count). */
    public static final FileDescriptors UNBOUNDED = new FileDescriptors(() -> -1, () -> -1, System::nanoTime);

    private final LongSupplier openCount;
    private final LongSupplier maxCount;
    private final LongSupplier nanoTime;
    private volatile long readAt;
    private volatile boolean read;
    private volatile long lastOpen = -1;
    private volatile long lastMax = -1;
    /** Files the logs opened since the last reading ({@link #opening}), counted on top of it. */
    private final AtomicLong openedSince = new AtomicLong();

    /**
     * Counts from {@code openCount} (files open now) and {@code maxCount} (the process's limit),
     * either -1 when unknown, and time from {@code nanoTime}.
     */
    public FileDescriptors(LongSupplier openCount, LongSupplier maxCount, LongSupplier nanoTime) {
        this.openCount = openCount;
        this.maxCount = maxCount;
        this.nanoTime = nanoTime;
    }

    /** This process's descriptors, counted by the JVM (unbounded where it does not count them). */
    public static FileDescriptors ofProcess() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (!(os instanceof com.sun.management.UnixOperatingSystemMXBean unix)) {
            return UNBOUNDED;
        }
        return new FileDescriptors(() -> countOrLimit(unix::getOpenFileDescriptorCount, unix::getMaxFileDescriptorCount),
                unix::getMaxFileDescriptorCount, System::nanoTime);
    }

    /**
     * {@code count}, or {@code limit} when counting fails for want of a descriptor: the JVM counts
     * by listing {@code /proc/self/fd}, which takes one itself, and at the limit throws
     * InternalError (EMFILE). That is a count of the limit, not a failure of the caller (an append
     * about to roll, a request creating topics).
     */
    static long countOrLimit(LongSupplier count, LongSupplier limit) {
        try {
            return count.getAsLong();
        } catch (InternalError e) {
            return limit.getAsLong();
        }
    }

    /** The descriptors kept free for limit {@code max}: a tenth of it, at least {@link #MIN_HEADROOM}. */
    static long headroom(long max) {
        return Math.max(MIN_HEADROOM, max / 10);
    }

    /** How many files the process may open, -1 when unknown; asks no descriptor of its own. */
    public long limit() {
        return maxCount.getAsLong();
    }

    /**
     * One reading of the count, to check several creations against (one request's topics): each
     * {@link Budget#take} counts the ones taken before it.
     */
    public Budget budget() {
        return new Budget(openCount.getAsLong(), maxCount.getAsLong());
    }

    /** A reading of the count and what was taken from it since. Not thread-safe: one caller's. */
    public static final class Budget {
        private final long open;
        private final long max;
        private long taken;

        private Budget(long open, long max) {
            this.open = open;
            this.max = max;
        }

        /**
         * Takes {@code more} files and returns null when they fit without eating into the
         * headroom (or nothing is known); else takes nothing and says why not, in words for an
         * operator.
         */
        public String take(long more) {
            if (max <= 0 || open < 0) {
                return null;
            }
            long room = max - headroom(max) - open - taken;
            if (more <= room) {
                taken += more;
                return null;
            }
            return "the broker holds " + (open + taken) + " open files of the " + max + " its process may open and"
                    + " keeps " + headroom(max) + " free, so it cannot take " + more + " more (each partition holds one"
                    + " per segment; raise the process's limit, ulimit -n)";
        }
    }

    /**
     * Whether the process is inside the headroom: by a reading at most a second old plus the
     * files the logs opened since ({@link #opening}), so that a burst of rolls within the second
     * cannot run past the headroom unseen (files closed meanwhile count at the next reading).
     */
    public boolean scarce() {
        long now = nanoTime.getAsLong();
        if (!read || now - readAt >= REUSE_NANOS) {
            openedSince.set(0);
            lastMax = maxCount.getAsLong();
            lastOpen = openCount.getAsLong();
            readAt = now;
            read = true;
        }
        long max = lastMax;
        long open = lastOpen;
        return max > 0 && open >= 0 && open + openedSince.get() > max - headroom(max);
    }

    /** The logs are about to open one more file (a roll): counted by {@link #scarce} until the next reading. */
    public void opening() {
        openedSince.incrementAndGet();
    }
}
