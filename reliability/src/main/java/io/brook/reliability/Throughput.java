package io.brook.reliability;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;

/**
 * Producer throughput: one idempotent acks=all producer sends 512-byte records to every partition
 * of a topic as fast as they are acknowledged (at most 20,000 unanswered) for a fixed time;
 * records/s counts the acknowledgements in that time. Failures are counted, never thrown.
 */
final class Throughput {
    private static final int RECORD_BYTES = 512;
    private static final int WINDOW = 20_000;

    /** Records acknowledged per second, the sends that failed and the first failure (or null). */
    record Measurement(double recordsPerSecond, long failures, String firstFailure) {
    }

    /** The measuring producer's client id. */
    static final String CLIENT_ID = "reliability-throughput";

    private Throughput() {
    }

    static Measurement measure(String bootstrap, String topic, int partitions, Duration time) throws InterruptedException {
        try (Steady producer = new Steady(bootstrap, topic, partitions)) {
            return producer.measure(time);
        }
    }

    /**
     * One producer kept open across several measurements (alternating windows compare like with
     * like: no producer start-up in any of them).
     */
    static final class Steady implements AutoCloseable {
        private final KafkaProducer<byte[], byte[]> producer;
        private final String topic;
        private final int partitions;
        private final byte[] value = new byte[RECORD_BYTES];
        private final AtomicLong acked = new AtomicLong();
        private final AtomicLong failed = new AtomicLong();
        private final AtomicReference<String> firstFailure = new AtomicReference<>();
        private final Semaphore window = new Semaphore(WINDOW);
        private final String metadataFailure;
        private long sent;

        Steady(String bootstrap, String topic, int partitions) {
            this.producer = Clients.idempotentProducer(bootstrap, CLIENT_ID);
            this.topic = topic;
            this.partitions = partitions;
            new Random(3).nextBytes(value);
            String failure = null;
            try {
                producer.partitionsFor(topic); // metadata before the clock starts
            } catch (KafkaException e) {
                failure = "metadata: " + e;
            }
            this.metadataFailure = failure;
        }

        /** Sends for {@code time}; the acknowledgements in it per second, and the failures since the last call. */
        Measurement measure(Duration time) throws InterruptedException {
            if (metadataFailure != null) {
                return new Measurement(0, 1, metadataFailure);
            }
            long ackedAtStart = acked.get();
            long failedAtStart = failed.get();
            firstFailure.set(null);
            long start = System.nanoTime();
            long end = start + time.toNanos();
            while (System.nanoTime() < end) {
                if (!window.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                try {
                    var unused = producer.send(new ProducerRecord<>(topic, (int) (sent++ % partitions), null, value), (md, e) -> {
                        window.release();
                        if (e == null) {
                            acked.incrementAndGet();
                        } else {
                            failed.incrementAndGet();
                            firstFailure.compareAndSet(null, e.toString());
                        }
                    });
                } catch (KafkaException e) {
                    window.release();
                    failed.incrementAndGet();
                    firstFailure.compareAndSet(null, "send(): " + e);
                }
            }
            long ackedInWindow = acked.get() - ackedAtStart;
            return new Measurement(ackedInWindow / ((end - start) / 1e9), failed.get() - failedAtStart, firstFailure.get());
        }

        /** Waits for what is still unanswered (outside every measurement), then closes the producer. */
        @Override
        public void close() {
            producer.flush();
            producer.close();
        }
    }
}
