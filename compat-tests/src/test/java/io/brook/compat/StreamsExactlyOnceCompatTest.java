package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka Streams application with {@code processing.guarantee=exactly_once_v2}: a count per key
 * through a repartition topic and a changelogged store, run in two instances one after the other
 * (the second restores the store from its changelog and continues from the committed offsets).
 * The counts read with read_committed must be exact: every input counted once. Runs against
 * Apache Kafka too.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class StreamsExactlyOnceCompatTest {

    private static final int KEYS = 5;

    private static BrookCluster cluster;

    @TempDir
    Path stateDir;

    @BeforeAll
    static void start() {
        cluster = new BrookCluster(Groups.BROKER_CONFIGS);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private KafkaStreams streams(String appId, String input, String output) throws Exception {
        StreamsBuilder b = new StreamsBuilder();
        b.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
                .groupBy((k, v) -> v, Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.<String, Long>as(Stores.inMemoryKeyValueStore("counts"))
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream()
                .to(output, Produced.with(Serdes.String(), Serdes.Long()));
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100");
        p.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory(stateDir, "state").toString());
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), "10000");
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), "500");
        return new KafkaStreams(b.build(), p);
    }

    private static void produceValues(String topic, int from, int count) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Groups.pipelinedIdempotentProducerProps(cluster.bootstrapServers()))) {
            for (int i = from; i < from + count; i++) {
                producer.send(new ProducerRecord<>(topic, Integer.toString(i), "k" + (i % KEYS))).get();
            }
        }
    }

    /** The latest count of each key in the output, read with read_committed until {@code done}. */
    private static Map<String, Long> awaitCounts(String output, Map<String, Long> expected) {
        Properties p = Groups.consumerProps(cluster.bootstrapServers(), Groups.unique("verify"));
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
}
