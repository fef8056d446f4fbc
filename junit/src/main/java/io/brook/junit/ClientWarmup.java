package io.brook.junit;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Starts kafka-clients' cold start while the first broker of the JVM starts: on a daemon thread
 * of its own, it initialises the platform MBean server (every client registers its app-info
 * MBean there when it is created) and the client classes whose static initialisers are the bulk
 * of a first client's class loading (the protocol's API keys with every message schema, the
 * errors, the producer, consumer and admin configurations). The test's first client then finds
 * them ready instead of loading them on the test's thread and the client's network thread.
 *
 * <p>It moves work, it removes none: the JVM does the same loading, earlier and beside the
 * broker's start, on whatever core is free. Only classes are initialised, no client is created:
 * nothing connects, logs or registers anything of its own. It does nothing when kafka-clients is
 * not on the class path, never fails a test itself (whatever it throws is dropped; a class that
 * failed to initialise fails again when the test's client uses it) and runs once per JVM.
 *
 * <p>Off unless the JUnit configuration parameter (or system property) {@value #PARAMETER} is
 * {@code true}: measured on 2 busy cores it moved ~450 ms of CPU from the first produce into the
 * broker's start, where the broker and the JIT compilers already keep both cores busy, and no
 * gain in wall time could be told from the noise (docs/test-broker.md).
 */
final class ClientWarmup {
    static final String PARAMETER = "brook.client.warmup";

    /** Classes initialised in this order; missing ones (another kafka-clients version) are skipped. */
    static final List<String> CLASSES = List.of(
            "org.apache.kafka.clients.producer.ProducerConfig",
            "org.apache.kafka.common.protocol.ApiKeys",
            "org.apache.kafka.common.protocol.Errors",
            "org.apache.kafka.clients.producer.KafkaProducer",
            "org.apache.kafka.clients.consumer.ConsumerConfig",
            "org.apache.kafka.clients.consumer.KafkaConsumer",
            "org.apache.kafka.clients.admin.AdminClientConfig",
            "org.apache.kafka.clients.admin.KafkaAdminClient");

    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private ClientWarmup() {
    }

    /**
     * Starts the warm-up on its thread, unless {@code enabled} is false, it ran in this JVM before,
     * or kafka-clients is not visible from {@code loader}.
     *
     * @return the thread started, or null
     */
    static Thread startOnce(boolean enabled, ClassLoader loader) {
        if (!enabled || !present(loader) || !STARTED.compareAndSet(false, true)) {
            return null;
        }
        Thread t = new Thread(() -> run(loader), "brook-client-warmup");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
        return t;
    }

    /** Whether kafka-clients is on the class path of {@code loader} (looked up, not initialised). */
    static boolean present(ClassLoader loader) {
        try {
            Class.forName(CLASSES.get(0), false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static void run(ClassLoader loader) {
        try {
            ManagementFactory.getPlatformMBeanServer();
            for (String name : CLASSES) {
                try {
                    Class.forName(name, true, loader);
                } catch (ClassNotFoundException e) {
                    // another kafka-clients version: the next class may still be there
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // best effort: the first client starts cold instead
        }
    }
}
