package io.brook.storage;

import io.brook.wire.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * Fetch reads of one log: the slice that starts with the batch holding an offset, bounded by
 * the high watermark (or the last stable offset for READ_COMMITTED).
 *
 * <p>Threading: any thread, without a lock. The visible end is read once, before the log end
 * (it is published after it), so a slice bounded by it never reaches past the high watermark
 * reported with it; segments removed meanwhile stay readable until their delayed deletion.
 */
final class LogReader {
    private static final Logger LOG = LoggerFactory.getLogger(LogReader.class);

    private LogReader() {
    }

    /** See {@link Log#read(long, int, boolean, boolean)}. */
    static LogReadResult read(Log log, long offset, int maxBytes, boolean minOneBatch, boolean readCommitted) {
        long start = log.logStartOffset;
        LogPoint d = log.visible();
        long leo = log.logEndOffset;
        long hw = Log.highWatermark(d, leo);
        long lso = log.lastStableOffset(hw);
        if (offset < start || offset > leo) {
            return new LogReadResult(Errors.OFFSET_OUT_OF_RANGE, null, hw, start, lso, leo);
        }
        Corruption c = log.corruption;
        if ((c != null && offset >= c.offset()) || log.durability.failure() != null) {
            return new LogReadResult(Errors.KAFKA_STORAGE_ERROR, null, hw, start, lso, leo);
        }
        long upper = readCommitted ? lso : hw;
        if (offset >= upper) {
            if (offset >= hw) {
                log.durability.readerAtEnd(); // a reader is at the end: forces nobody waits for are hurried
            }
            return new LogReadResult(Errors.NONE, null, hw, start, lso, leo);
        }
        ByteBuffer hdr = ByteBuffer.allocate(LogSegment.LOCATE_BYTES);
        Map.Entry<Long, LogSegment> e = log.segments.floorEntry(offset);
        if (e == null) {
            e = log.segments.firstEntry();
        }
        try {
            while (e != null) {
                LogSegment seg = e.getValue();
                if (seg.baseOffset >= upper) {
                    break;
                }
                int limit = d.limitIn(seg);
                if (upper < hw && upper < seg.nextOffset()) {
                    // The last stable offset is the base of an open transaction's first batch.
                    int p = seg.findBatch(upper, limit, hdr);
                    if (p >= 0) {
                        limit = Math.min(limit, p);
                    }
                }
                FileRecords r = seg.read(offset, maxBytes, limit, minOneBatch, hdr);
                if (r != null) {
                    return new LogReadResult(Errors.NONE, r, hw, start, lso, leo);
                }
                e = log.segments.higherEntry(seg.baseOffset);
            }
        } catch (IOException ex) {
            LOG.warn("{}: read at {} failed", log, offset, ex);
            return new LogReadResult(Errors.KAFKA_STORAGE_ERROR, null, hw, start, lso, leo);
        }
        return new LogReadResult(Errors.NONE, null, hw, start, lso, leo);
    }
}
