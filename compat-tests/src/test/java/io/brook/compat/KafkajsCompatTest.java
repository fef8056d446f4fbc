package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kafkajs 2.2.4 against the broker, each script's result checked with the stock Java clients.
 *
 * <p>A kafkajs 2.2.4 consumer group (two members, JoinGroup v5 with MEMBER_ID_REQUIRED, Fetch v11
 * with READ_COMMITTED, OffsetCommit v5) reads a multi-partition topic completely and commits;
 * kafkajs' admin client then reads the group back (OffsetFetch v4, DescribeGroups v2, ListGroups v2).
 * The kafkajs producer (Produce v7, plain and idempotent with InitProducerId v1) writes keys, null
 * keys and headers to several partitions with every codec kafkajs can use here — none, GZIP (built
 * in), Snappy (kafkajs-snappy) and LZ4 (kafkajs-lz4); there is no ZSTD codec that installs on
 * current node — and the Java consumer reads it back; kafkajs reads what the Java producer wrote
 * with the same codecs; kafkajs' admin client creates, describes and grows a topic.
 *
 * <p>The node scripts live in {@code src/test/node} and print JSON; {@code npm ci} there installs
 * kafkajs and the codecs. Skipped locally when node or kafkajs is missing, failed in CI.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KafkajsCompatTest {

    static final Path NODE_DIR = Path.of("src", "test", "node");

    /** The codecs both kafkajs (with the codec packages) and the Java client speak, in send order. */
    static final List<String> CODECS = List.of("none", "gzip", "snappy", "lz4");

    private static BrookCluster cluster;

    @BeforeAll
    static void start() {
        Tools.require(Tools.onPath("node") != null, "node");
        Tools.require(Tools.exists(NODE_DIR.resolve("node_modules").resolve("kafkajs")),
                "kafkajs (run npm ci in compat-tests/src/test/node)");
        cluster = new BrookCluster(Groups.BROKER_CONFIGS);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void shouldReadEveryPartitionInAConsumerGroupAndCommit() throws Exception {
        String bootstrap = cluster.bootstrapServers();
        String topic = Groups.unique("kafkajs");
        String group = Groups.unique("kafkajs-group");
        int partitions = 4;
        Groups.createTopic(bootstrap, topic, partitions);
        List<String> expected = Groups.produce(bootstrap, topic, partitions, 25);

        Tools.Result r = Tools.run(List.of(Tools.onPath("node").toString(), "group-consumer.js", bootstrap, topic, group,
                Integer.toString(expected.size()), "2"), NODE_DIR, 90);
        assertThat(r.exit()).as("node exit; stderr: %s", r.err()).isZero();
        for (String v : expected) {
            assertThat(r.out()).contains("\"" + v + "\"");
        }
        // kafkajs' own admin view after both members left: offsets at the end, group Empty and listed
        for (int p = 0; p < partitions; p++) {
            assertThat(r.out()).contains("{\"partition\":" + p + ",\"offset\":25}");
        }
        assertThat(r.out()).contains("\"state\":\"Empty\"").contains("\"listed\":true");

        Groups.awaitCommittedAtEnd(bootstrap, group, topic, partitions, "kafkajs");
    }

    @ParameterizedTest(name = "{0} producer")
    @ValueSource(strings = {"plain", "idempotent"})
    void shouldReadBackWithTheJavaConsumerWhatKafkajsProducedWithEveryCodec(String mode) throws Exception {
        requireCodecs();
        String bootstrap = cluster.bootstrapServers();
        String topic = Groups.unique("kafkajs-produce");
        int partitions = 3;
        int perCodec = 10;
        Groups.createTopic(bootstrap, topic, partitions);

        Tools.Result r = node("produce.js", bootstrap, topic, Integer.toString(partitions), Integer.toString(perCodec),
                String.join(",", CODECS), mode);
        assertThat(r.exit()).as("node exit; stderr: %s", r.err()).isZero();
        // every codec's request was acknowledged at the offsets that follow the previous codec's records
        Map<Integer, Integer> perPartition = recordsPerPartitionPerCodec(partitions, perCodec);
        StringBuilder acks = new StringBuilder("{\"acks\":[");
        for (int c = 0; c < CODECS.size(); c++) {
            acks.append(c == 0 ? "" : ",").append("{\"codec\":\"").append(CODECS.get(c)).append("\",\"partitions\":[");
            for (int p = 0; p < partitions; p++) {
                acks.append(p == 0 ? "" : ",").append("{\"partition\":").append(p).append(",\"errorCode\":0,\"baseOffset\":")
                        .append(c * perPartition.get(p)).append('}');
            }
            acks.append("]}");
        }
        assertThat(r.out()).startsWith(acks.append("],").toString());
        // kafkajs really compressed: one batch per partition for each codec
        for (String codec : CODECS.subList(1, CODECS.size())) {
            assertThat(codecCalls(r.out(), codec, "compress")).as("%s batches kafkajs compressed", codec)
                    .isGreaterThanOrEqualTo(partitions);
        }

        List<String> read = new ArrayList<>();
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                tps.add(new TopicPartition(topic, i));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            int expected = CODECS.size() * perCodec;
            Groups.pollUntil(Duration.ofSeconds(30), () -> "the Java consumer to read " + expected + " records, got "
                    + read.size(), () -> {
                        for (ConsumerRecord<String, String> rec : consumer.poll(Duration.ofMillis(200))) {
                            read.add(line(rec.partition(), rec.offset(), rec.key(), rec.value(), rec.headers()));
                        }
                    }, () -> read.size() >= expected);
        }
        assertThat(sorted(read)).containsExactlyElementsOf(expectedLines("", partitions, perCodec));
    }

    @Test
    void shouldConsumeWithKafkajsWhatTheJavaProducerWroteWithEveryCodec() throws Exception {
        requireCodecs();
        String bootstrap = cluster.bootstrapServers();
        String topic = Groups.unique("kafkajs-consume");
        String group = Groups.unique("kafkajs-simple");
        int partitions = 3;
        int perCodec = 10;
        Groups.createTopic(bootstrap, topic, partitions);
        for (String codec : CODECS) {
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
            p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
                List<Future<?>> sent = new ArrayList<>();
                for (int i = 0; i < perCodec; i++) {
                    RecordHeaders headers = new RecordHeaders();
                    headers.add("codec", codec.getBytes(StandardCharsets.UTF_8));
                    headers.add("idx", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                    sent.add(producer.send(new ProducerRecord<>(topic, i % partitions, null, key("j", codec, i),
                            value(codec, i), headers)));
                }
                for (Future<?> f : sent) {
                    f.get(30, TimeUnit.SECONDS);
                }
            }
        }

        Tools.Result r = node("consume.js", bootstrap, topic, group);
        assertThat(r.exit()).as("node exit; stderr: %s", r.err()).isZero();
        List<String> lines = new ArrayList<>(Arrays.asList(r.out().split("\n")));
        String summary = lines.remove(lines.size() - 1);
        assertThat(sorted(lines)).containsExactlyElementsOf(expectedLines("j", partitions, perCodec));
        Map<Integer, Integer> perPartition = recordsPerPartitionPerCodec(partitions, perCodec);
        assertThat(summary).startsWith("{\"ends\":{" + perPartition.entrySet().stream()
                .map(e -> "\"" + e.getKey() + "\":" + e.getValue() * CODECS.size()).collect(Collectors.joining(",")) + "},");
        // kafkajs really decompressed the Java producer's batches with each codec
        for (String codec : CODECS.subList(1, CODECS.size())) {
            assertThat(codecCalls(summary, codec, "decompress")).as("%s batches kafkajs decompressed", codec)
                    .isGreaterThanOrEqualTo(partitions);
        }
    }

    @Test
    void shouldCreateDescribeAndGrowATopicWithTheKafkajsAdmin() throws Exception {
        String bootstrap = cluster.bootstrapServers();
        String topic = Groups.unique("kafkajs-admin");
        int partitions = 3;
        int node;
        try (Admin admin = Groups.admin(bootstrap)) {
            node = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next().id();
        }

        Tools.Result r = node("admin.js", bootstrap, topic, Integer.toString(partitions));
        assertThat(r.exit()).as("node exit; stderr: %s", r.err()).isZero();
        StringBuilder metadata = new StringBuilder("\"metadata\":[{\"name\":\"" + topic + "\",\"partitions\":[");
        for (int p = 0; p < partitions; p++) {
            metadata.append(p == 0 ? "" : ",").append("{\"id\":").append(p).append(",\"error\":0,\"leader\":").append(node)
                    .append(",\"replicas\":[").append(node).append("],\"isr\":[").append(node).append("]}");
        }
        assertThat(r.out().strip()).isEqualTo("{\"created\":true,\"createdAgain\":false,"
                + "\"badReplication\":\"INVALID_REPLICATION_FACTOR\",\"listed\":true,\"retentionMs\":\"3600000\","
                + metadata + "]}],\"grown\":" + (partitions + 2) + "}");

        // the Java admin sees what kafkajs did
        try (Admin admin = Groups.admin(bootstrap)) {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
            assertThat(d.partitions()).hasSize(partitions + 2);
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
            assertThat(config.get("retention.ms").value()).isEqualTo("3600000");
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(topic).doesNotContain(topic + "-rf3");
        }
    }

    /** The codec packages came with package.json later than kafkajs; an older install lacks them. */
    private static void requireCodecs() {
        Path modules = NODE_DIR.resolve("node_modules");
        Tools.require(Tools.exists(modules.resolve("kafkajs-snappy")) && Tools.exists(modules.resolve("kafkajs-lz4")),
                "kafkajs-snappy and kafkajs-lz4 (run npm ci in compat-tests/src/test/node)");
    }

    private static Tools.Result node(String script, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Tools.onPath("node").toString(), script));
        command.addAll(List.of(args));
        return Tools.run(command, NODE_DIR, 90);
    }

    /** How many records of one codec go to each partition: record i goes to partition i % partitions. */
    private static Map<Integer, Integer> recordsPerPartitionPerCodec(int partitions, int perCodec) {
        Map<Integer, Integer> counts = new java.util.TreeMap<>();
        for (int i = 0; i < perCodec; i++) {
            counts.merge(i % partitions, 1, Integer::sum);
        }
        return counts;
    }

    /** The key of record i (null for every fifth); the node scripts use the same rule. */
    private static String key(String prefix, String codec, int i) {
        return i % 5 == 4 ? null : prefix + "k-" + codec + "-" + i;
    }

    private static String value(String codec, int i) {
        return codec + "-" + i + "-" + "x".repeat(100);
    }

    /**
     * Every record in the order the broker must hold it: the codecs' requests one after the
     * other, so within a partition the offsets run on from one codec to the next.
     */
    private static List<String> expectedLines(String keyPrefix, int partitions, int perCodec) {
        Map<Integer, Integer> next = new HashMap<>();
        List<String> lines = new ArrayList<>();
        for (String codec : CODECS) {
            for (int i = 0; i < perCodec; i++) {
                int p = i % partitions;
                long offset = next.merge(p, 1, Integer::sum) - 1;
                RecordHeaders headers = new RecordHeaders();
                headers.add("codec", codec.getBytes(StandardCharsets.UTF_8));
                headers.add("idx", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                lines.add(line(p, offset, key(keyPrefix, codec, i), value(codec, i), headers));
            }
        }
        return sorted(lines);
    }

    /** A record in the JSON form consume.js prints; keys, values and headers here need no escaping. */
    private static String line(int partition, long offset, String key, String value, Iterable<Header> headers) {
        StringBuilder h = new StringBuilder();
        for (Header header : headers) {
            h.append(h.isEmpty() ? "" : ",").append(quote(header.key())).append(':')
                    .append(header.value() == null ? "null" : quote(new String(header.value(), StandardCharsets.UTF_8)));
        }
        return "{\"p\":" + partition + ",\"o\":" + offset + ",\"k\":" + (key == null ? "null" : quote(key))
                + ",\"v\":" + (value == null ? "null" : quote(value)) + ",\"h\":{" + h + "}}";
    }

    private static String quote(String s) {
        assertThat(s).as("test data without characters JSON escapes").doesNotContain("\"", "\\");
        return "\"" + s + "\"";
    }

    private static final Pattern PARTITION_OFFSET = Pattern.compile("^\\{\"p\":(\\d+),\"o\":(\\d+),");

    /** Sorted by partition, then offset. */
    private static List<String> sorted(List<String> lines) {
        return lines.stream().sorted(Comparator.comparingLong(l -> {
            Matcher m = PARTITION_OFFSET.matcher(l);
            assertThat(m.find()).as("a record line: %s", l).isTrue();
            return Long.parseLong(m.group(1)) * 1_000_000L + Long.parseLong(m.group(2));
        })).toList();
    }

    /** A codec's compress or decompress count from a script's {@code "calls"} object. */
    private static int codecCalls(String json, String codec, String what) {
        Matcher m = Pattern.compile("\"" + codec + "\":\\{\"compress\":(\\d+),\"decompress\":(\\d+)}").matcher(json);
        assertThat(m.find()).as("%s calls in %s", codec, json).isTrue();
        return Integer.parseInt(m.group(what.equals("compress") ? 1 : 2));
    }
}
