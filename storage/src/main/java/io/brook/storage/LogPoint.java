package io.brook.storage;

/**
 * A log end and where it lies in the files: the offset after the last batch it covers, the base
 * offset of the segment holding that batch's end and the file position after it. Published
 * (volatile) after the offsets it covers, so a reader bounded by one never sees bytes that the
 * reported end does not cover yet.
 */
record LogPoint(long offset, long segmentBase, int position) {

    /** File position up to which {@code seg} may be served to a reader bounded by this point. */
    int limitIn(LogSegment seg) {
        if (seg.baseOffset < segmentBase) {
            return seg.size();
        }
        return seg.baseOffset == segmentBase ? Math.min(position, seg.size()) : 0;
    }

    /** The point at the current end of {@code seg}. */
    static LogPoint endOf(LogSegment seg, long offset) {
        return new LogPoint(offset, seg.baseOffset, seg.size());
    }
}
