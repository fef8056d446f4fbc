package io.brook.examples.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.brook.junit.BrookTest;
import io.brook.server.Brook;
import io.brook.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An Apache Flink job reading one topic and writing another through Flink's Kafka connector with
 * {@code DeliveryGuarantee.EXACTLY_ONCE}: the sink writes each checkpoint's records in a Kafka
 * transaction and commits it when the checkpoint completes; after a failure it aborts what it
 * left open (found by fencing its transactional ids, or, with {@code POOLING}, by listing the
 * broker's open transactions) and commits what a completed checkpoint had only prepared, with a
 * producer it points at the old producer id and epoch. A {@code read_committed} consumer must see
 * every input record exactly once:
 *
 * <ul>
 *   <li>after a task fails in the middle of a checkpoint, with each of the connector's two ways
 *       of naming its transactions;</li>
 *   <li>after the broker crashes (Brook's simulated power cut: everything not fsynced is lost)
 *       while a task holds records in an open transaction, and starts again.</li>
 * </ul>
 *
 * The job runs in Flink's mini cluster inside the test's JVM, so its functions share this class's
 * static fields with the test (that is how the test makes a task fail or hold still). With
 * {@code -Dbootstrap.servers=host:port} the job runs against that cluster instead (an Apache
 * Kafka, to compare); the crash test then does not run.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@BrookTest(perMethod = true)
class ExactlyOnceJobTest {

    private static final int PER_PHASE = 5_000;
    private static final Duration DEADLINE = Duration.ofSeconds(120);

    /** Records left before a task fails (once); negative: none will. */
    static final AtomicInteger FAIL_AFTER = new AtomicInteger(-1);
    /** How many times a task failed on purpose. */
    static final AtomicInteger FAILURES = new AtomicInteger();
    /** Records left before a task holds still until {@link #release}; negative: none will. */
    static final AtomicInteger HOLD_AFTER = new AtomicInteger(-1);
    static volatile CountDownLatch held = new CountDownLatch(1);
    static volatile CountDownLatch release = new CountDownLatch(1);

    @TempDir
    Path flinkFiles;

    private final String suffix = Long.toString(System.nanoTime());
    private final String input = "flink-in-" + suffix;
    private final String output = "flink-out-" + suffix;
    private String bootstrap;
    private JobClient job;

    @BeforeEach
    void topics(Brook brook) throws Exception {
        String external = System.getProperty("bootstrap.servers");
        bootstrap = external == null || external.isBlank() ? brook.bootstrapServers() : external;
        FAIL_AFTER.set(-1);
        FAILURES.set(0);
        HOLD_AFTER.set(-1);
        held = new CountDownLatch(1);
        release = new CountDownLatch(1);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(input, 3, (short) 1), new NewTopic(output, 3, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterEach
    void cancel() throws Exception {
        release.countDown();
        if (job != null) {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @EnumSource(TransactionNamingStrategy.class)
    void aTaskFailureNeitherLosesNorRepeatsRecords(TransactionNamingStrategy naming) throws Exception {
        job = startJob(naming);
        try (CommittedRecords committed = new CommittedRecords(bootstrap, output)) {
            produce(0, PER_PHASE);
            committed.awaitDistinct(PER_PHASE, DEADLINE);

            FAIL_AFTER.set(PER_PHASE / 5); // in the middle of the second phase's records
            produce(PER_PHASE, 2 * PER_PHASE);
            committed.awaitDistinct(2 * PER_PHASE, DEADLINE);

            assertThat(FAILURES.get()).isEqualTo(1);
            committed.readToStableEnd(DEADLINE);
            assertThat(committed.repeated()).isEmpty();
            assertThat(committed.distinct()).isEqualTo(2 * PER_PHASE);
        }
    }

    @Test
    void aBrokerCrashWhileATransactionIsOpenNeitherLosesNorRepeatsRecords(Brook brook) throws Exception {
        assumeTrue(System.getProperty("bootstrap.servers") == null, "the crash needs the embedded Brook");
        job = startJob(TransactionNamingStrategy.DEFAULT);
        try (CommittedRecords committed = new CommittedRecords(bootstrap, output)) {
            produce(0, PER_PHASE);
            committed.awaitDistinct(PER_PHASE, DEADLINE);

            // One task holds still in the middle of the second phase, so no checkpoint completes
            // and what the job wrote since the last one stays in open transactions.
            HOLD_AFTER.set(PER_PHASE / 5);
            produce(PER_PHASE, 2 * PER_PHASE);
            assertThat(held.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).as("a task holds").isTrue();
            awaitOpenTransactionWithRecords();

            brook.crash();
            brook.start();
            release.countDown();

            committed.awaitDistinct(2 * PER_PHASE, DEADLINE);
            committed.readToStableEnd(DEADLINE);
            assertThat(committed.repeated()).isEmpty();
            assertThat(committed.distinct()).isEqualTo(2 * PER_PHASE);
        }
    }

    /** Until the output holds records of a transaction that is still open. */
    private void awaitOpenTransactionWithRecords() {
        List<TopicPartition> partitions = List.of(
                new TopicPartition(output, 0), new TopicPartition(output, 1), new TopicPartition(output, 2));
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            Await.until("records of an open transaction in " + output, DEADLINE, () -> {
                try {
                    return admin.describeProducers(partitions).all().get(30, TimeUnit.SECONDS).values().stream()
                            .flatMap(p -> p.activeProducers().stream())
                            .anyMatch(p -> p.currentTransactionStartOffset().isPresent());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
    }

    /** input → upper case → output, exactly once, checkpointing every 200 ms. */
    private JobClient startJob(TransactionNamingStrategy naming) throws Exception {
        Configuration conf = new Configuration();
        // Flink's files (its RPC system's jar, unpacked on start, and the web front end's) go
        // under the test's temporary directory, not the machine's /tmp
        conf.set(CoreOptions.TMP_DIRS, flinkFiles.toString());
        conf.set(WebOptions.TMP_DIR, flinkFiles.toString());
        conf.set(WebOptions.UPLOAD_DIR, flinkFiles.resolve("uploads").toString());
        conf.set(RestOptions.BIND_PORT, "0");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 100);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(200);
        KafkaSource<String> source = KafkaSource.<String>builder()
                .setBootstrapServers(bootstrap)
                .setTopics(input)
                .setGroupId("flink-" + suffix)
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setValueOnlyDeserializer(new SimpleStringSchema())
                .build();
        KafkaSink<String> sink = KafkaSink.<String>builder()
                .setBootstrapServers(bootstrap)
                .setRecordSerializer(KafkaRecordSerializationSchema.builder()
                        .setTopic(output)
                        .setValueSerializationSchema(new SimpleStringSchema())
                        .build())
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix("flink-" + suffix)
                .setTransactionNamingStrategy(naming)
                // below the broker's transaction.max.timeout.ms (15 minutes), as Flink asks
                .setProperty("transaction.timeout.ms", "120000")
                .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "input")
                .map(new Upper())
                .sinkTo(sink);
        return env.executeAsync("exactly-once " + naming);
    }

    /** The job's step: upper case, failing or holding still once when the test asks. */
    static final class Upper implements MapFunction<String, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String map(String value) throws Exception {
            if (FAIL_AFTER.get() >= 0 && FAIL_AFTER.getAndDecrement() == 0) {
                FAILURES.incrementAndGet();
                throw new IllegalStateException("a task failure the test asked for");
            }
            if (HOLD_AFTER.get() >= 0 && HOLD_AFTER.getAndDecrement() == 0) {
                held.countDown();
                if (!release.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never released");
                }
            }
            return value.toUpperCase(Locale.ROOT);
        }
    }

    /** Records "v&lt;from&gt;" .. "v&lt;to - 1&gt;" into the input, acknowledged (acks=all). */
    private void produce(int from, int to) throws Exception {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            for (int i = from; i < to; i++) {
                producer.send(new ProducerRecord<>(input, Integer.toString(i), "v" + i));
            }
            producer.flush();
        }
    }
}
