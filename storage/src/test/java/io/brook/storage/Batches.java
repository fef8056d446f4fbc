package io.brook.storage;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/** Batches built and read back by kafka-clients: an implementation independent of ours. */
final class Batches {
    private Batches() {
    }

    /** One record as read back: offset, timestamp, key, value (null for null). */
    record Rec(long offset, long timestamp, String key, String value) {
    }

    static ByteBuffer batch(long timestamp, int count, String keyPrefix) {
        return batch(Compression.NONE, timestamp, count, keyPrefix, 10);
    }

    static ByteBuffer batch(Compression compression, long timestamp, int count, String keyPrefix, int valueSize) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            byte[] key = keyPrefix == null ? null : (keyPrefix + i).getBytes(StandardCharsets.UTF_8);
            byte[] value = ("v" + i + "-" + "x".repeat(Math.max(0, valueSize))).getBytes(StandardCharsets.UTF_8);
            records[i] = new SimpleRecord(timestamp + i, key, value);
        }
        return MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V2, 0L, compression, TimestampType.CREATE_TIME,
                records).buffer();
    }

    /** A batch of records with the given keys and values (null value = tombstone), all at {@code timestamp}. */
    static ByteBuffer keyed(long timestamp, String[] keys, String[] values) {
        SimpleRecord[] records = new SimpleRecord[keys.length];
        for (int i = 0; i < keys.length; i++) {
            records[i] = new SimpleRecord(timestamp, keys[i] == null ? null : keys[i].getBytes(StandardCharsets.UTF_8),
                    values[i] == null ? null : values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V2, 0L, Compression.NONE, TimestampType.CREATE_TIME,
                records).buffer();
    }

    static ByteBuffer idempotent(long producerId, short epoch, int baseSequence, int count, long timestamp) {
        return producerBatch(producerId, epoch, baseSequence, count, timestamp, false);
    }

    static ByteBuffer producerBatch(long producerId, short epoch, int baseSequence, int count, long timestamp,
            boolean transactional) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(timestamp, ("k" + i).getBytes(StandardCharsets.UTF_8),
                    ("v" + i).getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V2, 0L, Compression.NONE, TimestampType.CREATE_TIME,
                producerId, epoch, baseSequence, RecordBatch.NO_PARTITION_LEADER_EPOCH, transactional, records)
                .buffer();
    }

    /** A transactional batch of producer {@code producerId} with the given keys and values. */
    static ByteBuffer transactional(long producerId, short epoch, int baseSequence, long timestamp, String[] keys,
            String[] values) {
        SimpleRecord[] records = new SimpleRecord[keys.length];
        for (int i = 0; i < keys.length; i++) {
            records[i] = new SimpleRecord(timestamp, keys[i].getBytes(StandardCharsets.UTF_8),
                    values[i] == null ? null : values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V2, 0L, Compression.NONE, TimestampType.CREATE_TIME,
                producerId, epoch, baseSequence, RecordBatch.NO_PARTITION_LEADER_EPOCH, true, records).buffer();
    }

    static ByteBuffer commitMarker(long producerId, short epoch, long timestamp) {
        return MemoryRecords.withEndTransactionMarker(0L, timestamp, RecordBatch.NO_PARTITION_LEADER_EPOCH, producerId,
                epoch, new EndTransactionMarker(ControlRecordType.COMMIT, 0)).buffer();
    }

    static ByteBuffer commitMarker(long producerId, short epoch, long timestamp, int coordinatorEpoch) {
        return MemoryRecords.withEndTransactionMarker(0L, timestamp, RecordBatch.NO_PARTITION_LEADER_EPOCH, producerId,
                epoch, new EndTransactionMarker(ControlRecordType.COMMIT, coordinatorEpoch)).buffer();
    }

    static ByteBuffer abortMarker(long producerId, short epoch, long timestamp) {
        return MemoryRecords.withEndTransactionMarker(0L, timestamp, RecordBatch.NO_PARTITION_LEADER_EPOCH, producerId,
                epoch, new EndTransactionMarker(ControlRecordType.ABORT, 0)).buffer();
    }

    static List<Rec> records(FileRecords fr) throws IOException {
        return fr == null ? List.of() : records(fr.readAll());
    }

    /** Records of the whole batches in {@code buf} (a partial trailing batch is ignored, as clients do). */
    static List<Rec> records(ByteBuffer buf) {
        List<Rec> out = new ArrayList<>();
        for (MutableRecordBatch b : MemoryRecords.readableRecords(buf).batches()) {
            if (b.isControlBatch()) {
                continue;
            }
            b.ensureValid();
            for (org.apache.kafka.common.record.internal.Record r : b) {
                out.add(new Rec(r.offset(), r.timestamp(), str(r.key()), str(r.value())));
            }
        }
        return out;
    }

    /**
     * Every record from {@code from} up to the high watermark, read slice after slice and moving
     * on by batch (as consumers do: a batch left empty by compaction still advances the position).
     */
    static List<Rec> readAll(Log log, long from) throws IOException {
        List<Rec> out = new ArrayList<>();
        long next = from;
        while (next < log.highWatermark()) {
            LogReadResult r = log.read(next, 64 * 1024, true);
            if (r.error() != io.brook.wire.protocol.Errors.NONE) {
                throw new IOException("read at " + next + ": " + r.error());
            }
            List<MutableRecordBatch> batches = batches(r.records());
            if (batches.isEmpty()) {
                break;
            }
            for (MutableRecordBatch b : batches) {
                b.ensureValid();
                if (b.isControlBatch()) {
                    continue;
                }
                for (org.apache.kafka.common.record.internal.Record rec : b) {
                    if (rec.offset() >= next) {
                        out.add(new Rec(rec.offset(), rec.timestamp(), str(rec.key()), str(rec.value())));
                    }
                }
            }
            next = batches.get(batches.size() - 1).lastOffset() + 1;
        }
        return out;
    }

    /** Every batch of the log up to the high watermark, control batches included. */
    static List<MutableRecordBatch> allBatches(Log log) throws IOException {
        List<MutableRecordBatch> out = new ArrayList<>();
        for (long next = 0; next < log.highWatermark(); ) {
            List<MutableRecordBatch> part = batches(log.read(next, 1 << 20, true).records());
            if (part.isEmpty()) {
                break;
            }
            out.addAll(part);
            next = part.get(part.size() - 1).lastOffset() + 1;
        }
        return out;
    }

    /**
     * What a read_committed consumer reading the whole log sees, filtered as kafka-clients
     * filters a fetch answer: with the aborted transactions the log reports, a producer's
     * transactional batches are skipped from an aborted transaction's first offset until that
     * producer's ABORT marker.
     */
    static List<Rec> readCommitted(Log log) throws IOException {
        ArrayDeque<AbortedTransaction> aborted = new ArrayDeque<>(log.abortedTransactions(0, log.highWatermark())
                .stream().sorted(Comparator.comparingLong(AbortedTransaction::firstOffset)).toList());
        Set<Long> skipping = new HashSet<>();
        List<Rec> out = new ArrayList<>();
        for (MutableRecordBatch b : allBatches(log)) {
            while (!aborted.isEmpty() && aborted.peek().firstOffset() <= b.lastOffset()) {
                skipping.add(aborted.poll().producerId());
            }
            if (b.isControlBatch()) {
                Iterator<org.apache.kafka.common.record.internal.Record> it = b.iterator();
                if (it.hasNext() && ControlRecordType.parse(it.next().key()) == ControlRecordType.ABORT) {
                    skipping.remove(b.producerId());
                }
            } else if (!b.isTransactional() || !skipping.contains(b.producerId())) {
                for (org.apache.kafka.common.record.internal.Record r : b) {
                    out.add(new Rec(r.offset(), r.timestamp(), str(r.key()), str(r.value())));
                }
            }
        }
        return out;
    }

    static List<MutableRecordBatch> batches(FileRecords fr) throws IOException {
        List<MutableRecordBatch> out = new ArrayList<>();
        if (fr != null) {
            MemoryRecords.readableRecords(fr.readAll()).batches().forEach(out::add);
        }
        return out;
    }

    private static String str(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return new String(a, StandardCharsets.UTF_8);
    }
}
