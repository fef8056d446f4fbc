package io.brook.reliability;

import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Fills a topic fast: records of one size, round-robin over its partitions, acks=1 in 1 MiB batches. */
final class BulkFill {
    private BulkFill() {
    }

    /**
     * Writes at least {@code bytes} of {@code recordBytes}-byte values (no keys) and returns the
     * records acknowledged; throws if any failed.
     */
    static long fill(String bootstrap, String topic, int partitions, long bytes, int recordBytes) {
        byte[] value = new byte[recordBytes];
        new Random(recordBytes).nextBytes(value);
        long records = (bytes + recordBytes - 1) / recordBytes;
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        try (KafkaProducer<byte[], byte[]> producer = Clients.bulkProducer(bootstrap, "reliability-fill-" + topic)) {
            for (long i = 0; i < records; i++) {
                var unused = producer.send(new ProducerRecord<>(topic, (int) (i % partitions), null, value), (md, e) -> {
                    if (e == null) {
                        acked.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                    }
                }); // the callback sees the outcome
            }
            producer.flush();
        }
        if (failed.get() > 0) {
            throw new IllegalStateException(failed.get() + " of " + records + " acks=1 records failed while filling "
                    + topic);
        }
        return acked.get();
    }
}
