package io.brook.storage;

import io.brook.wire.protocol.Errors;
import io.brook.wire.record.CorruptRecordException;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.RecordWalker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.NavigableMap;

/**
 * ListOffsets by timestamp over a log's segments: the first record at or above a timestamp, or
 * the first record holding the largest timestamp (KIP-734). Only offsets from the log start up
 * to the high watermark are considered; a segment's time index gives where to start scanning.
 *
 * <p>Records are walked, not decoded ({@link RecordWalker}): a compressed batch is read through a
 * small window, so a lookup holds no more than one batch of the file and 16 KiB of its
 * decompressed records whatever the batch decompresses to (at most
 * {@link RecordBatch#DEFAULT_MAX_DECOMPRESSED_BYTES}, the bound produce enforces).
 *
 * <p>Threading: reads only, without a lock, like a Fetch: the caller passes the log start and the
 * visible end it read once, and every segment is read up to that end. ListOffsets runs it on the
 * server's I/O pool, never on an event loop. An instance serves one lookup on one thread.
 */
final class TimestampLookup {
    private final NavigableMap<Long, LogSegment> segments;
    private final long logStartOffset;
    private final LogPoint visible;
    private final long highWatermark;
    private final RecordWalker walker = new RecordWalker(RecordBatch.DEFAULT_MAX_DECOMPRESSED_BYTES);

    /**
     * @param visible       the end readers may see (bounds every scan)
     * @param highWatermark no offset at or above it is returned
     */
    TimestampLookup(NavigableMap<Long, LogSegment> segments, long logStartOffset, LogPoint visible,
            long highWatermark) {
        this.segments = segments;
        this.logStartOffset = logStartOffset;
        this.visible = visible;
        this.highWatermark = highWatermark;
    }

    /** The first record whose timestamp is at or above {@code timestamp} (non-negative); null if none. */
    TimestampOffset firstAtOrAfter(long timestamp) throws IOException {
        for (LogSegment seg : segments.values()) {
            if (seg.baseOffset >= highWatermark) {
                break;
            }
            if (seg.maxTimestamp() < timestamp || seg.nextOffset() <= logStartOffset) {
                continue;
            }
            long from = Math.max(seg.timeIndex.lookup(timestamp), logStartOffset);
            TimestampOffset found = scan(seg, from, timestamp, false);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /** The first record holding the largest timestamp; offset -1 if there is none. */
    TimestampOffset maxTimestamp() throws IOException {
        LogSegment best = null;
        for (LogSegment seg : segments.values()) {
            if (seg.baseOffset >= highWatermark) {
                break;
            }
            if (seg.nextOffset() > logStartOffset && seg.maxTimestamp() >= 0
                    && (best == null || seg.maxTimestamp() > best.maxTimestamp())) {
                best = seg;
            }
        }
        if (best != null) {
            long from = Math.max(best.timeIndex.lookup(best.maxTimestamp()), logStartOffset);
            TimestampOffset found = scan(best, from, best.maxTimestamp(), true);
            if (found != null) {
                return found;
            }
        }
        // The largest timestamp lies above the high watermark: find the largest below it.
        TimestampOffset result = null;
        long max = -1L;
        for (LogSegment seg : segments.values()) {
            if (seg.baseOffset >= highWatermark) {
                break;
            }
            BatchScanner sc = new BatchScanner(seg.channel(), 0, visible.limitIn(seg), false, Integer.MAX_VALUE);
            while (sc.next()) {
                long ts = BatchHeader.maxTimestamp(sc.buffer(), sc.batchPosition());
                if (ts > max && BatchHeader.lastOffset(sc.buffer(), sc.batchPosition()) >= logStartOffset) {
                    max = ts;
                    result = new TimestampOffset(seg.baseOffset, ts, -1);
                }
            }
        }
        if (result == null) {
            return new TimestampOffset(-1L, -1L, -1);
        }
        for (LogSegment seg : segments.tailMap(result.offset(), true).values()) {
            TimestampOffset found = scan(seg, logStartOffset, max, true);
            if (found != null) {
                return found;
            }
        }
        return new TimestampOffset(-1L, -1L, -1);
    }

    /**
     * Scans {@code seg} from the batch holding {@code from} for the first record at or above
     * {@code from} (and below the high watermark) whose timestamp is at or above {@code target}
     * (or equal to it when {@code exact}).
     */
    private TimestampOffset scan(LogSegment seg, long from, long target, boolean exact) throws IOException {
        int limit = visible.limitIn(seg);
        ByteBuffer hdr = ByteBuffer.allocate(LogSegment.LOCATE_BYTES);
        int position = seg.findBatch(from, limit, hdr);
        if (position < 0) {
            return null;
        }
        BatchScanner scanner = new BatchScanner(seg.channel(), position, limit, true, Integer.MAX_VALUE);
        RecordBatch rb = new RecordBatch();
        while (scanner.next()) {
            ByteBuffer b = scanner.buffer();
            int p = scanner.batchPosition();
            long batchMax = BatchHeader.maxTimestamp(b, p);
            if (BatchHeader.baseOffset(b, p) >= highWatermark) {
                return null;
            }
            if (batchMax < target || BatchHeader.lastOffset(b, p) < from || BatchHeader.isControl(b, p)) {
                continue;
            }
            int epoch = BatchHeader.leaderEpoch(b, p);
            if (BatchHeader.isLogAppendTime(b, p)) {
                return new TimestampOffset(Math.max(BatchHeader.baseOffset(b, p), from), batchMax, epoch);
            }
            Match match = new Match(BatchHeader.baseOffset(b, p), from, target, exact);
            if (walker.walk(rb.wrap(b, p), false, match) != Errors.NONE) {
                throw new CorruptRecordException("batch at " + (scanner.filePosition()) + " of " + seg.logFile()
                        + ": " + walker.failure());
            }
            if (match.offset >= 0) {
                return new TimestampOffset(match.offset, match.timestamp, epoch);
            }
        }
        return null;
    }

    /** Stops the walk at the first record at or above {@code from} with a matching timestamp. */
    private static final class Match implements RecordWalker.Visitor {
        private final long baseOffset;
        private final long from;
        private final long target;
        private final boolean exact;
        long offset = -1L;
        long timestamp = -1L;

        Match(long baseOffset, long from, long target, boolean exact) {
            this.baseOffset = baseOffset;
            this.from = from;
            this.target = target;
            this.exact = exact;
        }

        @Override
        public boolean record(int index, int offsetDelta, long ts, int keyLength, int valueLength) {
            long o = baseOffset + offsetDelta;
            if (o >= from && (exact ? ts == target : ts >= target)) {
                offset = o;
                timestamp = ts;
                return false;
            }
            return true;
        }
    }
}
