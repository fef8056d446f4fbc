package io.brook.reliability;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Producer throughput: one idempotent acks=all producer sends 512-byte records to every partition
 * of a topic as fast as they are acknowledged (at most 20,000 unanswered) for a fixed time;
 * records/s counts the acknowledgements in that time.
 */
final class Throughput {
    private static final int RECORD_BYTES = 512;
    private static final int WINDOW = 20_000;

    /** Records acknowledged per second, and the sends that failed. */
    record Measurement(double recordsPerSecond, long failures) {
    }

    private Throughput() {
    }

    static Measurement measure(String bootstrap, String topic, int partitions, Duration time) throws InterruptedException {
        byte[] value = new byte[RECORD_BYTES];
        new Random(3).nextBytes(value);
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        Semaphore window = new Semaphore(WINDOW);
        long start;
        long end;
        long ackedAtEnd;
        try (KafkaProducer<byte[], byte[]> producer = Clients.idempotentProducer(bootstrap, "reliability-throughput")) {
            producer.partitionsFor(topic); // metadata before the clock starts
            start = System.nanoTime();
            end = start + time.toNanos();
            long i = 0;
            while (System.nanoTime() < end) {
                if (!window.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                producer.send(new ProducerRecord<>(topic, (int) (i++ % partitions), null, value), (md, e) -> {
                    window.release();
                    if (e == null) {
                        acked.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                    }
                });
            }
            ackedAtEnd = acked.get();
            producer.flush();
        }
        return new Measurement(ackedAtEnd / ((end - start) / 1e9), failed.get());
    }
}
