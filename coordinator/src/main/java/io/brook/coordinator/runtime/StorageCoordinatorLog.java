package io.brook.coordinator.runtime;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntFunction;

import io.brook.coordinator.runtime.CoordinatorLogException.Reason;
import io.brook.storage.AppendResult;
import io.brook.storage.Log;
import io.brook.storage.LogReadResult;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.Record;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.RecordBatchBuilder;
import io.brook.wire.record.RecordBatches;

/**
 * {@link CoordinatorLog} over the partition logs of {@code storage}: partition {@code n} of the
 * internal topic is the {@link Log} the broker hands out for it (it should be created with
 * {@code cleanup.policy=compact}). Each {@link #append} writes one uncompressed magic-2 batch (no
 * producer id) and completes when {@link Log#whenDurable} says the batch is fsynced, i.e. with the
 * durability of an {@code acks=all} produce.
 *
 * <p>Failures of the storage layer never pass through: a refused append (log closed, offline or
 * corrupt, batch over {@code max.message.bytes}), a log that cannot be looked up, a flush that
 * fails and a read error all become a {@link CoordinatorLogException}.
 *
 * <p>Reads stop at the high watermark, so that a coordinator never loads a record whose append
 * was not answered (with fsync-on-ack, one a crash could still take back).
 *
 * <p>Threading: {@link #append} is called from the coordinator's owner thread only; completions
 * arrive on the storage flusher thread. {@link #read} runs on a coordinator's loader thread (reads
 * take no lock in storage).
 */
public final class StorageCoordinatorLog implements CoordinatorLog {

    private final String topic;
    private final int partitions;
    private final IntFunction<Log> logs;
    private final Clock clock;

    /**
     * @param topic             the internal topic (for messages)
     * @param partitions        its number of partitions
     * @param logForPartition   the log of a partition, opened or created on demand; called on the
     *                          owner thread and during replay; may throw when there is none
     * @param clock             record timestamps
     */
    public StorageCoordinatorLog(String topic, int partitions, IntFunction<Log> logForPartition, Clock clock) {
        if (partitions < 1) throw new IllegalArgumentException("partitions < 1");
        this.topic = topic;
        this.partitions = partitions;
        this.logs = logForPartition;
        this.clock = clock;
    }

    @Override
    public CompletableFuture<Long> append(int partition, List<CoordinatorRecord> records) {
        if (partition < 0 || partition >= partitions) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("partition " + partition + " of " + partitions));
        }
        if (records.isEmpty()) return CompletableFuture.failedFuture(new IllegalArgumentException("no records"));
        long now = clock.millis();
        RecordBatchBuilder builder = new RecordBatchBuilder(Compression.NONE);
        for (CoordinatorRecord r : records) builder.append(now, r.key(), r.value());
        ByteBuffer batch = builder.build();
        Log log;
        try {
            log = logs.apply(partition);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new CoordinatorLogException(Reason.UNAVAILABLE, name(partition) + ": " + e.getMessage(), e));
        }
        AppendResult result = log.append(batch, 0);
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
            if (!batch.isControl()) {
                for (Iterator<Record> it = batch.records(); it.hasNext(); ) {
                    Record r = it.next();
                    if (r.offset() < offset || r.offset() >= end || r.key() == null) continue;
                    out.add(new CoordinatorRecord(partition, copy(r.key()), r.value() == null ? null : copy(r.value())));
                }
            }
            next = batch.lastOffset() + 1;
        }
        // nothing whole could be read: stop rather than spin
        if (next <= offset) return new ReplayChunk(out, offset, true);
        return new ReplayChunk(out, next, next >= end);
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
