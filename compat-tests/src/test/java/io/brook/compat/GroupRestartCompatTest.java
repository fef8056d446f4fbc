package io.brook.compat;

import static io.brook.compat.Groups.consumerProps;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.brook.server.Brook;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Committed offsets survive a restart of Brook on the same data directory (embedded only). */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GroupRestartCompatTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dataDir;

    @Test
    void shouldResumeFromCommittedOffsetsAfterARestart() throws Exception {
        assumeTrue(System.getProperty("bootstrap.servers", "").isBlank(), "restarts need the embedded Brook");
        String topic = Groups.unique("restart");
        String group = Groups.unique("restart-group");
        List<String> expected;
        Map<TopicPartition, Long> stoppedAt = new HashMap<>();
        List<String> before = new ArrayList<>();
        try (Brook brook = Brook.builder().port(0).dataDir(dataDir).config(Groups.BROKER_CONFIGS).start()) {
            String bootstrap = brook.bootstrapServers();
            Groups.createTopic(bootstrap, topic, 2);
            expected = Groups.produce(bootstrap, topic, 2, 30);
            Properties props = consumerProps(bootstrap, group);
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "7");
            try (KafkaConsumer<String, String> consumer = Groups.consumer(props)) {
                consumer.subscribe(List.of(topic));
                // read about half, committing after each poll
                Groups.pollUntil(WAIT, () -> "half of the records", () -> {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(50))) {
                        before.add(r.value());
                        stoppedAt.put(new TopicPartition(r.topic(), r.partition()), r.offset() + 1);
                    }
                    consumer.commitSync();
                }, () -> before.size() >= expected.size() / 2);
            }
        }

        try (Brook brook = Brook.builder().port(0).dataDir(dataDir).config(Groups.BROKER_CONFIGS).start();
                Admin admin = Groups.admin(brook.bootstrapServers())) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, Long> offsets = new HashMap<>();
            committed.forEach((tp, om) -> offsets.put(tp, om.offset()));
            assertThat(offsets).isEqualTo(stoppedAt);

            List<String> after = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer = Groups.consumer(consumerProps(brook.bootstrapServers(), group))) {
                consumer.subscribe(List.of(topic));
                Groups.pollUntil(WAIT, () -> "the rest of the records",
                        () -> consumer.poll(Duration.ofMillis(50)).forEach(r -> after.add(r.value())),
                        () -> before.size() + after.size() >= expected.size());
                // read to the end of every partition: a record delivered twice would have taken the
                // place of one still unread
                Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment());
                assertThat(consumer.assignment()).hasSize(2);
                for (TopicPartition tp : consumer.assignment()) {
                    assertThat(consumer.position(tp)).as("position on %s", tp).isEqualTo(ends.get(tp));
                }
            }
            List<String> all = new ArrayList<>(before);
            all.addAll(after);
            assertThat(all).as("resumed where it stopped: nothing lost, nothing twice")
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }
}
