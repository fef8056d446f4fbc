package io.brook.bench.runner;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Transactions: one transactional producer writes 1 KiB records round-robin over the partitions
 * of a topic, {@code perTransaction} records per transaction, and commits each transaction
 * ({@code beginTransaction}, the sends, {@code commitTransaction}, one after the other, as fast
 * as they complete); a read_committed consumer in the same JVM reads them. Reported: committed
 * transactions and records per second (from the first begin to the last commit), the broker's
 * CPU, and the end-to-end latency of each committed record, from its {@code send()} (the time is
 * written into the first 8 bytes of the value) to its arrival at the read_committed consumer,
 * which includes waiting for the transaction's commit.
 *
 * <p>Checked afterwards: the consumer read exactly what was committed, per partition, and each
 * partition's log end offset lies one commit marker per transaction beyond its records.
 */
final class TransactionalWorkload {

    static final int RECORD_SIZE = 1024;
    static final int PARTITIONS = 4;
    private static final String TRANSACTION_VERSION = "transaction.version";

    private TransactionalWorkload() {
    }

    static String name(int perTransaction) {
        return String.format(Locale.ROOT, "transactions %,d records/txn %dp %s, read_committed consumer",
                perTransaction, PARTITIONS, Plan.size(RECORD_SIZE));
    }

    static Result run(Workloads w, String broker, long pid, int clockTicks, int perTransaction, long transactions,
            Duration idleLimit) throws Exception {
        String topic = "txn-" + perTransaction;
        w.createTopic(topic, PARTITIONS);
        long[] base = w.firstOffsets(topic, PARTITIONS);
        long records = perTransaction * transactions;
        LatencyRecorder recorder = new LatencyRecorder();
        long[] readCounts = new long[PARTITIONS];
        AtomicLong received = new AtomicLong();
        AtomicLong committedTotal = new AtomicLong(-1); // set once the producer is done
        AtomicReference<Throwable> consumerFailure = new AtomicReference<>();
        CountDownLatch consumerReady = new CountDownLatch(1);
        List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.add(new TopicPartition(topic, p));
        }

        Thread consumerThread = new Thread(() -> {
            Properties cp = w.consumerSettings();
            cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cp)) {
                consumer.assign(partitions);
                for (int p = 0; p < PARTITIONS; p++) {
                    consumer.seek(partitions.get(p), base[p]);
                }
                consumer.poll(Duration.ofMillis(100)); // connects and fetches metadata before the clock starts
                consumerReady.countDown();
                long lastProgress = System.nanoTime();
                long count = 0;
                while (true) {
                    long target = committedTotal.get();
                    if (target >= 0 && count >= target) {
                        break;
                    }
                    ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
                    long now = System.nanoTime();
                    if (batch.isEmpty()) {
                        if (target >= 0 && now - lastProgress > idleLimit.toNanos()) {
                            break;
                        }
                        continue;
                    }
                    lastProgress = now;
                    for (ConsumerRecord<byte[], byte[]> r : batch) {
                        recorder.record(ByteBuffer.wrap(r.value()).getLong(0), now);
                        readCounts[r.partition()]++;
                        count++;
                    }
                    received.set(count);
                }
            } catch (Throwable t) {
                consumerFailure.set(t);
                consumerReady.countDown();
            }
        }, "transactions-consumer");

        long[] committed = new long[PARTITIONS];
        double seconds;
        double cpu;
        double clientCpu;
        Properties pp = w.producerSettings("all", 16 * 1024, Plan.LINGER_MS);
        pp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "bench-" + topic);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp)) {
            producer.initTransactions();
            producer.partitionsFor(topic); // metadata before the clock starts
            consumerThread.start();
            if (!consumerReady.await(60, TimeUnit.SECONDS) || consumerFailure.get() != null) {
                throw new IllegalStateException("read_committed consumer did not start", consumerFailure.get());
            }
            byte[] value = Workloads.payload(RECORD_SIZE); // the producer copies it into its batch inside send()
            ByteBuffer stamp = ByteBuffer.wrap(value);
            CpuMeter meter = CpuMeter.start(pid, clockTicks);
            long t0 = System.nanoTime();
            long i = 0;
            try {
                for (long t = 0; t < transactions; t++) {
                    producer.beginTransaction();
                    for (int n = 0; n < perTransaction; n++, i++) {
                        stamp.putLong(0, System.nanoTime());
                        var unused = producer.send(new ProducerRecord<>(topic, (int) (i % PARTITIONS), null, value));
                    }
                    producer.commitTransaction(); // throws if any send of the transaction failed
                    for (long k = i - perTransaction; k < i; k++) {
                        committed[(int) (k % PARTITIONS)]++;
                    }
                    if ((t & 0xF) == 0) {
                        progress(w, t, transactions, received.get(), records);
                    }
                }
            } finally {
                long total = 0;
                for (long c : committed) {
                    total += c;
                }
                committedTotal.set(total);
            }
            seconds = (System.nanoTime() - t0) / 1e9;
            consumerThread.join(idleLimit.toMillis() + 30_000);
            cpu = meter.seconds();
            clientCpu = meter.clientSeconds();
        } finally {
            committedTotal.compareAndSet(-1, 0);
        }
        if (consumerThread.isAlive()) {
            consumerThread.interrupt();
            throw new IllegalStateException("read_committed consumer did not finish");
        }
        if (consumerFailure.get() != null) {
            throw new IllegalStateException("read_committed consumer failed", consumerFailure.get());
        }
        Workloads.verify(topic, committed, readCounts);
        checkMarkers(w, topic, base, committed, transactions);
        w.dropTopic(topic);
        return Result.of(name(perTransaction), broker)
                .throughput(records, records * RECORD_SIZE, seconds, cpu)
                .put(Metric.TRANSACTIONS_PER_S, transactions / seconds)
                .put(Metric.CLIENT_CPU_S, clientCpu)
                .put(Metric.P50_MS, recorder.percentileMillis(50))
                .put(Metric.P99_MS, recorder.percentileMillis(99))
                .put(Metric.P999_MS, recorder.percentileMillis(99.9))
                .put(Metric.MAX_MS, recorder.maxMillis())
                .build();
    }

    /**
     * Finalizes {@code transaction.version} at {@code level} (as {@code kafka-features.sh upgrade} or
     * {@code downgrade} does) unless it is there already, and waits until the broker reports it, so
     * that the workload's producer, created afterwards, runs the transactions of that level.
     */
    static void finalizeTransactionVersion(Admin admin, short level) throws Exception {
        if (finalizedTransactionVersion(admin) == level) {
            return;
        }
        FeatureUpdate.UpgradeType type = level > finalizedTransactionVersion(admin)
                ? FeatureUpdate.UpgradeType.UPGRADE : FeatureUpdate.UpgradeType.SAFE_DOWNGRADE;
        admin.updateFeatures(Map.of(TRANSACTION_VERSION, new FeatureUpdate(level, type)), new UpdateFeaturesOptions())
                .all().get(30, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (finalizedTransactionVersion(admin) != level) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(TRANSACTION_VERSION + " is not finalized at " + level);
            }
            Thread.sleep(50);
        }
    }

    private static short finalizedTransactionVersion(Admin admin) throws Exception {
        FinalizedVersionRange r = admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS)
                .finalizedFeatures().get(TRANSACTION_VERSION);
        return r == null ? 0 : r.maxVersionLevel();
    }

    private static void progress(Workloads w, long done, long transactions, long received, long records) {
        w.progressUpdate(String.format(Locale.ROOT, "%,d / %,d transactions committed; %,d / %,d records read",
                done, transactions, received, records));
    }

    /** Every partition's log ends one marker per transaction after its committed records. */
    private static void checkMarkers(Workloads w, String topic, long[] base, long[] committed, long transactions)
            throws Exception {
        Map<TopicPartition, Long> ends = w.endOffsets(topic, base.length);
        for (int p = 0; p < base.length; p++) {
            long end = ends.getOrDefault(new TopicPartition(topic, p), -1L);
            if (end != base[p] + committed[p] + transactions) {
                throw new VerificationException(String.format(Locale.ROOT, "%s-%d: %,d records committed in %,d"
                        + " transactions after offset %,d, but the log end offset is %,d", topic, p, committed[p],
                        transactions, base[p], end));
            }
        }
    }
}
