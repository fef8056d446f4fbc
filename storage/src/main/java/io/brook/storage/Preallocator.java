package io.brook.storage;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Writes zeros ahead of the data of active segments and forces them, on one background thread
 * ({@code brook.log.preallocate.bytes}), for logs that fsync before answering acks=all.
 *
 * <p>Why: on ext4 (and file systems like it) an append that grows a file, or fills blocks the
 * file does not hold yet, leaves block allocation and a new length for the next fdatasync to
 * commit through the journal; an append over blocks already written leaves only data. Measured
 * on this project's machines (ext4 on a virtual disk), a 16 KiB write plus fdatasync took
 * 0.16–0.18 ms appending and 0.09–0.10 ms over zeros, with a third less system CPU; a 1 MiB one
 * 0.86 ms and 0.36 ms. With an fsync behind every acks=all answer, those fdatasyncs are most of
 * the broker's CPU and bound a single partition's throughput.
 *
 * <p>The cost: every byte of a segment reaches the disk twice (zeros, then data), and each active
 * segment holds up to the setting's bytes of zeros past its data until it is rolled or the broker
 * stops cleanly (then the file is cut back to its data). Logs without fsync on ack are left
 * alone: their rare flushes commit the metadata of many appends at once, and the second write
 * would only cost. The zeros go through the page cache (O_DIRECT writes that grow a file were
 * measured to stall appends on ext4's inode lock for as long as the device takes).
 *
 * <p>Only logs whose forces are small on average ({@link #WORTH_BELOW_BYTES_PER_FLUSH}) are
 * extended: the journal commit saved is a cost per force, the zeros a cost per byte.
 *
 * <p>How much is written ahead grows with the segment: the largest power of two not above the
 * data already in it, between {@link #MIN_BYTES} and the setting, so that a barely used
 * partition holds 64 KiB of zeros and a busy one a few MiB. A new extension is queued when less
 * than half of that is left. An append that overtakes the zeros simply grows the file, as it
 * would without preallocation.
 *
 * <p>Threading: {@link #maybeExtend} is called by appenders under their log's lock and never
 * blocks; a segment is queued at most once at a time.
 *
 * <p>Failures: a write of zeros that fails (a full disk, typically) gives back the zeros it
 * wrote, logs a warning and pauses preallocation for {@link #PAUSE_AFTER_FAILURE_MS}; appends go
 * on without it meanwhile, and it comes back by itself once a write of zeros succeeds again.
 * Anything else a write of zeros throws, {@link Error}s included, is logged as an error and
 * pauses it the same way: the zeros are never data, so no log is affected, and the thread lives
 * on.
 */
final class Preallocator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Preallocator.class);

    /** Default of {@code brook.log.preallocate.bytes}. */
    static final int DEFAULT_MAX_BYTES = 4 * 1024 * 1024;
    /** The least written ahead of a segment. */
    static final int MIN_BYTES = 64 * 1024;
    /**
     * Logs whose forces make more than this durable on average get no zeros: each force saves
     * a roughly fixed cost (the journal commit: ~20 µs of CPU and ~0.07 ms at 16 KiB, measured),
     * while the zeros cost per byte (~0.2 µs of CPU per KiB written and forced, and the disk's
     * bandwidth). Break-even is near 100 KiB per force; with 256 KiB producer batches the
     * benchmark lost up to 40 % throughput to the zeros, with 16 KiB batches it gained up to 37 %.
     */
    static final int WORTH_BELOW_BYTES_PER_FLUSH = 128 * 1024;
    /** How long preallocation pauses after a failed write of zeros. */
    static final long PAUSE_AFTER_FAILURE_MS = 10_000L;

    private final int maxBytes;
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final Object stopToken = new Object();
    private final Thread thread;
    private final ByteBuffer zeros = ByteBuffer.allocateDirect(MIN_BYTES);
    private final Clock clock;
    /** Preallocation pauses until this time (clock millis) after a failure; 0 when running. */
    private volatile long pausedUntilMs;
    /** Zero bytes written so far (observable by tests). */
    private volatile long bytesWritten;
    /** Test seam: runs on the preallocator's thread before each extension. */
    volatile Runnable beforeExtend;

    /** @param maxBytes the most written ahead of one segment, at least {@link #MIN_BYTES} */
    Preallocator(String name, int maxBytes) {
        this(name, maxBytes, Clock.systemUTC());
    }

    /** As above, timing pauses after failures by {@code clock}. */
    Preallocator(String name, int maxBytes, Clock clock) {
        this.clock = clock;
        if (maxBytes < MIN_BYTES) {
            throw new IllegalArgumentException("preallocation of less than " + MIN_BYTES + " bytes: " + maxBytes);
        }
        this.maxBytes = maxBytes;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Whether zeros are being written ahead (false while paused after a failure). */
    boolean enabled() {
        long until = pausedUntilMs;
        return until == 0 || clock.millis() >= until;
    }

    long bytesWritten() {
        return bytesWritten;
    }

    /** How far ahead of its data {@code seg} should be zeroed. */
    int aheadFor(LogSegment seg) {
        return Math.max(MIN_BYTES, Math.min(maxBytes, Integer.highestOneBit(Math.max(1, seg.size()))));
    }

    /**
     * Queues an extension of {@code seg} (the active segment, just appended to) if less than half
     * of its share of zeros is left ahead of its data; {@code segmentBytes} bounds the zeros.
     */
    void maybeExtend(LogSegment seg, long segmentBytes) {
        if (!enabled()) {
            return;
        }
        int ahead = aheadFor(seg);
        int size = seg.size();
        int zeroedEnd = seg.zeroedEnd();
        if (zeroedEnd - size >= ahead / 2 || zeroedEnd >= Math.min(segmentBytes, (long) size + ahead)) {
            return;
        }
        if (seg.tail.queued.compareAndSet(false, true)) {
            queue.add(new Request(seg, segmentBytes));
        }
    }

    private record Request(LogSegment segment, long segmentBytes) {
    }

    private void run() {
        while (true) {
            Object next;
            try {
                next = queue.take();
            } catch (InterruptedException e) {
                continue;
            }
            if (next == stopToken) {
                return;
            }
            Request r = (Request) next;
            try {
                extend(r.segment(), r.segmentBytes());
            } finally {
                r.segment().tail.queued.set(false);
            }
        }
    }

    // bytesWritten has one writer, the preallocator's thread; volatile only publishes it to readers
    @SuppressWarnings("NonAtomicVolatileUpdate")
    private void extend(LogSegment seg, long segmentBytes) {
        if (!enabled()) {
            return;
        }
        try {
            Runnable hook = beforeExtend;
            if (hook != null) {
                hook.run();
            }
            long target = Math.min(segmentBytes, (long) seg.size() + aheadFor(seg));
            bytesWritten += seg.extendZeros(zeros, target);
            if (pausedUntilMs != 0) {
                pausedUntilMs = 0;
                LOG.info("log preallocation resumed");
            }
        } catch (IOException e) {
            if (seg.isDeleted()) {
                return; // deleted (and its channel closed) while being extended
            }
            pausedUntilMs = clock.millis() + PAUSE_AFTER_FAILURE_MS;
            LOG.warn("log preallocation paused for {} ms: writing zeros ahead of {} failed ({}); appends grow the"
                    + " files meanwhile", PAUSE_AFTER_FAILURE_MS, seg.logFile(), e.toString());
        } catch (RuntimeException | Error e) {
            pausedUntilMs = clock.millis() + PAUSE_AFTER_FAILURE_MS;
            LOG.error("log preallocation paused for {} ms: writing zeros ahead of {} failed unexpectedly",
                    PAUSE_AFTER_FAILURE_MS, seg.logFile(), e);
        }
    }

    @Override
    public void close() {
        queue.add(stopToken);
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
