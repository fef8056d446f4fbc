package io.brook.storage;

import io.brook.wire.record.ControlRecordType;
import io.brook.wire.record.EndTransactionMarker;
import io.brook.wire.record.Record;
import io.brook.wire.record.RecordBatch;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * What one compaction pass does with the transaction markers of its groups, decided before any
 * group is rewritten. A marker can go once its transaction leaves no batch behind, not even an
 * empty one, unless it ends a group (so that the rewritten file ends where the group did) or
 * holds its producer's current epoch (a transactions-V2 marker carries the bumped one):
 * <ul>
 *   <li>a COMMIT marker goes at once: a read_committed consumer skips it, and the producer state
 *       and the group coordinator's replay only need it to end a transaction that has left
 *       something;</li>
 *   <li>an ABORT marker is first stamped with a delete horizon ({@code now + delete.retention.ms},
 *       as a tombstone is), and a pass after the horizon removes it together with its entry in
 *       the aborted-transaction index. A consumer that read the aborted records filters their
 *       producer until it reads the marker, so the marker stays readable for
 *       {@code delete.retention.ms} after its transaction emptied, as in Kafka.</li>
 * </ul>
 *
 * <p>The index entry of a removed ABORT marker must go first ({@link #forgetAborted}): an entry
 * without its marker would make a read_committed consumer drop every later transactional batch
 * of that producer in the fetch. Removal therefore also requires that no batch of the
 * transaction still holds records in the log as it is now, not merely after this pass (a
 * rewrite that was not swapped in leaves them): an entry gone early, its marker still there,
 * is harmless once the records it covered are gone; with the records there it would expose them.
 */
final class MarkerPlan {
    /** Base offsets of the markers the rewrite leaves out. */
    final Set<Long> removed = new HashSet<>();
    /** Base offsets of the ABORT markers the rewrite stamps with {@link #newHorizon}. */
    final Set<Long> stamped = new HashSet<>();
    /** Base offsets of the removed ABORT markers, whose index entries go before their group is swapped. */
    private final Set<Long> abortsRemoved = new HashSet<>();
    /** The delete horizon the stamped markers get. */
    final long newHorizon;
    /** The earliest horizon of a marker left waiting for it (or stamped now): when a pass is due again. */
    private long earliestHorizon = Long.MAX_VALUE;

    private MarkerPlan(long newHorizon) {
        this.newHorizon = newHorizon;
    }

    /**
     * One scan of the groups in offset order, deciding for each transactional batch what the
     * rewrite ({@code LogCleaner.cleanGroup}) will: whether anything of it stays.
     */
    static MarkerPlan decide(List<List<LogSegment>> groups, LogCleaner.Pass pass, long deleteRetentionMs)
            throws IOException {
        long now = pass.now();
        MarkerPlan plan = new MarkerPlan(deleteRetentionMs > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + deleteRetentionMs);
        RecordBatch rb = new RecordBatch();
        // per producer, its transaction the scan is in: a batch of it stays / one holds records now
        Set<Long> keepsABatch = new HashSet<>();
        Set<Long> holdsRecords = new HashSet<>();
        for (List<LogSegment> group : groups) {
            LogSegment lastSeg = group.get(group.size() - 1);
            for (LogSegment seg : group) {
                BatchScanner scanner = new BatchScanner(seg.channel(), 0, seg.size(), true, Integer.MAX_VALUE);
                while (scanner.next()) {
                    ByteBuffer b = scanner.buffer();
                    int p = scanner.batchPosition();
                    if (!BatchHeader.isTransactional(b, p)) {
                        continue;
                    }
                    boolean lastOfGroup = seg == lastSeg && scanner.filePosition() + BatchHeader.sizeInBytes(b, p) == seg.size();
                    long producerId = BatchHeader.producerId(b, p);
                    rb.wrap(b, p);
                    if (BatchHeader.isControl(b, p)) {
                        if (!keepsABatch.contains(producerId) && !lastOfGroup
                                && !LogCleaner.lastOfItsProducer(rb, pass.tails())) {
                            plan.markerMayGo(rb, !holdsRecords.contains(producerId), now);
                        }
                        keepsABatch.remove(producerId);
                        holdsRecords.remove(producerId);
                        continue;
                    }
                    if (BatchHeader.recordsCount(b, p) > 0) {
                        holdsRecords.add(producerId);
                    }
                    if (LogCleaner.staysInPass(rb, lastOfGroup, pass)) {
                        keepsABatch.add(producerId);
                    }
                }
                if (scanner.error() != null) {
                    throw new IOException("cannot compact " + seg.logFile() + ": " + scanner.error());
                }
            }
        }
        return plan;
    }

    /** A marker whose transaction leaves nothing; {@code recordsGone}: none of it holds records now. */
    private void markerMayGo(RecordBatch marker, boolean recordsGone, long now) {
        ControlRecordType type = controlType(marker);
        long base = marker.baseOffset();
        if (type == ControlRecordType.COMMIT) {
            removed.add(base);
        } else if (type == ControlRecordType.ABORT) {
            if (!marker.hasDeleteHorizon()) {
                stamped.add(base);
                earliestHorizon = Math.min(earliestHorizon, newHorizon);
            } else if (now >= marker.deleteHorizonMs() && recordsGone) {
                removed.add(base);
                abortsRemoved.add(base);
            } else {
                earliestHorizon = Math.min(earliestHorizon, marker.deleteHorizonMs());
            }
        }
    }

    private static ControlRecordType controlType(RecordBatch rb) {
        try {
            Iterator<Record> records = rb.records();
            return records.hasNext() ? EndTransactionMarker.controlType(records.next()) : null;
        } catch (RuntimeException malformed) {
            return null;
        }
    }

    /** When a pass is due for the markers left waiting for their horizon ({@code Long.MAX_VALUE}: none). */
    long earliestHorizon() {
        return earliestHorizon;
    }

    /**
     * Before the group [{@code from}, {@code to}) is swapped in: removes the index entries of the
     * ABORT markers it leaves out, durably.
     */
    void forgetAborted(Log log, long from, long to) throws IOException {
        List<Long> markers = new ArrayList<>();
        for (long m : abortsRemoved) {
            if (m >= from && m < to) {
                markers.add(m);
            }
        }
        if (markers.isEmpty()) {
            return;
        }
        log.appendLock.lock();
        try {
            log.txnIndex.dropMarkers(Set.copyOf(markers));
        } finally {
            log.appendLock.unlock();
        }
        log.stateFiles.persist();
    }
}
