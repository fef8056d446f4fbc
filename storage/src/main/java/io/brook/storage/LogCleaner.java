package io.brook.storage;

import io.brook.wire.record.Record;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.RecordBatchBuilder;
import io.brook.wire.record.RecordHeader;
import io.brook.wire.record.TimestampType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Compaction ({@code cleanup.policy=compact}): keeps the newest record of every key.
 *
 * <h2>What is cleaned</h2>
 * The cleanable range is the longest prefix of closed segments that lie wholly below the last
 * stable offset and whose newest timestamp is at least {@code min.compaction.lag.ms} old. A pass
 * runs when the share of bytes written since the last pass reaches
 * {@code min.cleanable.dirty.ratio}, when a tombstone's delete horizon has passed, or when the
 * oldest uncleaned record (the first batch of the first closed segment written since the last
 * pass) is older than {@code max.compaction.lag.ms} (KIP-354), whatever the ratio. For the
 * latter an append rolls the active segment once it is that old ({@link LogConfig#maxSegmentMs}),
 * so no record waits there longer.
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>A record survives if it is the newest of its key within the cleanable range. Offsets never
 *       change and order is kept; a partly emptied batch is re-encoded with the same base offset,
 *       codec and producer fields, a fully emptied one is dropped, or kept empty when it is the
 *       last data batch of its producer (so that the producer's sequence and epoch can be rebuilt
 *       from the log, as Kafka keeps it) or the last batch of a group (so that the rewritten file
 *       still ends at the group's last offset). An idempotent producer's earlier batches thus
 *       leave nothing behind once their records are superseded.</li>
 *   <li>Consecutive segments are cleaned as groups of at most {@code segment.bytes} and written
 *       as one segment, so that compaction does not leave ever more ever smaller files.</li>
 *   <li>Tombstones (null values) follow KIP-534: the first pass that keeps a tombstone stamps its
 *       batch with a delete horizon ({@code now + delete.retention.ms}); a pass after the horizon
 *       removes it. So a tombstone stays readable for at least {@code delete.retention.ms} after
 *       it became the only record of its key.</li>
 *   <li>Records of aborted transactions are removed and never count as the newest record of
 *       their key ({@link AbortedBatches}); their batches follow the rule for emptied batches.
 *       A transaction marker goes once nothing of its transaction is left, unless it holds
 *       its producer's current epoch: a COMMIT marker at once, an ABORT marker (and its
 *       aborted-transaction index entry) {@code delete.retention.ms} later, as a tombstone
 *       ({@link MarkerPlan}). Other control batches are kept intact.</li>
 * </ul>
 *
 * <h2>Crash safety</h2>
 * A group starting at X is rewritten to {@code X.log.cleaned}, forced, then swapped in by
 * {@link Log#replaceSegments} through {@code X.log.swap}; see {@link LogLoader#completeInterruptedSwaps}.
 *
 * <h2>Memory</h2>
 * The key map is an {@link OffsetMap} of key digests of at most {@code log.cleaner.dedupe.buffer.size}
 * bytes (24 bytes per distinct key at a load factor of 0.9). It is built from the dirty segments
 * only (those after the range cleaned last, which earlier passes deduplicated); a record is
 * dropped only when the map names a newer record of its key, which stays. When it fills up, the pass cleans the range up to the last segment that was
 * mapped whole and the next pass goes on from there. A segment with more distinct keys than the
 * map can hold cannot be cleaned (logged as an error, as Kafka refuses it). The map is sized to
 * what the dirty bytes could need, so small logs never allocate the whole buffer.
 *
 * <p>A compressed batch is decoded whole, one at a time, into at most
 * {@link RecordBatch#DEFAULT_MAX_DECOMPRESSED_BYTES} (64 MiB) of heap plus a zstd window of at
 * most 8 MiB of native memory; produce refuses batches beyond that bound, so every stored batch
 * can be cleaned, and a larger one (written before that check) stops the pass with an error
 * instead of exhausting memory. This happens on the cleaner's thread only, never on an event
 * loop.
 *
 * <p>Threading: one cleaner thread ({@link #clean} is synchronized: the key map is shared by
 * all passes); a log is cleaned under its maintenance lock, which retention also takes. Appends continue meanwhile (only closed segments are touched).
 */
final class LogCleaner {
    private static final Logger LOG = LoggerFactory.getLogger(LogCleaner.class);

    /** Per log: the end of the range cleaned last, and the earliest delete horizon seen. */
    private static final class State {
        long cleanedUpTo;
        long earliestHorizon = Long.MAX_VALUE;
    }

    /** Kafka's default {@code log.cleaner.dedupe.buffer.size}: 128 MiB. */
    static final long DEFAULT_DEDUPE_BUFFER_BYTES = 128L * 1024 * 1024;
    /** Smallest map allocated for a pass (grown up to the limit if it proves too small). */
    private static final long MIN_MAP_BYTES = 64 * 1024;

    private final Map<Log, State> states = new ConcurrentHashMap<>();
    private final long dedupeBufferBytes;
    private OffsetMap map;

    LogCleaner() {
        this(DEFAULT_DEDUPE_BUFFER_BYTES);
    }

    /** @param dedupeBufferBytes {@code log.cleaner.dedupe.buffer.size}: memory of the key map */
    LogCleaner(long dedupeBufferBytes) {
        this.dedupeBufferBytes = Math.max(2L * OffsetMap.SLOT_BYTES, dedupeBufferBytes);
    }

    void forget(Log log) {
        states.remove(log);
    }

    /** The end of the range the last pass over {@code log} cleaned (0 before any). */
    long cleanedUpTo(Log log) {
        State state = states.get(log);
        return state == null ? 0 : state.cleanedUpTo;
    }

    /** Cleans {@code log} if it is due; returns the number of segments rewritten. */
    synchronized int clean(Log log, long now) throws IOException {
        LogConfig cfg = log.config();
        if (!cfg.compact()) {
            return 0;
        }
        log.maintenanceLock.lock();
        try {
            State state = states.computeIfAbsent(log, l -> new State());
            long lso = log.lastStableOffset();
            List<LogSegment> closed = log.closedSegments();
            List<LogSegment> range = new ArrayList<>();
            for (LogSegment seg : closed) {
                if (seg.nextOffset() > lso || (cfg.minCompactionLagMs() > 0
                        && seg.maxTimestamp() > now - cfg.minCompactionLagMs())) {
                    break;
                }
                range.add(seg);
            }
            if (range.isEmpty()) {
                return 0;
            }
            long cleanBytes = 0;
            long dirtyBytes = 0;
            for (LogSegment seg : range) {
                if (seg.nextOffset() <= state.cleanedUpTo) {
                    cleanBytes += seg.size();
                } else {
                    dirtyBytes += seg.size();
                }
            }
            double ratio = cleanBytes + dirtyBytes == 0 ? 0 : (double) dirtyBytes / (cleanBytes + dirtyBytes);
            if (dirtyBytes == 0 && state.earliestHorizon > now) {
                return 0;
            }
            if (ratio < cfg.minCleanableDirtyRatio() && state.earliestHorizon > now
                    && !compactionOverdue(closed, state.cleanedUpTo, now, cfg.maxCompactionLagMs())) {
                return 0;
            }
            int dirtyFrom = 0;
            long dirtyRangeBytes = 0;
            for (LogSegment seg : range) {
                if (seg.nextOffset() <= state.cleanedUpTo) {
                    dirtyFrom++;
                } else {
                    dirtyRangeBytes += seg.size();
                }
            }
            // Every keyed record takes at least 7 bytes uncompressed; compressed batches can
            // hold more, then the map grows to the limit below.
            OffsetMap latest = mapFor(Math.max(MIN_MAP_BYTES, dirtyRangeBytes / 7 * OffsetMap.SLOT_BYTES * 10 / 9));
            // the whole range lies below the last stable offset: every transaction in it has ended
            AbortedBatches aborted = new AbortedBatches(log.abortedTransactions(range.get(0).baseOffset,
                    range.get(range.size() - 1).nextOffset()));
            Map<Long, ProducerStateManager.Tail> tails = producerTails(log);
            int mappedEnd = buildKeyMap(range, dirtyFrom, latest, aborted);
            if (mappedEnd < range.size() && latest.capacityBytes() < capacityLimit()) {
                latest = mapFor(dedupeBufferBytes);
                mappedEnd = buildKeyMap(range, dirtyFrom, latest, aborted);
            }
            if (mappedEnd == dirtyFrom && dirtyFrom < range.size()) {
                LOG.error("{}: cannot compact: segment {} holds more distinct keys than the key map's {} "
                        + "(log.cleaner.dedupe.buffer.size {} bytes)", log, range.get(dirtyFrom).logFile(),
                        latest.maxEntries(), dedupeBufferBytes);
                return 0;
            }
            range = range.subList(0, mappedEnd);
            long horizon = Long.MAX_VALUE;
            int rewritten = 0;
            List<List<LogSegment>> groups = groups(range, cfg.segmentBytes());
            Pass pass = new Pass(latest, aborted, tails, now, null);
            pass = pass.withMarkers(MarkerPlan.decide(groups, pass, cfg.deleteRetentionMs()));
            for (List<LogSegment> group : groups) {
                long[] groupHorizon = {Long.MAX_VALUE};
                if (cleanGroup(log, group, pass, cfg.deleteRetentionMs(), groupHorizon)) {
                    rewritten += group.size();
                }
                horizon = Math.min(horizon, groupHorizon[0]);
            }
            state.cleanedUpTo = range.get(range.size() - 1).nextOffset();
            state.earliestHorizon = Math.min(horizon, pass.markers().earliestHorizon());
            if (rewritten > 0) {
                LOG.info("{}: compacted {} of {} segments", log, rewritten, range.size());
            }
            return rewritten;
        } finally {
            log.maintenanceLock.unlock();
        }
    }

    /**
     * {@code max.compaction.lag.ms}: whether a closed segment not cleaned yet (ending after
     * {@code cleanedUpTo}) starts with a batch older than {@code maxLagMs}. Batches without a
     * timestamp do not count.
     */
    private static boolean compactionOverdue(List<LogSegment> closed, long cleanedUpTo, long now, long maxLagMs) {
        long earliest = Long.MAX_VALUE;
        for (LogSegment seg : closed) {
            long ts = seg.firstBatchTimestamp();
            if (seg.nextOffset() > cleanedUpTo && ts > 0) {
                earliest = Math.min(earliest, ts);
            }
        }
        return earliest < now - maxLagMs;
    }

    /**
     * Where each producer's state ends, as the producer state has it now: a batch appended
     * meanwhile only makes a newer batch the last (one that no pass over closed segments below
     * the last stable offset reaches yet), never an older one.
     */
    private static Map<Long, ProducerStateManager.Tail> producerTails(Log log) {
        log.appendLock.lock();
        try {
            return log.producers.tails();
        } finally {
            log.appendLock.unlock();
        }
    }

    /**
     * Whether a batch must stay, empty if need be, for its producer's state to be rebuilt from
     * the log (as Kafka keeps it): the producer's last data batch, or, for a producer with none
     * since its epoch last changed, a marker of its current epoch (it holds that epoch).
     */
    static boolean lastOfItsProducer(RecordBatch rb, Map<Long, ProducerStateManager.Tail> tails) {
        if (!rb.hasProducerId()) {
            return false;
        }
        ProducerStateManager.Tail tail = tails.get(rb.producerId());
        if (tail == null) {
            return false;
        }
        if (tail.lastDataOffset() >= 0) {
            return tail.lastDataOffset() == rb.lastOffset();
        }
        return rb.isControl() && rb.producerEpoch() == tail.epoch();
    }

    /** The largest map this cleaner may allocate, in bytes as {@link OffsetMap} rounds them. */
    private long capacityLimit() {
        return Math.min(dedupeBufferBytes, Integer.MAX_VALUE - OffsetMap.SLOT_BYTES)
                / OffsetMap.SLOT_BYTES * OffsetMap.SLOT_BYTES;
    }

    /** An empty map of at most {@code wanted} bytes (never more than the limit), reused when possible. */
    private OffsetMap mapFor(long wanted) {
        long bytes = Math.min(wanted, dedupeBufferBytes);
        if (map == null || map.capacityBytes() < Math.min(bytes, capacityLimit())) {
            map = null;
            map = new OffsetMap(bytes);
        } else {
            map.clear();
        }
        return map;
    }

    /**
     * Maps the newest offset of every key of {@code range} from segment {@code from} on, until
     * the map is full. Returns the index after the last segment mapped whole ({@code range.size()}
     * when all were). Keys of a segment mapped in part stay in the map: a record they supersede
     * is superseded in the log too. Records of aborted transactions are not mapped.
     */
    private static int buildKeyMap(List<LogSegment> range, int from, OffsetMap latest, AbortedBatches aborted)
            throws IOException {
        RecordBatch rb = new RecordBatch();
        for (int i = from; i < range.size(); i++) {
            LogSegment seg = range.get(i);
            BatchScanner scanner = new BatchScanner(seg.channel(), 0, seg.size(), true, Integer.MAX_VALUE);
            while (scanner.next()) {
                ByteBuffer b = scanner.buffer();
                int p = scanner.batchPosition();
                if (BatchHeader.isControl(b, p)) {
                    continue;
                }
                rb.wrap(b, p);
                if (isAborted(rb, aborted)) {
                    continue;
                }
                Iterator<Record> it = rb.records();
                while (it.hasNext()) {
                    Record r = it.next();
                    if (r.hasKey() && !latest.put(r.key(), r.offset())) {
                        return i;
                    }
                }
            }
            if (scanner.error() != null) {
                throw new IOException("cannot compact " + seg.logFile() + ": " + scanner.error());
            }
        }
        return range.size();
    }

    /** What one pass knows while it rewrites: the key map and which batches and markers go. */
    record Pass(OffsetMap latest, AbortedBatches aborted, Map<Long, ProducerStateManager.Tail> tails, long now,
            MarkerPlan markers) {
        Pass withMarkers(MarkerPlan plan) {
            return new Pass(latest, aborted, tails, now, plan);
        }
    }

    /**
     * Whether anything of the data batch {@code rb} stays in this pass's rewrite, empty or not
     * (as {@link #cleanGroup} decides it).
     */
    static boolean staysInPass(RecordBatch rb, boolean lastOfGroup, Pass pass) {
        if (lastOfGroup || lastOfItsProducer(rb, pass.tails())) {
            return true;
        }
        if (isAborted(rb, pass.aborted())) {
            return false;
        }
        Iterator<Record> it = rb.records();
        while (it.hasNext()) {
            int v = verdict(rb, it.next(), pass.latest(), pass.now());
            if (v == KEEP || v == STAMP) {
                return true;
            }
        }
        return false;
    }

    /**
     * Consecutive segments whose sizes add up to at most {@code maxBytes} and whose offsets fit
     * the relative offsets of one segment's indexes.
     */
    static List<List<LogSegment>> groups(List<LogSegment> range, int maxBytes) {
        List<List<LogSegment>> out = new ArrayList<>();
        List<LogSegment> current = new ArrayList<>();
        long bytes = 0;
        for (LogSegment seg : range) {
            boolean fits = !current.isEmpty() && bytes + seg.size() <= maxBytes
                    && seg.nextOffset() - current.get(0).baseOffset <= Integer.MAX_VALUE;
            if (!current.isEmpty() && !fits) {
                out.add(current);
                current = new ArrayList<>();
                bytes = 0;
            }
            current.add(seg);
            bytes += seg.size();
        }
        if (!current.isEmpty()) {
            out.add(current);
        }
        return out;
    }

    /**
     * Rewrites a group of segments into one if anything in it changes (or it holds several
     * segments that can be merged); returns whether it was replaced. {@code horizonOut[0]}
     * receives the earliest delete horizon of the tombstones kept.
     */
    // DROP is a sentinel buffer returned by filter: it is compared by identity on purpose
    @SuppressWarnings("ReferenceEquality")
    private static boolean cleanGroup(Log log, List<LogSegment> group, Pass pass, long deleteRetentionMs,
            long[] horizonOut) throws IOException {
        OffsetMap latest = pass.latest();
        AbortedBatches aborted = pass.aborted();
        Map<Long, ProducerStateManager.Tail> tails = pass.tails();
        long now = pass.now();
        RecordBatch rb = new RecordBatch();
        boolean changes = false;
        LogSegment lastSeg = group.get(group.size() - 1);
        for (LogSegment seg : group) {
            BatchScanner scanner = new BatchScanner(seg.channel(), 0, seg.size(), true, Integer.MAX_VALUE);
            while (scanner.next() && !changes) {
                ByteBuffer b = scanner.buffer();
                int p = scanner.batchPosition();
                if (BatchHeader.isControl(b, p)) {
                    long base = BatchHeader.baseOffset(b, p);
                    if (pass.markers().removed.contains(base) || pass.markers().stamped.contains(base)) {
                        changes = true;
                        break;
                    }
                    continue;
                }
                rb.wrap(b, p);
                boolean lastOfGroup = seg == lastSeg && scanner.filePosition() + BatchHeader.sizeInBytes(b, p) == seg.size();
                if (BatchHeader.recordsCount(b, p) == 0 && !lastOfGroup && !lastOfItsProducer(rb, tails)) {
                    changes = true; // an empty batch no longer needed
                    break;
                }
                boolean abortedBatch = isAborted(rb, aborted);
                Iterator<Record> it = rb.records();
                while (it.hasNext()) {
                    Record r = it.next();
                    if (abortedBatch || verdict(rb, r, latest, now) != KEEP) {
                        changes = true;
                        break;
                    }
                    if (!r.hasValue()) {
                        horizonOut[0] = Math.min(horizonOut[0], rb.deleteHorizonMs());
                    }
                }
            }
        }
        if (!changes && group.size() == 1) {
            return false;
        }
        horizonOut[0] = Long.MAX_VALUE;
        LogSegment first = group.get(0);
        Path cleaned = LogSegment.file(log.dir(), first.baseOffset, LogSegment.LOG_SUFFIX + LogSegment.CLEANED_SUFFIX);
        try (FileChannel out = FileChannel.open(cleaned, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            long horizon = now + deleteRetentionMs;
            for (LogSegment seg : group) {
                BatchScanner scanner = new BatchScanner(seg.channel(), 0, seg.size(), true, Integer.MAX_VALUE);
                while (scanner.next()) {
                    ByteBuffer b = scanner.buffer();
                    int p = scanner.batchPosition();
                    int size = BatchHeader.sizeInBytes(b, p);
                    boolean lastOfGroup = seg == lastSeg && scanner.filePosition() + size == seg.size();
                    rb.wrap(b, p);
                    ByteBuffer rebuilt;
                    if (BatchHeader.isControl(b, p)) {
                        long base = BatchHeader.baseOffset(b, p);
                        if (pass.markers().removed.contains(base)) {
                            continue;
                        }
                        rebuilt = pass.markers().stamped.contains(base)
                                ? rebuild(rb, allRecords(rb), pass.markers().newHorizon) : null;
                    } else {
                        rebuilt = filter(rb, isAborted(rb, aborted), latest, now, horizon, horizonOut,
                                lastOfGroup || lastOfItsProducer(rb, tails));
                    }
                    ByteBuffer src;
                    if (rebuilt == null) {
                        src = b.duplicate();
                        src.limit(p + size).position(p);
                    } else if (rebuilt == DROP) {
                        continue;
                    } else {
                        src = rebuilt;
                    }
                    while (src.hasRemaining()) {
                        out.write(src);
                    }
                }
                if (scanner.error() != null) {
                    throw new IOException("cannot compact " + seg.logFile() + ": " + scanner.error());
                }
            }
            out.force(true);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(cleaned);
            throw e;
        }
        pass.markers().forgetAborted(log, first.baseOffset, lastSeg.nextOffset());
        return log.replaceSegments(group, cleaned);
    }

    static final int KEEP = 0;
    private static final int DROP_SUPERSEDED = 1;
    private static final int DROP_TOMBSTONE = 2;
    /** The tombstone stays but its batch needs a delete horizon. */
    static final int STAMP = 3;
    /** A record of an aborted transaction. */
    private static final int DROP_ABORTED = 4;
    private static final ByteBuffer DROP = ByteBuffer.allocate(0);

    static boolean isAborted(RecordBatch rb, AbortedBatches aborted) {
        return rb.isTransactional() && aborted.contains(rb.producerId(), rb.baseOffset());
    }

    static int verdict(RecordBatch rb, Record r, OffsetMap latest, long now) {
        if (!r.hasKey()) {
            return KEEP;
        }
        if (latest.get(r.key()) > r.offset()) {
            return DROP_SUPERSEDED;
        }
        if (!r.hasValue()) {
            if (!rb.hasDeleteHorizon()) {
                return STAMP;
            }
            if (now >= rb.deleteHorizonMs()) {
                return DROP_TOMBSTONE;
            }
        }
        return KEEP;
    }

    /**
     * The batch without the records compaction removes (all of them when it is {@code aborted}):
     * null if it stays byte for byte, {@link #DROP} if nothing of it stays (and it need not stay
     * empty: {@code keepEmpty}), else the re-encoded batch.
     */
    private static ByteBuffer filter(RecordBatch rb, boolean aborted, OffsetMap latest, long now, long newHorizon,
            long[] horizonOut, boolean keepEmpty) {
        boolean unchanged = true;
        boolean hasTombstone = false;
        List<Record> kept = new ArrayList<>();
        Iterator<Record> it = rb.records();
        while (it.hasNext()) {
            Record r = it.next();
            int v = aborted ? DROP_ABORTED : verdict(rb, r, latest, now);
            if (v == DROP_SUPERSEDED || v == DROP_TOMBSTONE || v == DROP_ABORTED) {
                unchanged = false;
                continue;
            }
            if (v == STAMP) {
                unchanged = false;
            }
            if (!r.hasValue()) {
                hasTombstone = true;
            }
            kept.add(r);
        }
        if (kept.isEmpty() && !keepEmpty) {
            return DROP; // emptied now, or left empty by an earlier pass and no longer needed
        }
        if (unchanged) {
            if (hasTombstone) {
                horizonOut[0] = Math.min(horizonOut[0], rb.deleteHorizonMs());
            }
            return null;
        }
        if (hasTombstone) {
            long horizon = rb.hasDeleteHorizon() ? rb.deleteHorizonMs() : newHorizon;
            horizonOut[0] = Math.min(horizonOut[0], horizon);
            return rebuild(rb, kept, horizon);
        }
        return rebuild(rb, kept, RecordBatch.NO_TIMESTAMP);
    }

    private static List<Record> allRecords(RecordBatch rb) {
        List<Record> all = new ArrayList<>();
        rb.records().forEachRemaining(all::add);
        return all;
    }

    /**
     * {@code rb} re-encoded with only the records {@code kept} (same base offset, codec, producer
     * fields and flags; empty up to its last offset if none) and the delete horizon
     * {@code horizon} ({@link RecordBatch#NO_TIMESTAMP} for none).
     */
    private static ByteBuffer rebuild(RecordBatch rb, List<Record> kept, long horizon) {
        RecordBatchBuilder builder = new RecordBatchBuilder(rb.compression())
                .baseOffset(rb.baseOffset())
                .partitionLeaderEpoch(rb.partitionLeaderEpoch())
                .producer(rb.producerId(), rb.producerEpoch(), rb.baseSequence())
                .transactional(rb.isTransactional())
                .control(rb.isControl());
        if (rb.timestampType() == TimestampType.LOG_APPEND_TIME) {
            builder.logAppendTime(rb.maxTimestamp());
        }
        if (horizon != RecordBatch.NO_TIMESTAMP) {
            builder.deleteHorizonMs(horizon);
        }
        for (Record r : kept) {
            builder.appendWithOffset(r.offset(), r.timestamp(), r.key(), r.value(),
                    r.headers().toArray(new RecordHeader[0]));
        }
        if (kept.isEmpty()) {
            builder.emptyBatchLastOffset(rb.lastOffset());
        }
        return builder.build();
    }
}
