package io.brook.bench.runner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** What to run and how much of it: the full matrix, or the small subset of {@code --quick}. */
final class Plan {

    /** One cell of the produce-throughput matrix. */
    record ProduceCell(int partitions, int recordSize, String acks, int batchSize) {
        String name() {
            return "produce " + partitions + "p " + size(recordSize) + " acks=" + acks + " batch=" + size(batchSize);
        }
    }

    static final int LINGER_MS = 5;
    static final int CONSUME_PARTITIONS = 8;
    static final int CONSUME_RECORD_SIZE = 100;
    static final int LATENCY_RECORD_SIZE = 100;
    static final int MANY_PARTITIONS_RECORD_SIZE = 100;

    final boolean quick;
    final List<ProduceCell> produce;
    final long smallRecords;
    final long largeRecords;
    final long consumeRecords;
    final List<Integer> latencyRates;
    final Duration latencyDuration;
    final Duration latencyWarmup;
    final int manyPartitions;
    final long manyPartitionRecords;
    final long warmupRecords;
    /** How long each phase of the fetch-sessions workload tails the many-partition topic. */
    final Duration fetchSessionDuration;
    /** Records per transaction of each transactions workload. */
    static final List<Integer> RECORDS_PER_TRANSACTION = List.of(100, 1_000);
    /** Records each transactions workload commits (in records ÷ records-per-transaction transactions). */
    final long transactionalRecords;

    private Plan(boolean quick, List<ProduceCell> produce, long smallRecords, long largeRecords, long consumeRecords,
                 List<Integer> latencyRates, Duration latencyDuration, Duration latencyWarmup,
                 int manyPartitions, long manyPartitionRecords, long warmupRecords, Duration fetchSessionDuration,
                 long transactionalRecords) {
        this.quick = quick;
        this.produce = List.copyOf(produce);
        this.smallRecords = smallRecords;
        this.largeRecords = largeRecords;
        this.consumeRecords = consumeRecords;
        this.latencyRates = List.copyOf(latencyRates);
        this.latencyDuration = latencyDuration;
        this.latencyWarmup = latencyWarmup;
        this.manyPartitions = manyPartitions;
        this.manyPartitionRecords = manyPartitionRecords;
        this.warmupRecords = warmupRecords;
        this.fetchSessionDuration = fetchSessionDuration;
        this.transactionalRecords = transactionalRecords;
    }

    /** 1 and 8 partitions × 100 B and 1 KiB × acks=1 and all × batch 16 and 256 KiB; 10 M records to consume. */
    static Plan full() {
        List<ProduceCell> cells = new ArrayList<>();
        for (int partitions : new int[] {1, 8}) {
            for (int size : new int[] {100, 1024}) {
                for (String acks : new String[] {"1", "all"}) {
                    for (int batch : new int[] {16 * 1024, 256 * 1024}) {
                        cells.add(new ProduceCell(partitions, size, acks, batch));
                    }
                }
            }
        }
        // 1 GB per 100 B cell and 2 GB per 1 KiB cell: seconds per cell even at the fastest rates,
        // so that a cell is not over before the broker's group commit and the client settle
        return new Plan(false, cells, 10_000_000, 2_000_000, 10_000_000, List.of(5_000, 50_000),
                Duration.ofSeconds(30), Duration.ofSeconds(5), 1_000, 1_000_000, 300_000, Duration.ofSeconds(20),
                200_000);
    }

    /** Three produce cells that span the matrix, and small counts: a few seconds per workload. */
    static Plan quick() {
        List<ProduceCell> cells = List.of(
                new ProduceCell(1, 1024, "all", 16 * 1024),
                new ProduceCell(8, 100, "1", 256 * 1024),
                new ProduceCell(8, 1024, "all", 256 * 1024));
        // 250 rather than 1,000 partitions: creating 1,000 takes each broker ten seconds or more
        return new Plan(true, cells, 200_000, 20_000, 300_000, List.of(5_000, 50_000),
                Duration.ofSeconds(2), Duration.ofMillis(500), 250, 20_000, 20_000, Duration.ofSeconds(5),
                20_000);
    }

    /** This plan with {@code records} to consume in the consume workloads ({@code --consume-records}). */
    Plan withConsumeRecords(long records) {
        return new Plan(quick, produce, smallRecords, largeRecords, records, latencyRates, latencyDuration,
                latencyWarmup, manyPartitions, manyPartitionRecords, warmupRecords, fetchSessionDuration,
                transactionalRecords);
    }

    long produceRecords(ProduceCell cell) {
        return cell.recordSize() <= 100 ? smallRecords : largeRecords;
    }

    static String size(int bytes) {
        return bytes % 1024 == 0 ? (bytes / 1024) + "KiB" : bytes + "B";
    }
}
