package io.brook.storage;

import io.brook.storage.file.DurableFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Opening a log directory: completes interrupted file replacements, opens every segment, trusts
 * the indexes of segments below the recovery point after a clean stop (after sanity checks),
 * scans and checks the others, truncates a torn tail (deleting the segments after it) or records
 * where corrupt data starts, rebuilds the producer state and the aborted-transaction index from
 * the newest sound snapshot and the batches after it, and finally forces what a recovery scan
 * found before the log calls it durable.
 *
 * <h2>Where an unclean start's scan begins</h2>
 * The recovery point (the offset each log's entry in {@code recovery-point-offset-checkpoint}
 * holds) is a durable point: {@code LogManager} writes there what {@link DurabilityTracker}
 * published as durable, and that publishes an offset only after the force of the segment (and
 * of every segment rolled before it) that holds every batch below it returned; at open the
 * durable point is the log end only after {@link #forceRecovered} forced what was scanned. So
 * every byte before the first batch at or above the recovery point reached the disk before the
 * checkpoint was written, and checking it again finds nothing that a crash could have changed
 * (a bad disk's later damage is not what a recovery scan is for, here as in the segments below;
 * consumers check each batch's CRC). Segments
 * below the one holding the recovery point are not scanned (as in Kafka), and that one is
 * scanned from a verified position inside it rather than from its start: from the last batch
 * that its index files name at or below the recovery point, accepted only when both index files
 * pass the sanity checks of a clean start (whole entries, growing, inside the file) and a whole
 * batch holding the indexed offset, with a sound CRC, starts exactly at the indexed position.
 * The index files of the active segment are written when it rolls, at a clean close and (not
 * forced) at the end of an unclean start, without an atomic replace: a crash can leave them short, stale or
 * zeroed, which those checks refuse (zeros are not growing), or an older prefix, whose entries
 * still name the batches they named when written; a truncation deletes the index files of the
 * segment it cuts ({@link LogTruncation}), whose entries could otherwise name batches appended
 * again after it. On any doubt the whole segment is scanned.
 * The index entries below the start are kept for lookups (which check each entry they use
 * against the batch it names), and the segment's largest timestamp below it is the time
 * index's running maximum up to the indexed batch. The producer state and the aborted
 * transactions do not depend on where the scan began: they are rebuilt from a snapshot and the
 * batches after it, as after a full scan; an unclean start ends by writing a snapshot at the log
 * end (after forcing the data below it; written in the background), so that the next one
 * replays only what came after.
 * Without all this, a crash loop re-reads an active segment that grows towards
 * {@code segment.bytes} on every start.
 *
 * <p>Threading: runs once, on the thread opening the log, before the log is visible to anyone;
 * {@link #rebuildProducerState} also runs for a truncation, under the log's locks.
 */
final class LogLoader {
    private static final Logger LOG = LoggerFactory.getLogger(LogLoader.class);

    private final Path dir;
    private final String name;
    private final LogConfig config;
    private final long nowMs;
    private final NavigableMap<Long, LogSegment> segments;

    private boolean cleanShutdown;
    private long scanFrom = Long.MAX_VALUE;
    private long persistedStart = -1L;
    private Corruption corruption;
    private int indexRebuilds;

    /**
     * @param name     the log's name for messages ({@code topic-partition})
     * @param segments the log's (empty) segment map, filled by {@link #loadSegments}
     */
    private LogLoader(Path dir, String name, LogConfig config, long nowMs, NavigableMap<Long, LogSegment> segments) {
        this.dir = dir;
        this.name = name;
        this.config = config;
        this.nowMs = nowMs;
        this.segments = segments;
    }

    /**
     * A log whose directory {@link Log#open} just created: there is nothing to list, recover,
     * load or replay, and nothing is forced (the first flush of data fsyncs the new file and
     * directory entries).
     */
    static void createEmpty(Log log) throws IOException {
        LogSegment seg = LogSegment.create(log.dir(), 0L, log.config(), log.clock.millis());
        log.segments.put(0L, seg);
        seg.prepareForAppend();
        log.opened(seg, 0L, -1L, null, true);
    }

    /** Opens the existing directory of {@code log} (see the class comment). */
    static void load(Log log, long recoveryPoint, boolean cleanShutdown) throws IOException {
        LogLoader loader = new LogLoader(log.dir(), log.toString(), log.config(), log.clock.millis(), log.segments);
        loader.loadSegments(recoveryPoint, cleanShutdown);
        log.indexRebuilds = loader.indexRebuilds;
        LogSegment active = log.segments.lastEntry().getValue();
        if (loader.corruption == null) {
            active.prepareForAppend();
        }
        long end = active.nextOffset();
        long start = Math.min(Math.max(loader.persistedStart, log.segments.firstKey()), end);
        long firstUnstable = rebuildProducerState(log, start, end, true);
        loader.forceRecovered(active);
        log.opened(active, start, firstUnstable, loader.corruption, false);
        // An aborted-transaction file that held entries no longer trusted is replaced now.
        log.stateFiles.persist();
        if (!cleanShutdown && loader.corruption == null && (end > log.segments.firstKey() || !log.producers.isEmpty())
                && !log.producers.snapshotOffsets().contains(end)) {
            // The replay above read from the newest snapshot, in a crash loop the one of the
            // active segment's roll: without a snapshot here the next unclean start would
            // replay the whole active segment again. The data below it was forced above; it is
            // written on the scheduler's thread, as a roll's, so that its fsyncs do not delay
            // the start (a crash before it is written costs only that replay).
            log.stateFiles.snapshotTaken(end, log.producers.snapshot());
            log.stateFiles.persistSnapshotsLater();
        }
    }

    /**
     * Rebuilds the producer state and the aborted transactions of {@code log} as of {@code end}:
     * from the newest sound snapshot at or below it (snapshots above it are deleted), replaying
     * the batches after it. At load the aborted transactions below the snapshot come from their
     * file; after a truncation, from memory. Returns the first unstable offset.
     */
    static long rebuildProducerState(Log log, long logStartOffset, long end, boolean atLoad) throws IOException {
        ProducerStateManager producers = log.producers;
        NavigableMap<Long, LogSegment> segments = log.segments;
        producers.deleteSnapshotsAbove(end);
        long from = segments.firstKey();
        List<Long> snaps = producers.snapshotOffsets();
        producers.clear();
        for (int i = snaps.size() - 1; i >= 0; i--) {
            long offset = snaps.get(i);
            String problem = offset < segments.firstKey() ? "below the first segment" : producers.readSnapshot(offset);
            if (problem == null) {
                from = offset;
                break;
            }
            LOG.warn("{}: ignoring producer snapshot at {}: {}", log, offset, problem);
            Files.deleteIfExists(ProducerStateManager.snapshotFile(log.dir(), offset));
            producers.clear();
        }
        if (atLoad) {
            log.txnIndex.load(from);
        } else {
            log.txnIndex.truncateTo(from);
        }
        ByteBuffer hdr = ByteBuffer.allocate(LogSegment.LOCATE_BYTES);
        for (LogSegment seg : segments.values()) {
            if (seg.nextOffset() <= from) {
                continue;
            }
            int start = seg.baseOffset >= from ? 0 : Math.max(0, seg.findBatch(from, seg.size(), hdr));
            BatchScanner scanner = new BatchScanner(seg.channel(), start, seg.size(), false, Integer.MAX_VALUE);
            while (scanner.next()) {
                ByteBuffer b = scanner.buffer();
                int p = scanner.batchPosition();
                long base = BatchHeader.baseOffset(b, p);
                if (base < from) {
                    continue;
                }
                int markerCoordinatorEpoch = -1;
                if (BatchHeader.isControl(b, p) && scanner.loadWhole()) {
                    b = scanner.buffer();
                    p = scanner.batchPosition();
                    log.txnIndex.addIfAbort(producers.entry(BatchHeader.producerId(b, p)), b, p, base);
                    markerCoordinatorEpoch = ProducerStateManager.markerCoordinatorEpoch(b, p);
                }
                producers.update(b, p, base, BatchHeader.lastOffset(b, p), markerCoordinatorEpoch);
            }
        }
        producers.onLogStartOffsetIncremented(logStartOffset);
        return producers.firstUnstableOffset();
    }

    /**
     * Fills the segment map: at least one segment (an empty one at the persisted log start
     * offset if the directory holds none).
     *
     * @param recoveryPoint offset below which data is known to have been fsynced (0 if unknown)
     * @param cleanShutdown whether the previous run closed the log cleanly; if not, every segment
     *                      from the one holding the recovery point on is scanned and checked
     */
    private void loadSegments(long recoveryPoint, boolean cleanShutdown) throws IOException {
        this.cleanShutdown = cleanShutdown;
        completeInterruptedSwaps(dir);
        TreeSet<Long> bases = new TreeSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.forEach(f -> {
                String n = f.getFileName().toString();
                if (n.length() == 20 + LogSegment.LOG_SUFFIX.length() && n.endsWith(LogSegment.LOG_SUFFIX)) {
                    try {
                        bases.add(Long.parseLong(n.substring(0, 20)));
                    } catch (NumberFormatException ignored) {
                        // not a segment
                    }
                }
            });
        }
        persistedStart = LogStateFiles.readLogStartOffset(dir, name);
        if (bases.isEmpty()) {
            long base = Math.max(0, persistedStart);
            segments.put(base, LogSegment.create(dir, base, config, nowMs));
        } else {
            for (long base : bases) {
                segments.put(base, LogSegment.open(dir, base, config, nowMs));
            }
        }
        Long rp = segments.floorKey(recoveryPoint);
        scanFrom = cleanShutdown ? Long.MAX_VALUE : (rp == null ? segments.firstKey() : rp);
        List<LogSegment> list = new ArrayList<>(segments.values());
        for (int i = 0; i < list.size(); i++) {
            LogSegment seg = list.get(i);
            if (seg.isEmpty()) {
                // Nothing to check and no index to load or rebuild (a brand-new log, or a
                // segment rolled just before a stop).
                continue;
            }
            boolean scan = seg.baseOffset >= scanFrom;
            if (!scan && seg.load()) {
                continue;
            }
            if (!scan) {
                LOG.warn("{}: index of {} missing or unsound, rebuilding", name, seg.logFile());
                indexRebuilds++;
            }
            Corruption c = recover(seg, recoveryPoint);
            if (c == null) {
                continue;
            }
            boolean last = i == list.size() - 1;
            if (c.zeroTail() && (last || (!cleanShutdown && c.offset() >= recoveryPoint))) {
                // Zeros written ahead of the data of the active segment, or of one rolled just
                // before a crash whose shorter length had not been forced yet: never data. Below
                // the recovery point zeros would stand for lost durable data and are a corruption.
                LOG.info("{}: dropping {} after the data of {}", name, c.reason(), seg.logFile());
                seg.truncateBytes(c.position(), c.offset());
                continue;
            }
            if (corruption == null && !cleanShutdown && c.offset() >= recoveryPoint) {
                // Above the recovery point: a write a crash interrupted, never acknowledged as
                // durable. Kafka truncates there too, with a warning. Below it (or anywhere after a
                // clean stop) the bytes were forced, so they are damaged durable data: cutting
                // them would silently drop acknowledged records and hand their offsets to new
                // ones, so that is a corruption (below), logged at ERROR.
                LOG.warn("{}: truncating invalid tail of {}", name, c);
                seg.truncateBytes(c.position(), c.offset());
                for (int j = i + 1; j < list.size(); j++) {
                    LogSegment later = list.get(j);
                    LOG.warn("{}: deleting {} after the truncated tail", name, later.logFile());
                    segments.remove(later.baseOffset);
                    later.close();
                    LogSegment.deleteFiles(dir, later.baseOffset, "");
                }
                break;
            }
            if (corruption == null) {
                corruption = c;
                LOG.error("{}: corrupt data in {}; the log serves no offset at or after {} and takes no appends",
                        name, c, c.offset());
            }
        }
    }

    /**
     * Scans and checks {@code seg}: the segment holding the recovery point from a verified
     * position inside it where possible (see the class comment), every other one whole.
     */
    private Corruption recover(LogSegment seg, long recoveryPoint) throws IOException {
        if (seg.baseOffset == scanFrom) {
            int start = RecoveryStart.verified(seg, recoveryPoint);
            if (start > 0) {
                return seg.recover(null, start, seg.offsetIndex.lastOffset());
            }
        }
        return seg.recover(null);
    }

    /**
     * After an unclean stop the data found on disk may still sit in the page cache only: forces
     * every scanned segment before the log calls it durable (after a clean stop close() forced
     * everything), and writes the indexes of the segments other than {@code active}, and after
     * an unclean stop the active one's too, without forcing them (they are checked before use,
     * and a clean close writes and forces them again): the next unclean start finds there where
     * to begin its scan (an active segment's index files are otherwise written only when it
     * rolls or the log closes).
     */
    private void forceRecovered(LogSegment active) throws IOException {
        for (LogSegment seg : segments.values()) {
            if (!cleanShutdown && seg.baseOffset >= scanFrom) {
                seg.flush();
            }
            if (seg != active) {
                seg.flushIndexes();
            } else if (!cleanShutdown) {
                try {
                    seg.writeIndexFiles();
                } catch (IOException e) {
                    if (!OutOfSpace.is(e)) {
                        throw e;
                    }
                    // Only a cache for the next recovery: a full disk must not keep the log closed.
                    LOG.warn("{}: the index files of {} wait for space: {}", name, seg, e.getMessage());
                }
            }
        }
    }

    /**
     * Finishes or rolls back file replacements a crash interrupted. A replacement writes
     * {@code X.log.cleaned}, renames it to {@code X.log.swap} (the commit point), renames the old
     * files to {@code .deleted} and the swap file to {@code X.log}. So: {@code .cleaned} files
     * were never committed and go; a {@code .log.swap} file is committed and replaces
     * {@code X.log} and every segment whose base lies within its offsets (their indexes are
     * dropped and rebuilt); {@code .deleted} files go.
     */
    static void completeInterruptedSwaps(Path dir) throws IOException {
        List<Path> all;
        try (Stream<Path> files = Files.list(dir)) {
            all = files.toList();
        }
        boolean changed = false;
        for (Path f : all) {
            String n = f.getFileName().toString();
            if (n.endsWith(LogSegment.CLEANED_SUFFIX) || n.endsWith(LogSegment.DELETED_SUFFIX) || n.endsWith(".tmp")) {
                LOG.info("deleting leftover {}", f);
                Files.deleteIfExists(f);
                changed = true;
            }
        }
        for (Path f : all) {
            String n = f.getFileName().toString();
            String swapSuffix = LogSegment.LOG_SUFFIX + LogSegment.SWAP_SUFFIX;
            if (n.endsWith(swapSuffix) && n.length() == 20 + swapSuffix.length() && Files.exists(f)) {
                long base;
                try {
                    base = Long.parseLong(n.substring(0, 20));
                } catch (NumberFormatException e) {
                    continue;
                }
                // The swap file replaces every segment from its base to its last offset (it
                // always ends with a batch holding the replaced group's last offset).
                long last = base;
                try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
                    BatchScanner scanner = new BatchScanner(ch, 0, ch.size(), false, Integer.MAX_VALUE);
                    while (scanner.next()) {
                        last = BatchHeader.lastOffset(scanner.buffer(), scanner.batchPosition());
                    }
                }
                LOG.info("completing interrupted swap of {} (offsets {} to {})", f, base, last);
                for (Path g : all) {
                    String gn = g.getFileName().toString();
                    if (gn.length() == 20 + LogSegment.LOG_SUFFIX.length() && gn.endsWith(LogSegment.LOG_SUFFIX)) {
                        try {
                            long b = Long.parseLong(gn.substring(0, 20));
                            if (b > base && b <= last) {
                                LogSegment.deleteFiles(dir, b, "");
                            }
                        } catch (NumberFormatException ignored) {
                            // not a segment
                        }
                    }
                }
                Files.deleteIfExists(LogSegment.file(dir, base, LogSegment.INDEX_SUFFIX));
                Files.deleteIfExists(LogSegment.file(dir, base, LogSegment.TIME_INDEX_SUFFIX));
                DurableFiles.moveAtomically(f, LogSegment.file(dir, base, LogSegment.LOG_SUFFIX));
                changed = true;
            }
        }
        for (Path f : all) {
            String n = f.getFileName().toString();
            if (n.endsWith(LogSegment.SWAP_SUFFIX)) {
                Files.deleteIfExists(f);
                changed = true;
            }
        }
        if (changed) {
            DurableFiles.fsyncDirectory(dir);
        }
    }
}
