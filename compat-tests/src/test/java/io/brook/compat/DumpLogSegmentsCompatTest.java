package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.tools.DumpLogSegments;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's {@code kafka-dump-log.sh} ({@code DumpLogSegments}) on the segment files of a Brook
 * that was stopped: it reads every batch and record of the {@code .log} files, and its checks of
 * the {@code .index} and {@code .timeindex} files against the data find nothing, because Brook's
 * index entries are Kafka's (a batch's last offset; for the time index, the last offset of the
 * batch holding the largest timestamp so far); and its {@code --offsets-decoder} reads a group's
 * committed offset from {@code __consumer_offsets}. The test runs its own embedded Brook, also when
 * the suite runs against Kafka, since it reads the broker's files.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DumpLogSegmentsCompatTest {

    private static final int RECORDS = 40_000;
    private static final Pattern RECORD_LINE = Pattern.compile("^\\| offset: (\\d+)", Pattern.MULTILINE);

    private static final String GROUP = "dump-group";

    @TempDir
    Path dataDir;
    private int offsetsPartitions;

    @Test
    void kafkasDumpToolReadsBrooksSegmentsAndFindsItsIndexesSound() throws Exception {
        try (Brook brook = Brook.builder().port(0).dataDir(dataDir).start()) {
            Properties a = new Properties();
            a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
            try (Admin admin = Admin.create(a)) {
                admin.createTopics(List.of(new NewTopic("dump", 1, (short) 1).configs(Map.of(
                        "segment.bytes", "1048576", "index.interval.bytes", "8192")))).all().get(30, TimeUnit.SECONDS);
            }
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
            p.put(ProducerConfig.BATCH_SIZE_CONFIG, "2048");
            p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
                long t0 = System.currentTimeMillis();
                for (int i = 0; i < RECORDS; i++) {
                    // timestamps mostly growing, with every 97th record far ahead and every 89th behind,
                    // so the time index's largest timestamp is reached in some batches and not in others
                    long ts = t0 + i + (i % 97 == 0 ? 100_000 : 0) - (i % 89 == 0 ? 50_000 : 0);
                    producer.send(new ProducerRecord<>("dump", 0, ts, "k" + (i % 50), "value-" + i + "-".repeat(60)));
                }
                producer.flush();
            }
            try (Admin admin = Admin.create(a)) {
                admin.alterConsumerGroupOffsets(GROUP, Map.of(new TopicPartition("dump", 0), new OffsetAndMetadata(12_345)))
                        .all().get(30, TimeUnit.SECONDS);
                offsetsPartitions = admin.describeTopics(List.of("__consumer_offsets")).allTopicNames()
                        .get(30, TimeUnit.SECONDS).get("__consumer_offsets").partitions().size();
            }
        }
        Path partition = dataDir.resolve("dump-0");
        List<String> logs = files(partition, ".log");
        assertThat(logs).as("segments").hasSizeGreaterThan(3);

        Tools.Result data = Tools.kafkaTool(DumpLogSegments.class, "--deep-iteration", "--files", String.join(",", logs));
        assertThat(data.exit()).as(data.err()).isZero();
        Matcher m = RECORD_LINE.matcher(data.out());
        long next = 0;
        while (m.find()) {
            assertThat(Long.parseLong(m.group(1))).as("record offsets in order, none missing").isEqualTo(next);
            next++;
        }
        assertThat(next).as("records the tool read").isEqualTo(RECORDS);

        List<String> indexes = files(partition, ".index");
        indexes.addAll(files(partition, ".timeindex"));
        assertThat(indexes).hasSize(2 * logs.size());
        Tools.Result verify = Tools.kafkaTool(DumpLogSegments.class, "--verify-index-only", "--files",
                String.join(",", indexes));
        assertThat(verify.exit()).as(verify.err()).isZero();
        // the tool exits with 0 either way and reports what its checks found on standard error
        assertThat(verify.out() + verify.err()).as("the tool's checks of every index file")
                .contains("Dumping " + indexes.get(0), "Dumping " + indexes.get(indexes.size() - 1))
                .doesNotContain("Mismatches", "mismatch", "Indexed offset", "out of order", "Exception");
        Tools.Result entries = Tools.kafkaTool(DumpLogSegments.class, "--files", indexes.get(0));
        assertThat(entries.out()).as("the first segment's offset index has entries").contains("offset: ", "position: ");

        Path coordinator = dataDir.resolve("__consumer_offsets-" + Groups.coordinatorPartition(GROUP, offsetsPartitions));
        Tools.Result offsets = Tools.kafkaTool(DumpLogSegments.class, "--offsets-decoder", "--files",
                String.join(",", files(coordinator, ".log")));
        assertThat(offsets.exit()).as(offsets.err()).isZero();
        assertThat(offsets.out()).as("the group's commit, decoded by Kafka's tool")
                .contains("\"group\":\"" + GROUP + "\",\"topic\":\"dump\",\"partition\":0", "\"offset\":12345");
    }

    private static List<String> files(Path dir, String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return new java.util.ArrayList<>(s.map(Path::toString).filter(n -> n.endsWith(suffix)).sorted().toList());
        }
    }
}
