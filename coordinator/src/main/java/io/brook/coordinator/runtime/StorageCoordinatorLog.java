package io.brook.coordinator.runtime;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntFunction;

import io.brook.coordinator.runtime.CoordinatorLogException.Reason;
import io.brook.storage.AppendResult;
import io.brook.storage.Log;
import io.brook.storage.LogReadResult;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.ControlRecordType;
import io.brook.wire.record.Record;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.RecordBatchBuilder;
import io.brook.wire.record.RecordBatches;

/**
 * {@link CoordinatorLog} over the partition logs of {@code storage}: partition {@code n} of the
 * internal topic is the {@link Log} the broker hands out for it (it should be created with
 * {@code cleanup.policy=compact}). Each {@link #append} writes one magic-2 batch, uncompressed
 * unless a codec is given (Kafka's {@code offsets.topic.compression.codec}), and then compressed only
 * while its records fit the bound every reader decodes a batch within
 * ({@link RecordBatch#DEFAULT_MAX_DECOMPRESSED_BYTES})
 * (plain records: no producer id; transactional ones: a transactional batch of their producer id
 * and epoch with no sequence, as Kafka's coordinators write it; a marker: Kafka's COMMIT or ABORT
 * control batch, coordinator epoch 0) and completes when {@link Log#whenDurable} says the batch is fsynced, i.e. with the
 * durability of an {@code acks=all} produce.
 *
 * <p>Failures of the storage layer never pass through: a refused append (log closed, offline or
 * corrupt, batch over {@code max.message.bytes}), a log that cannot be looked up, a flush that
 * fails and a read error all become a {@link CoordinatorLogException}.
 *
 * <p>Reads give transactional records with their producer, and markers where the log has them,
 * so that a coordinator rebuilds the transactions open at its end. Reads stop at the high watermark, so that a coordinator never loads a record whose append
 * was not answered (with fsync-on-ack, one a crash could still take back).
 *
 * <p>Threading: {@link #append} is called from the coordinator's owner thread only; completions
 * arrive on the storage flusher thread. {@link #read} runs on a coordinator's loader thread (reads
 * take no lock in storage).
 */
public final class StorageCoordinatorLog implements CoordinatorLog {

    /** The most a record adds to its key and value in a batch (its varints, attributes, no headers). */
    private static final int MAX_RECORD_OVERHEAD = 32;

    private final String topic;
    private final int partitions;
    private final IntFunction<Log> logs;
    private final Clock clock;
    private final Compression compression;

    /** Writes uncompressed batches; see {@link #StorageCoordinatorLog(String, int, IntFunction, Clock, Compression)}. */
    public StorageCoordinatorLog(String topic, int partitions, IntFunction<Log> logForPartition, Clock clock) {
        this(topic, partitions, logForPartition, clock, Compression.NONE);
    }

    /**
     * @param topic             the internal topic (for messages)
     * @param partitions        its number of partitions
     * @param logForPartition   the log of a partition, opened or created on demand; called on the
     *                          owner thread and during replay; may throw when there is none
     * @param clock             record timestamps
     * @param compression       the codec of the batches of records (markers are never compressed)
     */
    public StorageCoordinatorLog(String topic, int partitions, IntFunction<Log> logForPartition, Clock clock,
            Compression compression) {
        if (partitions < 1) throw new IllegalArgumentException("partitions < 1");
        this.topic = topic;
        this.partitions = partitions;
        this.logs = logForPartition;
        this.clock = clock;
        this.compression = Objects.requireNonNull(compression, "compression");
    }

    @Override
    public CompletableFuture<Long> append(int partition, List<CoordinatorRecord> records) {
        if (partition < 0 || partition >= partitions) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("partition " + partition + " of " + partitions));
        }
        if (records.isEmpty()) return CompletableFuture.failedFuture(new IllegalArgumentException("no records"));
        long now = clock.millis();
        CoordinatorRecord first = records.get(0);
        ByteBuffer batch;
        if (first.isMarker()) {
            if (records.size() != 1) return CompletableFuture.failedFuture(new IllegalArgumentException("a marker goes alone"));
            batch = RecordBatchBuilder.endTransactionMarker(0L, 0, first.producerId(), first.producerEpoch(),
                    first.marker() == CoordinatorRecord.Marker.COMMIT ? ControlRecordType.COMMIT : ControlRecordType.ABORT,
                    0, now);
        } else {
            long recordsBytes = 0;
            for (CoordinatorRecord r : records) {
                if (r.isMarker() || r.producerId() != first.producerId() || r.producerEpoch() != first.producerEpoch()) {
                    return CompletableFuture.failedFuture(new IllegalArgumentException("records of one append share their producer"));
                }
                recordsBytes += MAX_RECORD_OVERHEAD + r.key().length + (r.value() == null ? 0 : r.value().length);
            }
            RecordBatchBuilder builder = new RecordBatchBuilder(
                    recordsBytes <= RecordBatch.DEFAULT_MAX_DECOMPRESSED_BYTES ? compression : Compression.NONE);
            if (first.isTransactional()) {
                builder.producer(first.producerId(), first.producerEpoch(), RecordBatch.NO_SEQUENCE).transactional(true);
            }
            for (CoordinatorRecord r : records) {
                builder.append(now, r.key(), r.value());
            }
            batch = builder.build();
        }
        Log log;
        try {
            log = logs.apply(partition);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new CoordinatorLogException(Reason.UNAVAILABLE, name(partition) + ": " + e.getMessage(), e));
        }
        AppendResult result = first.isTransactional() && !first.isMarker()
                ? log.appendAsCoordinator(batch, 0) : log.append(batch, 0);
        if (result.error() != Errors.NONE) {
            return CompletableFuture.failedFuture(new CoordinatorLogException(reasonFor(result.error()),
                    name(partition) + ": " + result.error() + ": " + result.errorMessage()));
        }
        long last = result.lastOffset();
        CompletableFuture<Long> durable = new CompletableFuture<>();
        log.whenDurable(last + 1).whenComplete((v, e) -> {
            if (e == null) {
                durable.complete(last);
            } else {
                Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                durable.completeExceptionally(new CoordinatorLogException(Reason.UNAVAILABLE,
                        name(partition) + ": not made durable: " + cause, cause));
            }
        });
        return durable;
    }

    /** The reason a coordinator sees for an append the storage refused with {@code error}. */
    static Reason reasonFor(Errors error) {
        return switch (error) {
            case MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE, INVALID_FETCH_SIZE -> Reason.RECORDS_TOO_LARGE;
            case NOT_LEADER_OR_FOLLOWER -> Reason.NOT_LEADER;
            default -> Reason.UNAVAILABLE;
        };
    }

    @Override
    public ReplayChunk read(int partition, long fromOffset, int maxBytes) {
        if (partition < 0 || partition >= partitions) {
            throw new IllegalArgumentException("partition " + partition + " of " + partitions);
        }
        Log log;
        try {
            log = logs.apply(partition);
        } catch (RuntimeException e) {
            throw new CoordinatorLogException(Reason.UNAVAILABLE, "read of " + name(partition) + ": " + e.getMessage(), e);
        }
        long offset = Math.max(fromOffset, log.logStartOffset());
        // the high watermark: what a consumer could read, i.e. only what an append was answered for
        long end = log.highWatermark();
        if (offset >= end) return ReplayChunk.end(offset);
        LogReadResult read = log.read(offset, Math.max(1, maxBytes), true);
        if (read.error() != Errors.NONE) {
            throw new CoordinatorLogException(Reason.UNAVAILABLE, "read of " + name(partition) + " at offset " + offset + ": " + read.error());
        }
        if (read.records() == null || read.sizeInBytes() == 0) return ReplayChunk.end(offset);
        ByteBuffer bytes;
        try {
            bytes = read.records().readAll();
        } catch (IOException e) {
            throw new CoordinatorLogException(Reason.UNAVAILABLE, "read of " + name(partition) + " at offset " + offset + ": " + e, e);
        }
        List<CoordinatorRecord> out = new ArrayList<>();
        long next = offset;
        RecordBatches walker = new RecordBatches();
        walker.wrap(bytes);
        RecordBatch batch;
        while ((batch = walker.next()) != null) {
            long producerId = batch.isTransactional() ? batch.producerId() : -1L;
            short producerEpoch = batch.isTransactional() ? batch.producerEpoch() : (short) -1;
            for (Iterator<Record> it = batch.records(); it.hasNext(); ) {
                Record r = it.next();
                if (r.offset() < offset || r.offset() >= end || r.key() == null) continue;
                if (batch.isControl()) {
                    CoordinatorRecord marker = marker(partition, producerId, producerEpoch, r.key());
                    if (marker != null) out.add(marker);
                } else {
                    out.add(new CoordinatorRecord(partition, copy(r.key()), r.value() == null ? null : copy(r.value()),
                            producerId, producerEpoch, null));
                }
            }
            next = batch.lastOffset() + 1;
        }
        // nothing whole could be read: stop rather than spin
        if (next <= offset) return new ReplayChunk(out, offset, true);
        return new ReplayChunk(out, next, next >= end);
    }

    /** The COMMIT or ABORT marker a control record stands for; null for any other control record. */
    private static CoordinatorRecord marker(int partition, long producerId, short producerEpoch, ByteBuffer key) {
        if (producerId < 0 || key.remaining() < 4) return null;
        ControlRecordType type = ControlRecordType.forId(key.getShort(key.position() + 2));
        if (type == ControlRecordType.COMMIT) return CoordinatorRecord.marker(partition, producerId, producerEpoch, true);
        if (type == ControlRecordType.ABORT) return CoordinatorRecord.marker(partition, producerId, producerEpoch, false);
        return null;
    }

    private String name(int partition) {
        return topic + "-" + partition;
    }

    private static byte[] copy(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
