package io.brook.storage;

import io.brook.storage.file.DurableFiles;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.EndTransactionMarker;
import io.brook.wire.record.Record;
import io.brook.wire.record.RecordBatch;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Idempotent-producer state of one partition: per producer id its epoch and last five batches,
 * checked on every client append by the rules of Kafka's {@code ProducerAppendInfo}:
 * <ol>
 *   <li>a batch with the current epoch and exactly the sequence range of a retained batch is a
 *       duplicate: it is not written and the original offsets are returned;</li>
 *   <li>an older epoch is INVALID_PRODUCER_EPOCH;</li>
 *   <li>a newer epoch must start at sequence 0, unless the entry has no epoch yet;</li>
 *   <li>the same epoch must continue at last sequence + 1 (0 after Integer.MAX_VALUE);</li>
 *   <li>no entry at all (first write, or state removed by retention / DeleteRecords) accepts any
 *       sequence.</li>
 * </ol>
 *
 * <p>Persistence: a snapshot file {@code <20-digit offset>.snapshot} holds the state as of that
 * offset; at load the newest snapshot at or below the log end is read and the batches after it
 * are replayed from their headers. Snapshots are taken at segment rolls and clean shutdown: the
 * state is serialised under the log's append lock ({@link #snapshot}) and written durably after
 * it is released ({@link #writeSnapshot}, by {@link LogStateFiles}).
 *
 * <pre>
 * snapshot: version int16 (2) | crc int32 (CRC-32C of the rest) | count int32 | count x entry
 * entry:    producerId int64 | epoch int16 | lastTimestamp int64 | txnFirstOffset int64 |
 *           coordinatorEpoch int32 | batches int8 |
 *           batches x (firstSeq int32 | lastSeq int32 | firstOffset int64 | lastOffset int64 |
 *                      timestamp int64)
 * </pre>
 * Version 1, written before the coordinator epoch was kept, has no {@code coordinatorEpoch}; its
 * entries load with -1.
 *
 * <p>Bounds: state leaves when a producer has been idle for {@code producer.id.expiration.ms}
 * ({@link #expire}) or its batches fall below the log start offset. At most {@link #maxProducers}
 * producers are held ({@code brook.max.producer.ids.per.partition}); past that a batch of a
 * producer without state is refused with the retriable NOT_ENOUGH_REPLICAS until some state
 * expires. Nothing is ever evicted to make room: dropping a live producer's state would let a
 * retry of a batch it already had acknowledged be written a second time, silently.
 *
 * <p>Threading: the state's methods run under the owning log's append lock (or while the log
 * is being opened); the snapshot files are written, listed and deleted under the log's
 * state-file lock.
 */
final class ProducerStateManager {
    static final String SNAPSHOT_SUFFIX = ".snapshot";
    private static final short VERSION = 2;
    private static final short VERSION_WITHOUT_COORDINATOR_EPOCH = 1;
    private static final int HEADER = 2 + 4 + 4;
    private static final int ENTRY_FIXED = 8 + 2 + 8 + 8 + 4 + 1;
    private static final int ENTRY_FIXED_V1 = ENTRY_FIXED - 4;
    private static final int BATCH_SIZE = 4 + 4 + 8 + 8 + 8;
    /** Default of {@code brook.max.producer.ids.per.partition}. */
    static final int DEFAULT_MAX_PRODUCERS = 100_000;

    private final Path dir;
    private final Map<Long, ProducerStateEntry> producers = new HashMap<>();
    /** Open transactions: first offset -> producer id, for the last stable offset. */
    private final TreeMap<Long, Long> ongoingTxns = new TreeMap<>();
    /** Set before the log is published to appenders (see {@link LogManager}). */
    private int maxProducers = DEFAULT_MAX_PRODUCERS;

    /** Result of {@link #check}: the verdict and, for a duplicate, the original batch. */
    static final class Check {
        Errors error = Errors.NONE;
        String message;
        boolean duplicate;
        long duplicateFirstOffset;
        long duplicateLastOffset;
        long duplicateTimestamp;

        void reset() {
            error = Errors.NONE;
            message = null;
            duplicate = false;
        }
    }

    ProducerStateManager(Path dir) {
        this.dir = dir;
    }

    /** {@code brook.max.producer.ids.per.partition}: the most producers whose state is held. */
    void setMaxProducers(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("at least one producer, not " + max);
        }
        this.maxProducers = max;
    }

    int maxProducers() {
        return maxProducers;
    }

    int size() {
        return producers.size();
    }

    ProducerStateEntry entry(long producerId) {
        return producers.get(producerId);
    }

    /** The producers held, for DescribeProducers. Under the log's append lock. */
    List<ActiveProducer> describe() {
        List<ActiveProducer> out = new ArrayList<>(producers.size());
        for (ProducerStateEntry e : producers.values()) {
            out.add(new ActiveProducer(e.producerId, e.epoch, e.lastSeq(), e.lastTimestamp, e.coordinatorEpoch,
                    e.currentTxnFirstOffset));
        }
        return out;
    }

    /**
     * Where each producer's state ends in the log: the last offset of its last data batch (-1
     * when it has none since its epoch last changed, as after a transactions-V2 marker bumped it)
     * and its epoch.
     */
    record Tail(long lastDataOffset, short epoch) {
    }

    /** Each producer's {@link Tail}, for the cleaner. Under the log's append lock. */
    Map<Long, Tail> tails() {
        Map<Long, Tail> out = new HashMap<>(producers.size() * 4 / 3 + 1);
        for (ProducerStateEntry e : producers.values()) {
            out.put(e.producerId, new Tail(e.lastDataOffset(), e.epoch));
        }
        return out;
    }

    /** First offset of the earliest open transaction, or -1. */
    long firstUnstableOffset() {
        return ongoingTxns.isEmpty() ? -1L : ongoingTxns.firstKey();
    }

    /**
     * Validates a batch against the state; fills {@code out}. Changes nothing. A batch of a
     * coordinator ({@code coordinator}) without a sequence has only its epoch checked. With
     * {@code bumpedMarker} a control batch is the marker of a transactions-V2 transaction
     * (KIP-890 part 2), whose epoch the coordinator bumped past the epoch of the transaction's
     * data: a marker at or below the epoch of a transaction still open in this partition is
     * INVALID_PRODUCER_EPOCH.
     */
    void check(ByteBuffer b, int p, boolean coordinator, boolean bumpedMarker, Check out) {
        out.reset();
        long pid = BatchHeader.producerId(b, p);
        if (pid < 0) {
            return;
        }
        short epoch = BatchHeader.producerEpoch(b, p);
        if (BatchHeader.isControl(b, p)) {
            ProducerStateEntry e = producers.get(pid);
            if (e != null && epoch < e.epoch) {
                out.error = Errors.INVALID_PRODUCER_EPOCH;
                out.message = "transaction marker of producer " + pid + " has epoch " + epoch
                        + ", older than the current epoch " + e.epoch;
            } else if (bumpedMarker && e != null && e.currentTxnFirstOffset >= 0 && epoch <= e.epoch) {
                out.error = Errors.INVALID_PRODUCER_EPOCH;
                out.message = "transactions V2 marker of producer " + pid + " has epoch " + epoch
                        + ", not above the epoch " + e.epoch + " of the open transaction";
            }
            return;
        }
        int first = BatchHeader.baseSequence(b, p);
        if (first < 0 && coordinator) {
            ProducerStateEntry e = producers.get(pid);
            if (e != null && epoch < e.epoch) {
                out.error = Errors.INVALID_PRODUCER_EPOCH;
                out.message = "producer " + pid + " epoch " + epoch + " is older than the current epoch " + e.epoch;
            }
            return;
        }
        if (first < 0) {
            out.error = Errors.INVALID_RECORD;
            out.message = "idempotent batch without a base sequence";
            return;
        }
        int last = BatchHeader.lastSequence(b, p);
        ProducerStateEntry e = producers.get(pid);
        if (e == null) {
            if (producers.size() >= maxProducers) {
                out.error = Errors.NOT_ENOUGH_REPLICAS;
                out.message = "This partition holds the state of " + producers.size()
                        + " idempotent producers (brook.max.producer.ids.per.partition); a new producer may write"
                        + " once the state of idle ones expires (producer.id.expiration.ms)";
            }
            return;
        }
        if (epoch == e.epoch) {
            int dup = e.findDuplicate(first, last);
            if (dup >= 0) {
                out.duplicate = true;
                out.duplicateFirstOffset = e.firstOffset[dup];
                out.duplicateLastOffset = e.lastOffset[dup];
                out.duplicateTimestamp = e.timestamp[dup];
                return;
            }
        }
        if (epoch < e.epoch) {
            out.error = Errors.INVALID_PRODUCER_EPOCH;
            out.message = "producer " + pid + " epoch " + epoch + " is older than the current epoch " + e.epoch;
            return;
        }
        if (epoch != e.epoch) {
            if (first != 0 && e.epoch != -1) {
                out.error = Errors.OUT_OF_ORDER_SEQUENCE_NUMBER;
                out.message = "producer " + pid + " new epoch " + epoch + " must start at sequence 0, got " + first;
            }
            return;
        }
        int lastSeq = e.lastSeq();
        if (!inSequence(lastSeq, first)) {
            out.error = Errors.OUT_OF_ORDER_SEQUENCE_NUMBER;
            out.message = "producer " + pid + " epoch " + epoch + ": expected sequence "
                    + (lastSeq == Integer.MAX_VALUE ? 0 : lastSeq + 1) + ", got " + first;
        }
    }

    static boolean inSequence(int lastSeq, int nextSeq) {
        return nextSeq == lastSeq + 1L || (nextSeq == 0 && lastSeq == Integer.MAX_VALUE);
    }

    /**
     * Records an appended batch (client append, or replay at recovery) from its header at
     * {@code p} of {@code b}. For a transaction marker, {@code markerCoordinatorEpoch} is the
     * coordinator epoch in its record ({@link #markerCoordinatorEpoch}), since the header alone
     * does not hold it; -1 leaves the producer's as it was.
     */
    void update(ByteBuffer b, int p, long baseOffset, long lastOffset, int markerCoordinatorEpoch) {
        long pid = BatchHeader.producerId(b, p);
        if (pid < 0) {
            return;
        }
        short epoch = BatchHeader.producerEpoch(b, p);
        ProducerStateEntry e = producers.computeIfAbsent(pid, id -> new ProducerStateEntry(id, epoch));
        long ts = BatchHeader.maxTimestamp(b, p);
        if (BatchHeader.isControl(b, p)) {
            if (epoch > e.epoch || e.epoch == -1) {
                e.epoch = epoch;
                e.head = 0;
                e.size = 0;
            }
            if (e.currentTxnFirstOffset >= 0) {
                ongoingTxns.remove(e.currentTxnFirstOffset);
                e.currentTxnFirstOffset = -1L;
            }
            if (markerCoordinatorEpoch >= 0) {
                e.coordinatorEpoch = markerCoordinatorEpoch;
            }
            e.lastTimestamp = ts;
            return;
        }
        int first = BatchHeader.baseSequence(b, p);
        if (first >= 0) {
            e.addBatch(epoch, first, BatchHeader.lastSequence(b, p), baseOffset, lastOffset, ts);
        } else if (epoch != e.epoch) {
            e.epoch = epoch;
            e.head = 0;
            e.size = 0;
        }
        if (BatchHeader.isTransactional(b, p) && e.currentTxnFirstOffset < 0) {
            e.currentTxnFirstOffset = baseOffset;
            ongoingTxns.put(baseOffset, pid);
        }
    }

    /**
     * The coordinator epoch of the COMMIT or ABORT marker in the whole control batch at {@code p},
     * or -1 if its first record is not a well-formed marker. Markers are rare, so decoding one
     * costs nothing that shows.
     */
    static int markerCoordinatorEpoch(ByteBuffer b, int p) {
        try {
            Iterator<Record> records = new RecordBatch().wrap(b, p).records();
            return records.hasNext() ? EndTransactionMarker.read(records.next()).coordinatorEpoch() : -1;
        } catch (RuntimeException malformed) {
            return -1;
        }
    }

    /** Forgets producers whose last batch lies wholly below the new log start offset. */
    void onLogStartOffsetIncremented(long logStartOffset) {
        producers.values().removeIf(e -> e.currentTxnFirstOffset < 0 && !e.isEmpty()
                && e.lastDataOffset() < logStartOffset);
    }

    /**
     * Forgets producers idle for longer than {@code expirationMs} (Kafka's
     * {@code producer.id.expiration.ms}) by their last batch timestamp, as Kafka does; an open
     * transaction keeps its producer. The timestamp is the client's: one without a timestamp (-1)
     * expires like a very old one (as in Kafka), and one in the future counts from the first pass
     * that sees it, so that no timestamp keeps a producer's state for good. Returns how many went.
     */
    int expire(long nowMs, long expirationMs) {
        int before = producers.size();
        producers.values().removeIf(e -> {
            if (e.currentTxnFirstOffset >= 0) {
                return false;
            }
            if (e.lastTimestamp > nowMs) {
                e.lastTimestamp = nowMs;
                return false;
            }
            return nowMs - e.lastTimestamp > expirationMs;
        });
        return before - producers.size();
    }

    boolean isEmpty() {
        return producers.isEmpty();
    }

    void clear() {
        producers.clear();
        ongoingTxns.clear();
    }

    // ---- snapshots ----

    static Path snapshotFile(Path dir, long offset) {
        return dir.resolve(LogSegment.name(offset) + SNAPSHOT_SUFFIX);
    }

    /** Offsets of the snapshot files present, ascending. */
    List<Long> snapshotOffsets() throws IOException {
        List<Long> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.forEach(f -> {
                String n = f.getFileName().toString();
                if (n.endsWith(SNAPSHOT_SUFFIX) && n.length() == 20 + SNAPSHOT_SUFFIX.length()) {
                    try {
                        out.add(Long.parseLong(n.substring(0, 20)));
                    } catch (NumberFormatException ignored) {
                        // not ours
                    }
                }
            });
        }
        out.sort(null);
        return out;
    }

    /** The state, serialised as a snapshot file's content. */
    byte[] snapshot() {
        int size = HEADER;
        for (ProducerStateEntry e : producers.values()) {
            size += ENTRY_FIXED + e.size * BATCH_SIZE;
        }
        ByteBuffer buf = ByteBuffer.allocate(size);
        buf.putShort(VERSION).putInt(0).putInt(producers.size());
        for (ProducerStateEntry e : producers.values()) {
            buf.putLong(e.producerId).putShort(e.epoch).putLong(e.lastTimestamp).putLong(e.currentTxnFirstOffset);
            buf.putInt(e.coordinatorEpoch).put((byte) e.size);
            for (int i = 0; i < e.size; i++) {
                int j = (e.head + i) % ProducerStateEntry.RETAINED_BATCHES;
                buf.putInt(e.firstSeq[j]).putInt(e.lastSeq[j]).putLong(e.firstOffset[j]).putLong(e.lastOffset[j])
                        .putLong(e.timestamp[j]);
            }
        }
        CRC32C crc = new CRC32C();
        crc.update(buf.array(), 6, size - 6);
        buf.putInt(2, (int) crc.getValue());
        return buf.array();
    }

    /** Writes {@code content} (from {@link #snapshot}) durably as the snapshot at {@code offset}. */
    static void writeSnapshot(Path dir, long offset, byte[] content) throws IOException {
        DurableFiles.writeAtomically(snapshotFile(dir, offset), content);
    }

    /**
     * Replaces the state with the snapshot at {@code offset}. Returns null when loaded, else why
     * the file was refused (then the state is empty).
     */
    String readSnapshot(long offset) throws IOException {
        clear();
        ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(snapshotFile(dir, offset)));
        if (buf.remaining() < HEADER) {
            return "truncated header";
        }
        short version = buf.getShort();
        if (version != VERSION && version != VERSION_WITHOUT_COORDINATOR_EPOCH) {
            return "version " + version;
        }
        int entryFixed = version == VERSION ? ENTRY_FIXED : ENTRY_FIXED_V1;
        int stored = buf.getInt();
        CRC32C crc = new CRC32C();
        crc.update(buf.array(), 6, buf.limit() - 6);
        if ((int) crc.getValue() != stored) {
            return "crc mismatch";
        }
        int count = buf.getInt();
        if (count < 0 || (long) count * entryFixed > buf.remaining()) {
            return "entry count " + count + " exceeds the file";
        }
        for (int i = 0; i < count; i++) {
            if (buf.remaining() < entryFixed) {
                clear();
                return "truncated entry";
            }
            ProducerStateEntry e = new ProducerStateEntry(buf.getLong(), buf.getShort());
            e.lastTimestamp = buf.getLong();
            e.currentTxnFirstOffset = buf.getLong();
            if (version == VERSION) {
                e.coordinatorEpoch = buf.getInt();
            }
            int n = buf.get();
            if (n < 0 || n > ProducerStateEntry.RETAINED_BATCHES || (long) n * BATCH_SIZE > buf.remaining()) {
                clear();
                return "bad batch count " + n;
            }
            for (int k = 0; k < n; k++) {
                e.firstSeq[k] = buf.getInt();
                e.lastSeq[k] = buf.getInt();
                e.firstOffset[k] = buf.getLong();
                e.lastOffset[k] = buf.getLong();
                e.timestamp[k] = buf.getLong();
            }
            e.size = n;
            producers.put(e.producerId, e);
            if (e.currentTxnFirstOffset >= 0) {
                ongoingTxns.put(e.currentTxnFirstOffset, e.producerId);
            }
        }
        return null;
    }

    /** Deletes the snapshots at offsets above {@code offset} (at load and after truncation). */
    void deleteSnapshotsAbove(long offset) throws IOException {
        for (long o : snapshotOffsets()) {
            if (o > offset) {
                Files.deleteIfExists(snapshotFile(dir, o));
            }
        }
    }

    /** Keeps the newest {@code keep} snapshots. */
    void retainNewest(int keep) throws IOException {
        List<Long> all = snapshotOffsets();
        for (int i = 0; i < all.size() - keep; i++) {
            Files.deleteIfExists(snapshotFile(dir, all.get(i)));
        }
    }
}
