package io.brook.reliability;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A consume-transform-produce loop with exactly-once semantics, as Kafka Streams and Flink run
 * it: a read_committed member of a group reads {@code input}, and each poll's records are written
 * to {@code output} (same partition, key and value) and to {@code compacted} (key: the input
 * partition and the record's key) in one transaction that also commits the group's offsets
 * ({@code sendOffsetsToTransaction}). After any failure (the broker was killed) both clients are
 * closed and new ones take over with the same transactional id and group instance id:
 * {@code initTransactions} ends whatever the old producer left open, and the new member reads on
 * from the offsets the last committed transaction stored. One transaction in {@code abortOneIn}
 * is aborted on purpose once everything of it was sent (the member then reads those records
 * again), as a Streams task that fails mid-commit would; and {@link #crash} makes it drop both
 * clients in the middle of its next transaction, as a process that dies would, so that the new
 * producer's {@code initTransactions} has an open transaction to abort. One thread.
 */
final class TransactionalCopier {
    static final String GROUP = "txn-copier";
    private static final String TRANSACTIONAL_ID = "txn-copier";

    private final String bootstrap;
    private final String input;
    private final String output;
    private final String compacted;
    private final int abortOneIn;
    private final Random random;
    private final IntConsumer onCommitted;
    private final Failures failures = new Failures();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong copied = new AtomicLong();
    private final AtomicLong restarts = new AtomicLong();
    private final AtomicLong aborts = new AtomicLong();
    private final AtomicLong crashes = new AtomicLong();
    private volatile boolean crashRequested;
    private volatile boolean running = true;
    private Thread thread;

    /** @param onCommitted told how many input records each commit that returned copied */
    TransactionalCopier(String bootstrap, String input, String output, String compacted, int abortOneIn, long seed,
            IntConsumer onCommitted) {
        this.bootstrap = bootstrap;
        this.input = input;
        this.output = output;
        this.compacted = compacted;
        this.abortOneIn = abortOneIn;
        this.random = new Random(seed);
        this.onCommitted = onCommitted;
    }

    TransactionalCopier start() {
        thread = new Thread(this::run, "txn-copier");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    private void run() {
        while (running) {
            KafkaProducer<byte[], byte[]> producer = null;
            KafkaConsumer<byte[], byte[]> consumer = null;
            try {
                producer = producer();
                consumer = consumer();
                producer.initTransactions();
                consumer.subscribe(List.of(input));
                while (running) {
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                    if (records.isEmpty()) {
                        continue;
                    }
                    producer.beginTransaction();
                    Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
                    Map<TopicPartition, Long> first = new HashMap<>();
                    for (ConsumerRecord<byte[], byte[]> r : records) {
                        // a failed send fails the commit below
                        var unusedCopy = producer.send(new ProducerRecord<>(output, r.partition(), r.key(), r.value()));
                        var unusedLatest = producer.send(new ProducerRecord<>(compacted,
                                compactedKey(r.partition(), r.key()), r.value()));
                        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                        next.put(tp, new OffsetAndMetadata(r.offset() + 1));
                        first.putIfAbsent(tp, r.offset());
                    }
                    producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
                    if (crashRequested) {
                        crashRequested = false;
                        crashes.incrementAndGet();
                        throw new SimulatedCrash();
                    }
                    if (random.nextInt(abortOneIn) == 0) {
                        producer.flush();
                        producer.abortTransaction();
                        aborts.incrementAndGet();
                        first.forEach(consumer::seek);
                        continue;
                    }
                    producer.commitTransaction();
                    commits.incrementAndGet();
                    copied.addAndGet(records.count());
                    onCommitted.accept(records.count());
                }
            } catch (SimulatedCrash e) {
                // the clients go below without ending anything
            } catch (RuntimeException e) {
                if (running) {
                    failures.add("copy", e);
                    restarts.incrementAndGet();
                }
            } finally {
                if (consumer != null) {
                    consumer.close(Duration.ofSeconds(1));
                }
                if (producer != null) {
                    producer.close(Duration.ofSeconds(1));
                }
            }
        }
    }

    /** The key a record of input partition {@code partition} gets in the compacted topic. */
    static byte[] compactedKey(int partition, byte[] key) {
        byte[] out = new byte[key.length + 1];
        out[0] = (byte) partition;
        System.arraycopy(key, 0, out, 1, key.length);
        return out;
    }

    private KafkaProducer<byte[], byte[]> producer() {
        return Clients.transactionalProducer(bootstrap, "txn-copier", TRANSACTIONAL_ID);
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        // the same member after every restart: no wait for the old one's session to expire
        return Clients.readCommittedMember(bootstrap, GROUP, "txn-copier", "txn-copier");
    }

    long commits() {
        return commits.get();
    }

    /** Records of transactions whose commit returned (a commit that failed may have landed too). */
    long copied() {
        return copied.get();
    }

    long aborts() {
        return aborts.get();
    }

    /** Drops the clients in the middle of the next transaction (after its records and offsets were sent). */
    void crash() {
        crashRequested = true;
    }

    long crashes() {
        return crashes.get();
    }

    long restarts() {
        return restarts.get();
    }

    Failures failures() {
        return failures;
    }

    private static final class SimulatedCrash extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SimulatedCrash() {
            super("simulated crash", null, false, false);
        }
    }

    void stop() throws InterruptedException {
        running = false;
        if (thread != null) {
            thread.join(Duration.ofSeconds(60).toMillis());
        }
    }
}
