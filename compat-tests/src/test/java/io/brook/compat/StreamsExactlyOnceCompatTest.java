package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.brook.server.Brook;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka Streams application with {@code processing.guarantee=exactly_once_v2} ({@link
 * StreamsCountApp}: a count per key through a repartition topic and a changelogged store). Run in
 * two instances one after the other (the second restores the store from its changelog and
 * continues from the committed offsets), and killed with SIGKILL in a JVM of its own while input
 * arrives and it writes counts, then started again. The counts read with read_committed must be
 * exact: every input counted once, never over-counted. Also while the broker crashes under the
 * running application (Brook's {@code crash()}: every write no fsync covered is lost) and starts
 * again, which needs the embedded broker. Runs against Apache Kafka too (the crash skips there).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class StreamsExactlyOnceCompatTest {

    private static final int KEYS = 5;

    /** Bounds the input of the broker-crash test, which produces until the broker has restarted. */
    private static final int MAX_INPUT = 100_000;

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass(Groups.BROKER_CONFIGS);

    @TempDir
    Path stateDir;

    private KafkaStreams streams(String appId, String input, String output) throws Exception {
        return StreamsCountApp.create(cluster.bootstrapServers(), appId, input, output,
                Files.createTempDirectory(stateDir, "state"));
    }

    private static void produceValues(String topic, int from, int count) throws Exception {
        produceValues(cluster.bootstrapServers(), topic, from, count);
    }

    private static void produceValues(String bootstrap, String topic, int from, int count) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Groups.pipelinedIdempotentProducerProps(bootstrap))) {
            for (int i = from; i < from + count; i++) {
                producer.send(new ProducerRecord<>(topic, Integer.toString(i), "k" + (i % KEYS))).get();
            }
        }
    }

    /** The latest count of each key in the output, read with read_committed until {@code done}. */
    private static Map<String, Long> awaitCounts(String output, Map<String, Long> expected) {
        return awaitCounts(cluster.bootstrapServers(), output, expected);
    }

    private static Map<String, Long> awaitCounts(String bootstrap, String output, Map<String, Long> expected) {
        Properties p = Groups.consumerProps(bootstrap, Groups.unique("verify"));
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
        Map<String, Long> latest = new HashMap<>();
        try (KafkaConsumer<String, Long> c = new KafkaConsumer<>(p)) {
            c.subscribe(List.of(output));
            Groups.pollUntil(Duration.ofSeconds(90), () -> "counts " + latest + ", expected " + expected, () -> {
                for (ConsumerRecord<String, Long> r : c.poll(Duration.ofMillis(100))) {
                    Long before = latest.put(r.key(), r.value());
                    // never over-counted, never going back
                    assertThat(r.value()).isLessThanOrEqualTo(expected.get(r.key()));
                    assertThat(before == null || r.value() > before).isTrue();
                }
            }, () -> latest.equals(expected));
        }
        return latest;
    }

    private static Map<String, Long> expected(int total) {
        Map<String, Long> m = new HashMap<>();
        for (int i = 0; i < total; i++) {
            m.merge("k" + (i % KEYS), 1L, Long::sum);
        }
        return m;
    }

    @Test
    void shouldCountEachInputExactlyOnceAcrossTwoInstances() throws Exception {
        String appId = Groups.unique("eos");
        String input = Groups.unique("words");
        String output = Groups.unique("counts");
        Groups.createTopic(cluster.bootstrapServers(), input, 2);
        Groups.createTopic(cluster.bootstrapServers(), output, 2);
        produceValues(input, 0, 100);
        try (KafkaStreams first = streams(appId, input, output)) {
            first.start();
            assertThat(awaitCounts(output, expected(100))).isEqualTo(expected(100));
        }
        produceValues(input, 100, 50);
        try (KafkaStreams second = streams(appId, input, output)) {
            second.start();
            assertThat(awaitCounts(output, expected(150))).isEqualTo(expected(150));
        }
    }

    @Test
    void shouldCountEachInputExactlyOnceWhenTheApplicationIsKilledMidStream() throws Exception {
        String appId = Groups.unique("eos-kill");
        String input = Groups.unique("words");
        String output = Groups.unique("counts");
        Groups.createTopic(cluster.bootstrapServers(), input, 2);
        Groups.createTopic(cluster.bootstrapServers(), output, 2);
        Path state = Files.createTempDirectory(stateDir, "state");
        produceValues(input, 0, 200);
        Path log = Files.createTempFile(stateDir, "app", ".log");
        Process app = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                StreamsCountApp.class.getName(), cluster.bootstrapServers(), appId, input, output, state.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Thread more = null;
        try {
            Groups.await(Duration.ofSeconds(90), "the application running and writing counts", () -> {
                assertThat(app.isAlive()).as("the application is alive; its log: %s", readQuietly(log)).isTrue();
                return outputEnd(output) > 0;
            });
            // more input while it works; killed once it has written some of that input's counts
            long before = outputEnd(output);
            more = new Thread(() -> {
                try {
                    produceValues(input, 200, 300);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "more-input");
            more.start();
            Groups.await(Duration.ofSeconds(60), "counts of the new input being written", () -> outputEnd(output) > before);
        } finally {
            app.destroyForcibly(); // SIGKILL: no commit, no close, an open transaction left behind
            assertThat(app.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        more.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(more.isAlive()).isFalse();
        // the same instance again (same state directory, so the same transactional ids), in this JVM
        try (KafkaStreams again = StreamsCountApp.create(cluster.bootstrapServers(), appId, input, output, state)) {
            again.start();
            assertThat(awaitCounts(output, expected(500))).isEqualTo(expected(500));
        }
    }

    @Test
    void shouldCountEachInputExactlyOnceThroughABrokerCrash() throws Exception {
        assumeTrue(System.getProperty("bootstrap.servers") == null, "needs an embedded broker to crash");
        Path data = Files.createTempDirectory(stateDir, "broker");
        try (Brook brook = Brook.builder().port(0).dataDir(data).faults(true).config(Groups.BROKER_CONFIGS).start()) {
            String bootstrap = brook.bootstrapServers();
            String appId = Groups.unique("eos-crash");
            String input = Groups.unique("words");
            String output = Groups.unique("counts");
            Groups.createTopic(bootstrap, input, 2);
            Groups.createTopic(bootstrap, output, 2);
            produceValues(bootstrap, input, 0, 200);
            try (KafkaStreams app = StreamsCountApp.create(bootstrap, appId, input, output,
                    Files.createTempDirectory(stateDir, "state"))) {
                app.start();
                Groups.await(Duration.ofSeconds(90), "the application writing counts", () -> outputEnd(bootstrap, output) > 0);
                // more input, without pause, until the broker has crashed and started again: the
                // application always has work, so one of its transactions (it commits every
                // 100 ms) holds records in the output when the broker crashes, and the broker
                // starts again on what it had fsynced
                long before = outputEnd(bootstrap, output);
                AtomicBoolean stop = new AtomicBoolean();
                AtomicInteger produced = new AtomicInteger(200);
                AtomicReference<Exception> failed = new AtomicReference<>();
                Thread more = new Thread(() -> {
                    try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                            Groups.pipelinedIdempotentProducerProps(bootstrap))) {
                        for (int i = produced.get(); !stop.get() && i < MAX_INPUT; i = produced.incrementAndGet()) {
                            producer.send(new ProducerRecord<>(input, Integer.toString(i), "k" + (i % KEYS))).get();
                        }
                    } catch (Exception e) {
                        failed.set(e);
                    }
                }, "more-input");
                more.start();
                try {
                    Groups.await(Duration.ofSeconds(60), "counts of the new input being written",
                            () -> outputEnd(bootstrap, output) > before);
                    Groups.await(Duration.ofSeconds(60), "a transaction open in " + output,
                            () -> transactionOpen(bootstrap, output));
                    brook.crash();
                    brook.start();
                } finally {
                    stop.set(true);
                }
                more.join(TimeUnit.SECONDS.toMillis(120));
                assertThat(more.isAlive()).isFalse();
                assertThat(failed.get()).as("the input producer's failure").isNull();
                int total = produced.get();
                assertThat(total).as("input acknowledged").isLessThan(MAX_INPUT);
                assertThat(awaitCounts(bootstrap, output, expected(total))).isEqualTo(expected(total));
            }
        }
    }

    /** The sum of the output's end offsets, read_uncommitted (what the application has written so far). */
    private static long outputEnd(String output) {
        return outputEnd(cluster.bootstrapServers(), output);
    }

    private static long outputEnd(String bootstrap, String output) {
        try (Admin admin = Groups.admin(bootstrap)) {
            Map<TopicPartition, OffsetSpec> latest = Map.of(new TopicPartition(output, 0), OffsetSpec.latest(),
                    new TopicPartition(output, 1), OffsetSpec.latest());
            return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values().stream()
                    .mapToLong(ListOffsetsResultInfo::offset).sum();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Whether a producer has a transaction open in either partition of the output. */
    private static boolean transactionOpen(String bootstrap, String output) {
        try (Admin admin = Groups.admin(bootstrap)) {
            return admin.describeProducers(List.of(new TopicPartition(output, 0), new TopicPartition(output, 1)))
                    .all().get(30, TimeUnit.SECONDS).values().stream()
                    .flatMap(p -> p.activeProducers().stream())
                    .anyMatch(p -> p.currentTransactionStartOffset().isPresent());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
