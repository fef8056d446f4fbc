package io.brook.storage;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the recovery-point checkpoint is due before its interval
 * ({@code log.flush.offset.checkpoint.interval.ms}, 60 s as in Kafka) is up: once the logs made
 * at least {@code thresholdBytes} durable, together, since the last checkpoint.
 *
 * <p>Why: an unclean start scans every log from its checkpointed recovery point (see
 * {@link LogLoader}). With only the interval, a broker that wrote 5 GiB in the minute before a
 * {@code kill -9} scans all of it again before it serves; checkpointing after every few hundred
 * MiB bounds that scan, for the price of one small file write (and its fsyncs) per so many bytes.
 *
 * <p>What counts is each log's durable point ({@link DurabilityTracker#durable}) against the one
 * the last checkpoint wrote: bytes within the same segment, and the whole threshold when the
 * durable point is in a later segment (a roll in between; a checkpoint then costs little and is
 * never wrong). A checkpoint alone is not enough: the scan of the segment holding the recovery
 * point begins at a batch its index files name, and an active segment's index files are written
 * only when it rolls; so with each checkpoint the active segment of every log whose durable point
 * moved gets its index files written too ({@link #writeActiveIndexes}: a cache that the next start
 * checks before it trusts it, see {@link RecoveryStart}). They are forced after the write, outside
 * the flush lock, so that a power cut, which takes what was not forced, bounds the scan as a
 * {@code kill -9} does; otherwise every start after a power cut scanned the whole active segment.
 *
 * <p>Thread-safe: {@link #due}, {@link #moved} and {@link #checkpointed} are synchronized;
 * {@link LogManager} calls {@link #due} from its scheduler and the others while it writes a
 * checkpoint.
 */
final class EarlyCheckpoint {
    private static final Logger LOG = LoggerFactory.getLogger(EarlyCheckpoint.class);

    /** The default threshold: an unclean start scans at most about this much more than the last second's writes. */
    static final long DEFAULT_THRESHOLD_BYTES = 256L << 20;

    private final long thresholdBytes;
    private final Map<Log, LogPoint> written = new HashMap<>();

    EarlyCheckpoint(long thresholdBytes) {
        this.thresholdBytes = thresholdBytes;
    }

    /** The durable points the checkpoint just written holds (every log there is). */
    synchronized void checkpointed(Map<Log, LogPoint> points) {
        written.clear();
        written.putAll(points);
    }

    /** Whether {@code log}'s durable point is no longer the one the last checkpoint wrote. */
    synchronized boolean moved(Log log, LogPoint now) {
        return !now.equals(written.get(log));
    }

    /**
     * Writes the index files of {@code log}'s active segment, under its flush lock so that no
     * truncation (which deletes them, holding that lock) interleaves; a failure only costs the next
     * unclean start a longer scan, so it is logged.
     */
    static void writeActiveIndexes(Log log) {
        LogSegment active;
        log.durability.flushLock.lock();
        try {
            active = log.active;
            active.writeIndexFiles();
        } catch (IOException e) {
            LOG.warn("{}: could not write the active segment's index files (the next unclean start scans more): {}",
                    log, e.toString());
            return;
        } finally {
            log.durability.flushLock.unlock();
        }
        try {
            // outside the flush lock: acknowledgements waiting for a force need not wait for these
            active.forceIndexFiles();
        } catch (IOException e) {
            LOG.warn("{}: could not force the active segment's index files (a power cut before the next"
                    + " checkpoint makes the next start scan more): {}", log, e.toString());
        }
    }

    /** Whether {@code logs} made {@code thresholdBytes} or more durable since the last checkpoint. */
    synchronized boolean due(Iterable<Log> logs) {
        long sum = 0;
        for (Log log : logs) {
            LogPoint now = log.durability.durable();
            if (now == null) {
                continue;
            }
            LogPoint then = written.get(log);
            if (then == null) {
                sum += now.position();
            } else if (now.segmentBase() == then.segmentBase()) {
                sum += Math.max(0, now.position() - then.position());
            } else {
                return true;
            }
            if (sum >= thresholdBytes) {
                return true;
            }
        }
        return false;
    }
}
