package io.brook.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where an unclean start's recovery scan of the segment holding the recovery point may begin:
 * a batch its index files name, verified against the data before it is trusted (see the class
 * comment of {@link LogLoader}, "Where an unclean start's scan begins").
 */
final class RecoveryStart {
    private static final Logger LOG = LoggerFactory.getLogger(RecoveryStart.class);

    private RecoveryStart() {
    }

    /**
     * Where a recovery scan may start so as to check only the data at and after
     * {@code recoveryPoint} (see {@link LogLoader}): the position of the last batch named by
     * {@code seg}'s index files whose entry is at or below it, once both index files pass
     * {@link LogSegment#load}'s sanity checks and a whole batch holding that entry's offset, with
     * a sound CRC, starts exactly there. On success the indexes hold the files' entries up to and including that
     * batch's; -1 (nothing gained, or any doubt) means scan the whole file.
     */
    static int verified(LogSegment seg, long recoveryPoint) throws IOException {
        if (recoveryPoint <= seg.baseOffset) {
            return -1;
        }
        Path dir = seg.dir();
        String problem = seg.offsetIndex.load(LogSegment.file(dir, seg.baseOffset, LogSegment.INDEX_SUFFIX), seg.size());
        if (problem == null) {
            problem = seg.timeIndex.load(LogSegment.file(dir, seg.baseOffset, LogSegment.TIME_INDEX_SUFFIX), Long.MAX_VALUE);
        }
        if (problem == null) {
            problem = checkIndexedBatch(seg, recoveryPoint);
        }
        if (problem != null) {
            seg.offsetIndex.clear();
            seg.timeIndex.clear();
            LOG.info("{}: scanning all of {} for recovery: {}", seg, seg.logFile(), problem);
            return -1;
        }
        int slot = seg.offsetIndex.slotFor(recoveryPoint);
        long startOffset = seg.offsetIndex.offsetAt(slot);
        seg.offsetIndex.truncateTo(startOffset + 1);
        seg.timeIndex.truncateTo(startOffset + 1);
        return seg.offsetIndex.positionAt(slot);
    }

    /** Why the index entry for {@code recoveryPoint} cannot start a recovery scan; null if it can. */
    private static String checkIndexedBatch(LogSegment seg, long recoveryPoint) throws IOException {
        OffsetIndex offsetIndex = seg.offsetIndex;
        FileChannel channel = seg.channel();
        int slot = offsetIndex.slotFor(recoveryPoint);
        if (slot < 0) {
            return "no index entry at or below the recovery point " + recoveryPoint;
        }
        long expected = offsetIndex.offsetAt(slot);
        int position = offsetIndex.positionAt(slot);
        BatchScanner scanner = new BatchScanner(channel, position, channel.size(), true, Integer.MAX_VALUE);
        if (!scanner.next()) {
            return "no sound batch at the indexed position " + position + ": " + scanner.error();
        }
        if (!BatchHeader.holds(scanner.buffer(), scanner.batchPosition(), expected)) {
            return "the batch at the indexed position " + position + " holds offsets "
                    + BatchHeader.baseOffset(scanner.buffer(), scanner.batchPosition()) + " to "
                    + BatchHeader.lastOffset(scanner.buffer(), scanner.batchPosition()) + ", not the index's " + expected;
        }
        return null;
    }
}
