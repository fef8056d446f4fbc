package io.brook.coordinator.group;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.IntFunction;

import io.brook.storage.AppendResult;
import io.brook.storage.Log;
import io.brook.storage.LogConfig;
import io.brook.storage.LogManager;
import io.brook.storage.LogReadResult;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.Record;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.RecordBatchBuilder;
import io.brook.wire.record.RecordBatches;

/**
 * {@link CoordinatorLog} over the partition logs of {@code storage}: partition {@code n} of
 * {@code __consumer_offsets} is the {@link Log} the broker hands out for it (it should be created
 * with {@code cleanup.policy=compact}). Each {@link #append} writes one uncompressed magic-2 batch
 * (no producer id) and completes when {@link Log#whenDurable} says the batch is fsynced, i.e. with
 * the durability of an {@code acks=all} produce. A storage error (log closed, corrupt, disk failure,
 * batch over {@code max.message.bytes}) fails the future with a {@link CoordinatorLogException}.
 *
 * <p>Threading: {@link #append} is called from the coordinator thread only; completions arrive on
 * the storage flusher thread (the coordinator hops back to its own thread). {@link #replay} runs
 * on the thread that starts the coordinator, before anything is appended.
 */
public final class StorageCoordinatorLog implements CoordinatorLog {

    /** How much one read during replay asks for; a larger first batch is still returned whole. */
    private static final int REPLAY_READ_BYTES = 1 << 20;

    private final int partitions;
    private final IntFunction<Log> logs;
    private final Clock clock;

    /**
     * @param partitions        number of {@code __consumer_offsets} partitions (the coordinator's
     *                          {@link GroupCoordinatorConfig#offsetsTopicPartitions()})
     * @param logForPartition   the log of a partition, opened or created on demand; called on the
     *                          coordinator thread and during replay
     * @param clock             record timestamps
     */
    public StorageCoordinatorLog(int partitions, IntFunction<Log> logForPartition, Clock clock) {
        if (partitions < 1) throw new IllegalArgumentException("partitions < 1");
        this.partitions = partitions;
        this.logs = logForPartition;
        this.clock = clock;
    }

    /**
     * Over the {@code __consumer_offsets-<n>} logs of a {@link LogManager}, created on first use
     * with {@code config} plus {@code cleanup.policy=compact} (an existing log keeps its config).
     */
    public static StorageCoordinatorLog over(LogManager logManager, int partitions, LogConfig config, Clock clock) {
        LogConfig compacted = config.with(Map.of(LogConfig.CLEANUP_POLICY, "compact"));
        return new StorageCoordinatorLog(partitions, p -> {
            try {
                return logManager.getOrCreateLog(GroupCoordinatorConfig.OFFSETS_TOPIC, p, compacted);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, clock);
    }

    /** A write the storage refused, with the error it gave. */
    public static final class CoordinatorLogException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient Errors error;

        CoordinatorLogException(Errors error, String message) {
            super(error + ": " + message);
            this.error = error;
        }

        public Errors error() {
            return error;
        }
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
            return CompletableFuture.failedFuture(new CoordinatorLogException(Errors.KAFKA_STORAGE_ERROR, String.valueOf(e.getMessage())));
        }
        AppendResult result = log.append(batch, 0);
        if (result.error() != Errors.NONE) {
            return CompletableFuture.failedFuture(new CoordinatorLogException(result.error(), String.valueOf(result.errorMessage())));
        }
        long last = result.lastOffset();
        return log.whenDurable(last + 1).thenApply(v -> last);
    }

    @Override
    public void replay(Consumer<CoordinatorRecord> consumer) {
        RecordBatches walker = new RecordBatches();
        for (int p = 0; p < partitions; p++) {
            Log log = logs.apply(p);
            long offset = log.logStartOffset();
            long end = log.highWatermark();
            while (offset < end) {
                LogReadResult read = log.read(offset, REPLAY_READ_BYTES, true);
                if (read.error() != Errors.NONE) {
                    throw new IllegalStateException("replay of " + GroupCoordinatorConfig.OFFSETS_TOPIC + "-" + p
                            + " at offset " + offset + ": " + read.error());
                }
                if (read.records() == null || read.sizeInBytes() == 0) break;
                ByteBuffer bytes;
                try {
                    bytes = read.records().readAll();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                long next = offset;
                walker.wrap(bytes);
                RecordBatch batch;
                while ((batch = walker.next()) != null) {
                    if (!batch.isControl()) {
                        for (Iterator<Record> it = batch.records(); it.hasNext(); ) {
                            Record r = it.next();
                            if (r.offset() < offset || r.key() == null) continue;
                            consumer.accept(new CoordinatorRecord(p, copy(r.key()), r.value() == null ? null : copy(r.value())));
                        }
                    }
                    next = batch.lastOffset() + 1;
                }
                if (next <= offset) break; // nothing whole could be read: stop rather than spin
                offset = next;
            }
        }
    }

    private static byte[] copy(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
