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
        byte[] value = new byte[RECORD_BYTES];
        new Random(3).nextBytes(value);
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicReference<String> firstFailure = new AtomicReference<>();
        Semaphore window = new Semaphore(WINDOW);
        long start;
        long end;
        long ackedAtEnd;
        try (KafkaProducer<byte[], byte[]> producer = Clients.idempotentProducer(bootstrap, CLIENT_ID)) {
            try {
                producer.partitionsFor(topic); // metadata before the clock starts
            } catch (KafkaException e) {
                return new Measurement(0, 1, "metadata: " + e);
            }
            start = System.nanoTime();
            end = start + time.toNanos();
            long i = 0;
            while (System.nanoTime() < end) {
                if (!window.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                try {
                    var unused = producer.send(new ProducerRecord<>(topic, (int) (i++ % partitions), null, value), (md, e) -> {
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
            ackedAtEnd = acked.get();
            producer.flush();
        }
        return new Measurement(ackedAtEnd / ((end - start) / 1e9), failed.get(), firstFailure.get());
    }
}
