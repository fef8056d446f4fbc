package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code offsets.topic.compression.codec}: the group coordinator's batches in
 * {@code __consumer_offsets} are written with that codec (read here from the segment files), and
 * the committed offsets are loaded from them after a restart; a codec id Kafka does not know stops
 * the start.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OffsetsTopicCompressionTest {

    @TempDir
    Path dir;

    private static Admin admin(Brook brook) {
        return Admin.create(Map.<String, Object>of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers()));
    }

    /** The codec id (attribute bits 0-2) of the first batch of each non-empty {@code __consumer_offsets} segment. */
    private List<Integer> firstBatchCodecs() throws IOException {
        List<Integer> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path log : files.filter(f -> f.getParent().getFileName().toString().startsWith("__consumer_offsets-")
                    && f.getFileName().toString().endsWith(".log")).toList()) {
                ByteBuffer header = ByteBuffer.allocate(23);
                try (FileChannel ch = FileChannel.open(log)) {
                    ch.read(header, 0);
                }
                // base offset (8), length (4), leader epoch (4), magic (1), crc (4), attributes (2)
                if (header.getInt(8) > 0) {
                    out.add(header.getShort(21) & 0x7);
                }
            }
        }
        return out;
    }

    @Test
    void shouldWriteCommitsWithTheCodecAndLoadThemAfterARestart() throws Exception {
        TopicPartition tp = new TopicPartition("t", 0);
        try (Brook brook = Brook.builder().port(0).dataDir(dir).config("offsets.topic.compression.codec", "4").start();
                Admin admin = admin(brook)) {
            admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            admin.alterConsumerGroupOffsets("g", Map.of(tp, new OffsetAndMetadata(42, "m".repeat(200))))
                    .all().get(30, TimeUnit.SECONDS);
        }
        assertThat(firstBatchCodecs()).containsExactly(4);
        try (Brook brook = Brook.builder().port(0).dataDir(dir).start(); Admin admin = admin(brook)) {
            OffsetAndMetadata committed = admin.listConsumerGroupOffsets("g").partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS).get(tp);
            assertThat(committed.offset()).isEqualTo(42);
            assertThat(committed.metadata()).isEqualTo("m".repeat(200));
        }
    }

    @Test
    void shouldWriteUncompressedByDefault() throws Exception {
        try (Brook brook = Brook.builder().port(0).dataDir(dir).start(); Admin admin = admin(brook)) {
            admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            admin.alterConsumerGroupOffsets("g", Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(1)))
                    .all().get(30, TimeUnit.SECONDS);
        }
        assertThat(firstBatchCodecs()).containsExactly(0);
    }

    @Test
    void shouldRefuseACodecKafkaDoesNotKnow() {
        assertThatThrownBy(() -> Brook.builder().port(0).dataDir(dir).config("offsets.topic.compression.codec", "5").start())
                .hasMessageContaining("offsets.topic.compression.codec").hasMessageContaining("5");
    }
}
