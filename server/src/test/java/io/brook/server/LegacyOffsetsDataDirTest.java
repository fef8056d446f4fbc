package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data directory written by the release before {@code __consumer_offsets} took Kafka's record
 * layout (commit 92adaed; test resource {@code legacy-offsets-92adaed}, made as its README says):
 * topic {@code orders} with two partitions of five records each, group {@code billing} that
 * committed orders-0 at 2 ("first"), orders-1 at 1, then orders-0 at 4 ("second"), and group
 * {@code audit} that committed orders-1 at 5; {@code offsets.topic.num.partitions=1}. The current
 * broker starts on it, serves those commits, and has written them again in Kafka's layout, which
 * a reader of {@code __consumer_offsets} decodes as Kafka's OffsetCommitKey v1 / OffsetCommitValue
 * v3; a second start serves the same.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LegacyOffsetsDataDirTest {

    private static final String FIXTURE = "legacy-offsets-92adaed";
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dataDir;

    private record KafkaOffset(String group, String topic, int partition, long offset, String metadata) { }

    private void copyFixture() throws IOException, URISyntaxException {
        Path from = Path.of(Objects.requireNonNull(getClass().getResource("/" + FIXTURE + "/meta/meta.properties"))
                .toURI()).getParent().getParent();
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path to = dataDir.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to);
                }
            }
        }
    }

    private static Brook start(Path dir) {
        return Brook.builder().port(0).dataDir(dir).config("offsets.topic.num.partitions", "1").start();
    }

    private static Map<TopicPartition, OffsetAndMetadata> committed(Admin admin, String group) {
        try {
            return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            return null; // (COORDINATOR_LOAD_IN_PROGRESS is retried by the client; anything else: again)
        }
    }

    private static void assertServesTheCommits(Brook brook) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        try (Admin admin = Admin.create(p)) {
            TopicPartition o0 = new TopicPartition("orders", 0);
            TopicPartition o1 = new TopicPartition("orders", 1);
            Await.until("billing's commits", WAIT, () -> committed(admin, "billing") != null);
            assertThat(committed(admin, "billing")).isEqualTo(Map.of(
                    o0, new OffsetAndMetadata(4, java.util.Optional.empty(), "second"),
                    o1, new OffsetAndMetadata(1, java.util.Optional.empty(), "")));
            assertThat(committed(admin, "audit")).isEqualTo(Map.of(
                    o1, new OffsetAndMetadata(5, java.util.Optional.empty(), "")));
        }
    }

    /** The records of {@code __consumer_offsets} that parse as Kafka's offset commits, exactly. */
    private static List<KafkaOffset> kafkaLayoutOffsets(Brook brook) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        TopicPartition tp = new TopicPartition("__consumer_offsets", 0);
        List<KafkaOffset> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            Await.until("__consumer_offsets read to its end", WAIT, () -> {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) {
                    KafkaOffset o = kafkaOffset(r.key(), r.value());
                    if (o != null) {
                        out.add(o);
                    }
                }
                return c.position(tp) >= end;
            });
        }
        return out;
    }

    private static KafkaOffset kafkaOffset(byte[] key, byte[] value) {
        if (key == null || value == null) return null;
        try {
            ByteBuffer k = ByteBuffer.wrap(key);
            if (k.getShort() != 1) return null;
            String group = string(k);
            String topic = string(k);
            int partition = k.getInt();
            if (k.hasRemaining()) return null;
            ByteBuffer v = ByteBuffer.wrap(value);
            if (v.getShort() != 3) return null;
            long offset = v.getLong();
            v.getInt(); // leader epoch
            String metadata = string(v);
            v.getLong(); // commit timestamp
            return v.hasRemaining() ? null : new KafkaOffset(group, topic, partition, offset, metadata);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String string(ByteBuffer b) {
        byte[] s = new byte[b.getShort()];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    @Test
    void startsOnTheEarlierReleasesDataAndServesItsCommitsInKafkasLayout() throws Exception {
        copyFixture();
        try (Brook brook = start(dataDir)) {
            assertServesTheCommits(brook);
            Await.until("the commits written again in Kafka's layout", WAIT,
                    () -> kafkaLayoutOffsets(brook).size() >= 3);
            assertThat(kafkaLayoutOffsets(brook)).containsExactlyInAnyOrder(
                    new KafkaOffset("billing", "orders", 0, 4, "second"),
                    new KafkaOffset("billing", "orders", 1, 1, ""),
                    new KafkaOffset("audit", "orders", 1, 5, ""));
        }
        try (Brook again = start(dataDir)) {
            assertServesTheCommits(again);
            // nothing left to move: no second copy
            assertThat(kafkaLayoutOffsets(again)).hasSize(3);
        }
    }
}
