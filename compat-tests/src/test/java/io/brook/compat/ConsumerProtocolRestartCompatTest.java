package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.brook.server.Brook;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consumer of the KIP-848 protocol that keeps running while Brook restarts on the same port and
 * data directory (embedded only). The group's membership is durable in {@code __consumer_offsets},
 * as in Kafka: after the restart the member carries on as the same member, without losing its
 * partitions and with its commits accepted, and reads every record once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsumerProtocolRestartCompatTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dataDir;

    @Test
    void aLiveMemberRejoinsAfterARestartAndContinuesFromItsCommittedOffsets() throws Exception {
        assumeTrue(System.getProperty("bootstrap.servers", "").isBlank(), "restarts need the embedded Brook");
        String topic = Groups.unique("kip848-restart");
        String group = Groups.unique("kip848-restart-group");
        Brook first = Brook.builder().port(0).dataDir(dataDir).config(ConsumerProtocolCompatTest.BROKER_CONFIGS).start();
        int port = first.port();
        String bootstrap = first.bootstrapServers();
        Brook second = null;
        List<String> read = new ArrayList<>();
        List<Set<TopicPartition>> lost = new CopyOnWriteArrayList<>();
        try (KafkaConsumer<String, String> consumer = Groups.consumer(ConsumerProtocolCompatTest.props(bootstrap, group))) {
            Groups.createTopic(bootstrap, topic, 2);
            List<String> before = Groups.produce(bootstrap, topic, 2, 10);
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    lost.add(Set.copyOf(partitions));
                }
            });
            Groups.pollUntil(WAIT, () -> "the records before the restart, have " + read.size(), () -> poll(consumer, read),
                    () -> read.size() >= before.size());

            first.close();
            first = null;
            second = Brook.builder().port(port).dataDir(dataDir).config(ConsumerProtocolCompatTest.BROKER_CONFIGS).start();
            List<String> after = Groups.produce(second.bootstrapServers(), topic, 2, 10, 10);
            Groups.pollUntil(WAIT, () -> "the records after the restart, have " + read.size(), () -> poll(consumer, read),
                    () -> read.size() >= before.size() + after.size());
            List<String> expected = new ArrayList<>(before);
            expected.addAll(after);
            assertThat(read).as("every record once").containsExactlyInAnyOrderElementsOf(expected);
            assertThat(lost).as("the member kept its partitions across the restart").isEmpty();
            assertThat(consumer.assignment()).hasSize(2);
        } finally {
            if (first != null) {
                first.close();
            }
            if (second != null) {
                second.close();
            }
        }
    }

    private static void poll(KafkaConsumer<String, String> consumer, List<String> read) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(50))) {
            read.add(r.value());
        }
        if (!consumer.assignment().isEmpty()) {
            consumer.commitSync();
        }
    }
}
