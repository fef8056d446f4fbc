package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code __consumer_offsets} is created compacted with segments of {@code offsets.topic.segment.bytes},
 * Kafka's 100 MiB unless set; a value below a topic's smallest segment size stops the start.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OffsetsTopicSegmentBytesTest {

    private static Config offsetsTopicAfterACommit(Brook brook) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            admin.alterConsumerGroupOffsets("g", Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(0)))
                    .all().get(30, TimeUnit.SECONDS);
            ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, "__consumer_offsets");
            return admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r);
        }
    }

    @Test
    void shouldCreateTheTopicWithKafkasSegmentSizeByDefault() throws Exception {
        try (Brook brook = Brook.builder().port(0).start()) {
            Config c = offsetsTopicAfterACommit(brook);
            assertThat(c.get("segment.bytes").value()).isEqualTo("104857600");
            assertThat(c.get("cleanup.policy").value()).isEqualTo("compact");
        }
    }

    @Test
    void shouldCreateTheTopicWithTheConfiguredSegmentSize() throws Exception {
        try (Brook brook = Brook.builder().port(0).config("offsets.topic.segment.bytes", "2097152").start()) {
            Config c = offsetsTopicAfterACommit(brook);
            assertThat(c.get("segment.bytes").value()).isEqualTo("2097152");
            assertThat(c.get("cleanup.policy").value()).isEqualTo("compact");
        }
    }

    @Test
    void shouldRefuseASegmentSizeNoTopicMayHave() {
        assertThatThrownBy(() -> Brook.builder().port(0).config("offsets.topic.segment.bytes", "1000").start())
                .hasMessageContaining("offsets.topic.segment.bytes").hasMessageContaining("1000");
    }
}
