package io.brook.examples.flink;

import io.brook.testkit.Await;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What a {@code read_committed} consumer sees of a topic from its beginning: each value and how
 * many times it came. The consumer is assigned every partition (no group), so it reads the whole
 * topic however the job's transactions spread over it.
 */
final class CommittedRecords implements AutoCloseable {

    private final KafkaConsumer<String, String> consumer;
    private final List<TopicPartition> partitions;
    private final Map<String, Integer> seen = new HashMap<>();

    CommittedRecords(String bootstrap, String topic) {
        consumer = new KafkaConsumer<>(Map.of(
                "bootstrap.servers", bootstrap,
                "isolation.level", "read_committed"), new StringDeserializer(), new StringDeserializer());
        partitions = consumer.partitionsFor(topic).stream()
                .map(p -> new TopicPartition(topic, p.partition()))
                .collect(Collectors.toList());
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** Reads until {@code count} different values came. */
    void awaitDistinct(int count, Duration timeout) {
        Await.until(count + " committed records", timeout, () -> {
            poll();
            return seen.size() >= count;
        });
    }

    /** Reads up to the last stable offset of every partition as it is now. */
    void readToStableEnd(Duration timeout) {
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
        Await.until("the last stable offsets " + ends, timeout, () -> {
            poll();
            return ends.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
        });
    }

    /** How many different values came. */
    int distinct() {
        return seen.size();
    }

    /** The values that came more than once. */
    Set<String> repeated() {
        return seen.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey)
                .collect(Collectors.toSet());
    }

    private void poll() {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
            seen.merge(r.value(), 1, Integer::sum);
        }
    }

    @Override
    public void close() {
        consumer.close();
    }
}
