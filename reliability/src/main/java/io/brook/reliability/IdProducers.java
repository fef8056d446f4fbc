package io.brook.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Producers that write records with unique ids ({@link AckLedger#key}) as fast as the broker
 * acknowledges them, one thread and one idempotent acks=all producer per ledger slot, and record
 * every acknowledgement in the ledger. At most {@code window} records per slot are unacknowledged
 * at a time. A send that fails is counted by its exception; a producer whose {@code send} throws
 * (it went into a fatal state) is replaced by a new one for the same slot, whose ids continue.
 */
final class IdProducers {
    private final String bootstrap;
    private final Map<String, String> security;
    private final String topic;
    private final AckLedger ledger;
    private final byte[] value;
    private final int window;
    private final List<Thread> threads = new ArrayList<>();
    private final Failures failures = new Failures();
    private final PauseMeter pauses = new PauseMeter();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong replaced = new AtomicLong();
    private volatile boolean running = true;
    private volatile long drainDeadlineNanos;

    IdProducers(String bootstrap, String topic, AckLedger ledger, int valueBytes, int window) {
        this(bootstrap, Map.of(), topic, ledger, valueBytes, window);
    }

    /** Producers that connect with the client settings {@code security} ({@link Clients}). */
    IdProducers(String bootstrap, Map<String, String> security, String topic, AckLedger ledger, int valueBytes, int window) {
        this.bootstrap = bootstrap;
        this.security = Map.copyOf(security);
        this.topic = topic;
        this.ledger = ledger;
        this.value = new byte[valueBytes];
        new Random(valueBytes).nextBytes(value);
        this.window = window;
    }

    IdProducers start() {
        for (int slot = 0; slot < ledger.slots(); slot++) {
            Semaphore w = new Semaphore(window);
            int s = slot;
            Thread t = new Thread(() -> run(s, w), "id-producer-" + slot);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        return this;
    }

    private void run(int slot, Semaphore window) {
        KafkaProducer<byte[], byte[]> producer = Clients.idempotentProducer(bootstrap, "reliability-producer-" + slot, security);
        long seq = 0;
        try {
            while (running) {
                if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                long s = seq++;
                ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, ledger.partitionOf(s), AckLedger.key(slot, s),
                        value);
                try {
                    var unused = producer.send(r, (md, e) -> { // the callback sees the outcome
                        window.release();
                        if (e == null) {
                            ledger.acked(slot, s, md.offset());
                            pauses.event();
                        } else {
                            failures.add("", e);
                        }
                    });
                    sent.incrementAndGet();
                } catch (TimeoutException e) {
                    window.release();
                    failures.add("send() ", e);
                } catch (InterruptException e) {
                    window.release();
                    break;
                } catch (RuntimeException e) {
                    window.release();
                    failures.add("send() ", e);
                    producer.close(Duration.ZERO);
                    producer = Clients.idempotentProducer(bootstrap, "reliability-producer-" + slot, security);
                    replaced.incrementAndGet();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            Waits.holds(Duration.ofNanos(Math.max(0, drainDeadlineNanos - System.nanoTime())),
                    () -> window.availablePermits() == this.window);
            producer.close(Duration.ZERO); // fails what is still unanswered
        }
    }

    /**
     * Stops sending, waits up to {@code drain} for the records in flight to be answered, then
     * closes the producers (what is still unanswered fails, unacknowledged).
     */
    void stop(Duration drain) throws InterruptedException {
        drainDeadlineNanos = System.nanoTime() + drain.toNanos();
        running = false;
        for (Thread t : threads) {
            t.join(drain.toMillis() + 10_000);
        }
    }

    long sent() {
        return sent.get();
    }

    /** Producers replaced after {@code send} threw. */
    long replaced() {
        return replaced.get();
    }

    /** Failed sends by exception class; empty when every send was acknowledged. */
    Failures failures() {
        return failures;
    }

    /** The longest time between two acknowledgements. */
    PauseMeter pauses() {
        return pauses;
    }
}
