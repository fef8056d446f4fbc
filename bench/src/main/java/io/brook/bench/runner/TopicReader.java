package io.brook.bench.runner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads a workload's topic back with assign() (no group) from the offsets where the workload's
 * data begins, by one consumer or several at once (consumer c reading the partitions p with
 * p mod n = c), and checks that each partition's log end is exactly what was acknowledged.
 * Counts records per partition and value bytes; gives up when nothing arrives for the idle limit.
 */
final class TopicReader {

    private final Supplier<KafkaConsumer<byte[], byte[]>> consumers;
    private final BiFunction<String, Integer, long[]> firstOffsets;
    private final Duration idleLimit;
    private final Progress progress;

    TopicReader(Supplier<KafkaConsumer<byte[], byte[]>> consumers, BiFunction<String, Integer, long[]> firstOffsets,
            Duration idleLimit, Progress progress) {
        this.consumers = consumers;
        this.firstOffsets = firstOffsets;
        this.idleLimit = idleLimit;
        this.progress = progress;
    }

    /** {@link #readAll} by {@code consumers} consumers at once, consumer c reading the partitions p with p mod n = c. */
    /**
     * Reads {@code expected} records (per partition) from the topic's first workload offsets: with
     * one consumer all partitions, else {@code consumers} consumers at once on threads of their own.
     */
    ReadCounts read(String topic, long[] expected, int consumers) throws Exception {
        return consumers == 1 ? readAll(topic, expected) : readInParallel(topic, expected, consumers);
    }

    private ReadCounts readInParallel(String topic, long[] expected, int consumers) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(consumers);
        try {
            List<Future<ReadCounts>> reads = new ArrayList<>();
            for (int c = 0; c < consumers; c++) {
                List<Integer> mine = new ArrayList<>();
                for (int p = c; p < expected.length; p += consumers) {
                    mine.add(p);
                }
                reads.add(pool.submit(() -> readAll(topic, expected, mine)));
            }
            long[] counts = new long[expected.length];
            long records = 0;
            long bytes = 0;
            for (Future<ReadCounts> f : reads) {
                ReadCounts r;
                try {
                    r = f.get();
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception cause ? cause : e;
                }
                for (int p = 0; p < counts.length; p++) {
                    counts[p] += r.perPartition[p];
                }
                records += r.records;
                bytes += r.bytes;
            }
            return new ReadCounts(counts, records, bytes);
        } finally {
            pool.shutdownNow();
        }
    }

    /** What was read: records per partition, records and value bytes in all. */
    record ReadCounts(long[] perPartition, long records, long bytes) {
    }

    /**
     * Reads the topic from the workload's first offset on all partitions (assign, no group) until {@code expected}
     * records in total have arrived, or nothing arrives for the idle limit.
     */
    private ReadCounts readAll(String topic, long[] expected) throws Exception {
        List<Integer> all = new ArrayList<>();
        for (int p = 0; p < expected.length; p++) {
            all.add(p);
        }
        return readAll(topic, expected, all);
    }

    /** {@link #readAll(String, long[])} of the partitions {@code mine} only (counts of the others stay 0). */
    private ReadCounts readAll(String topic, long[] expected, List<Integer> mine) throws Exception {
        long total = 0;
        for (int p : mine) {
            total += expected[p];
        }
        long[] counts = new long[expected.length];
        long records = 0;
        long bytes = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = consumers.get()) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p : mine) {
                partitions.add(new TopicPartition(topic, p));
            }
            long[] base = firstOffsets.apply(topic, expected.length);
            consumer.assign(partitions);
            for (int p : mine) {
                consumer.seek(new TopicPartition(topic, p), base[p]);
            }
            long lastProgress = System.nanoTime();
            while (records < total) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(200));
                if (batch.isEmpty()) {
                    if (System.nanoTime() - lastProgress > idleLimit.toNanos()) {
                        break;
                    }
                    continue;
                }
                lastProgress = System.nanoTime();
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    if (r.partition() < counts.length) {
                        counts[r.partition()]++;
                    }
                    bytes += r.serializedValueSize();
                    records++;
                }
                progress.update(String.format(Locale.ROOT, "%,d / %,d records read", records, total));
            }
            // anything beyond what was acknowledged (duplicates) shows up in the end offsets
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            for (int p : mine) {
                long end = ends.getOrDefault(new TopicPartition(topic, p), -1L);
                if (end != base[p] + expected[p]) {
                    throw new VerificationException(topic + "-" + p + ": " + expected[p] + " records acknowledged"
                            + " after offset " + base[p] + " but the log end offset is " + end);
                }
            }
        }
        return new ReadCounts(counts, records, bytes);
    }
}
