package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import io.brook.wire.message.FindCoordinatorRequest;
import io.brook.wire.message.FindCoordinatorResponse;
import io.brook.wire.message.JoinGroupRequest;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.protocol.Errors;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * After a restart the broker serves before the group coordinator has loaded
 * {@code __consumer_offsets}: with the load held, Produce and Fetch are answered, FindCoordinator
 * too, and group requests get COORDINATOR_LOAD_IN_PROGRESS; a stock consumer of the group waits
 * meanwhile and, once the load is let go, resumes from its committed offset.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OffsetsLoadingTest {

    private static final String TOPIC = "orders";
    private static final String GROUP = "billing";
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dataDir;

    private Brook start(Executor loadExecutor) {
        Brook.Builder b = Brook.builder().port(0).dataDir(dataDir).config("group.initial.rebalance.delay.ms", "0")
                .config("offsets.topic.num.partitions", "3");
        if (loadExecutor != null) {
            b.groupLoadExecutor(loadExecutor);
        }
        return b.start();
    }

    private static KafkaProducer<String, String> producer(Brook brook) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private static KafkaConsumer<String, String> consumer(Brook brook, String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        if (group != null) {
            p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // a consumer that lost its committed offset would start over from 0: the test would see it
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    private static List<RecordMetadata> produce(Brook brook, int from, int count) throws Exception {
        List<RecordMetadata> acked = new ArrayList<>();
        try (KafkaProducer<String, String> producer = producer(brook)) {
            for (int i = from; i < from + count; i++) {
                acked.add(producer.send(new ProducerRecord<>(TOPIC, 0, "k" + i, "v" + i)).get(60, TimeUnit.SECONDS));
            }
        }
        return acked;
    }

    @Test
    void shouldServeProduceAndFetchWhileOffsetsLoadAndResumeTheConsumerFromItsCommit() throws Exception {
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (Brook brook = start(null)) {
            produce(brook, 0, 20);
            try (KafkaConsumer<String, String> consumer = consumer(brook, GROUP)) {
                consumer.assign(List.of(tp));
                consumer.commitSync(Map.of(tp, new OffsetAndMetadata(7)));
                // superseded commits, so that the load has more than the last one to replay
                consumer.commitSync(Map.of(tp, new OffsetAndMetadata(12)));
            }
        }

        CompletableFuture<Void> gate = new CompletableFuture<>();
        ExecutorService loader = Executors.newSingleThreadExecutor();
        Executor held = task -> gate.thenRunAsync(task, loader);
        try (Brook brook = start(held)) {
            // Produce and Fetch are served while __consumer_offsets is not loaded.
            List<RecordMetadata> acked = produce(brook, 20, 5);
            assertThat(acked).extracting(RecordMetadata::offset).containsExactly(20L, 21L, 22L, 23L, 24L);
            try (KafkaConsumer<String, String> reader = consumer(brook, null)) {
                reader.assign(List.of(tp));
                reader.seek(tp, 18);
                List<Long> read = new ArrayList<>();
                Await.until("records read while the offsets load", WAIT, () -> {
                    reader.poll(Duration.ofMillis(100)).forEach(r -> read.add(r.offset()));
                    return read.size() >= 7;
                });
                assertThat(read).containsExactly(18L, 19L, 20L, 21L, 22L, 23L, 24L);
            }
            try (ProtocolClient client = new ProtocolClient(brook.bootstrapServers())) {
                FindCoordinatorResponse found = client.call(new FindCoordinatorRequest()
                        .coordinatorKeys(new ArrayList<>(List.of(GROUP))), (short) 4);
                assertThat(found.coordinators().get(0).errorCode()).isEqualTo(Errors.NONE.code());
                OffsetFetchResponse fetched = client.call(new OffsetFetchRequest().groupId(GROUP).topics(null), (short) 7);
                assertThat(Errors.forCode(fetched.errorCode())).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);
                JoinGroupResponse joined = client.call(new JoinGroupRequest().groupId(GROUP).memberId("")
                        .sessionTimeoutMs(10_000).rebalanceTimeoutMs(10_000).protocolType("consumer"), (short) 9);
                assertThat(Errors.forCode(joined.errorCode())).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);
            }

            try (KafkaConsumer<String, String> consumer = consumer(brook, GROUP)) {
                consumer.subscribe(List.of(TOPIC));
                // while the load is held the member cannot join nor learn its offset: it gets nothing
                for (int i = 0; i < 3; i++) {
                    assertThat(consumer.poll(Duration.ofMillis(100))).isEmpty();
                }
                gate.complete(null);
                List<ConsumerRecord<String, String>> resumed = new ArrayList<>();
                Await.until("the consumer resumed after the load", WAIT, () -> {
                    consumer.poll(Duration.ofMillis(100)).forEach(resumed::add);
                    return resumed.size() >= 13;
                });
                assertThat(resumed).extracting(ConsumerRecord::offset)
                        .as("from the committed offset 12, not from 0").startsWith(12L, 13L).endsWith(24L).hasSize(13);
            }
        } finally {
            gate.complete(null);
            loader.shutdownNow();
        }
    }
}
