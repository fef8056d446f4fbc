package io.brook.compat;

import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

/**
 * The Kafka Streams application of the exactly-once tests: it counts the input's values (the
 * words) per word through a repartition topic into a changelogged in-memory store and writes
 * every new count to the output, with {@code processing.guarantee=exactly_once_v2} and a 100 ms
 * commit interval. Built in the test's JVM, or run as a JVM of its own ({@link #main}) so that a
 * test can kill it with SIGKILL.
 */
final class StreamsCountApp {
    private StreamsCountApp() {
    }

    static KafkaStreams create(String bootstrap, String appId, String input, String output, Path stateDir) {
        return create(bootstrap, appId, input, output, stateDir, new Properties());
    }

    /** As {@link #create(String, String, String, String, Path)}, with {@code client} (e.g. security) added to every client's settings. */
    static KafkaStreams create(String bootstrap, String appId, String input, String output, Path stateDir,
            Properties client) {
        StreamsBuilder b = new StreamsBuilder();
        b.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
                .groupBy((k, v) -> v, Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.<String, Long>as(Stores.inMemoryKeyValueStore("counts"))
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream()
                .to(output, Produced.with(Serdes.String(), Serdes.Long()));
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100");
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), "10000");
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), "500");
        p.putAll(client);
        return new KafkaStreams(b.build(), p);
    }

    /** {@code bootstrap appId input output stateDir}: runs until the process is killed; prints "running" once it is. */
    public static void main(String[] args) throws InterruptedException {
        KafkaStreams streams = create(args[0], args[1], args[2], args[3], Path.of(args[4]));
        CountDownLatch running = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                running.countDown();
            }
        });
        streams.start();
        running.await();
        System.out.println("running");
        System.out.flush();
        new CountDownLatch(1).await(); // until killed
    }
}
