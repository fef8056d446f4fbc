package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * MirrorMaker 2 in dedicated mode ({@code connect-mirror-maker.sh}: {@code
 * org.apache.kafka.connect.mirror.MirrorMaker}, release {@code mirror.maker.version} of this
 * module's pom with the Kafka jars of that release, in a JVM of its own), replicating a topic and
 * a consumer group's offsets from cluster "A" to cluster "B". Both names point at the one broker
 * under test, which keeps the test runnable against Kafka too ({@link BrookCluster}): the copy is
 * the topic {@code A.<topic>}, and MirrorMaker's internal topics (heartbeats, checkpoints, offset
 * syncs and its Connect topics, compacted) live beside it. With {@code offset.lag.max=0} every
 * record gets an offset sync, so the group's offsets are translated exactly. MirrorMaker asks the
 * source for its ACLs, which a broker without an authorizer refuses with SECURITY_DISABLED; it
 * then leaves ACLs alone.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class MirrorMakerCompatTest {

    private static final Path JARS = Path.of("target", "mirror-maker");
    private static final int PER_PARTITION = 10;

    @TempDir
    static Path dir;
    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    /** MirrorMaker's release's Kafka jars, then the test class path's other libraries (Jackson, Jersey, Jetty, SLF4J ...). */
    private static String classPath() throws Exception {
        List<String> entries = new ArrayList<>();
        try (Stream<Path> jars = Files.list(JARS)) {
            jars.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(p -> entries.add(p.toAbsolutePath().toString()));
        }
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = Path.of(e).getFileName().toString();
            boolean kafkaOrBrook = name.startsWith("kafka") || name.startsWith("connect-") || name.startsWith("brook-")
                    || !name.endsWith(".jar");
            if (!kafkaOrBrook) {
                entries.add(e);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    @Test
    void replicatesATopicAndTranslatesItsGroupsOffsets() throws Exception {
        assertThat(JARS).as("copied by the build (this module's pom)").isDirectory();
        String bootstrap = cluster.bootstrapServers();
        String topic = Groups.unique("mm-topic");
        String group = Groups.unique("mm-group");
        String copy = "A." + topic;
        Groups.createTopic(bootstrap, topic, 2);
        List<String> values = Groups.produce(bootstrap, topic, 2, PER_PARTITION);
        Properties consumed = Groups.consumerProps(bootstrap, group);
        consumed.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<String, String> c = Groups.consumer(consumed)) {
            c.subscribe(List.of(topic));
            List<String> read = new ArrayList<>();
            Groups.pollUntil(Duration.ofSeconds(60), () -> "the source topic read in " + group,
                    () -> c.poll(Duration.ofMillis(100)).forEach(r -> read.add(r.value())),
                    () -> read.size() == values.size());
            c.commitSync();
        }

        Path props = dir.resolve("mm2.properties");
        Files.writeString(props, String.join("\n",
                "clusters = A, B",
                "A.bootstrap.servers = " + bootstrap,
                "B.bootstrap.servers = " + bootstrap,
                "A->B.enabled = true",
                "A->B.topics = " + topic,
                "A->B.groups = " + group,
                "replication.factor = 1",
                "checkpoints.topic.replication.factor = 1",
                "heartbeats.topic.replication.factor = 1",
                "offset-syncs.topic.replication.factor = 1",
                "offset.storage.replication.factor = 1",
                "status.storage.replication.factor = 1",
                "config.storage.replication.factor = 1",
                "offset.lag.max = 0",
                "sync.group.offsets.enabled = true",
                "sync.group.offsets.interval.seconds = 1",
                "emit.checkpoints.interval.seconds = 1",
                "refresh.topics.interval.seconds = 1",
                "refresh.groups.interval.seconds = 1",
                "emit.heartbeats.interval.seconds = 1",
                ""), StandardCharsets.UTF_8);
        Path log = dir.resolve("mirror-maker.log");
        Process mm = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-cp", classPath(), "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "org.apache.kafka.connect.mirror.MirrorMaker", props.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try (Admin admin = Groups.admin(bootstrap)) {
            await(log, "every record in " + copy, () -> endOffsets(admin, copy).equals(
                    Map.of(0, (long) PER_PARTITION, 1, (long) PER_PARTITION)));
            assertThat(Groups.readValues(bootstrap, copy, 2, false)).containsExactlyInAnyOrderElementsOf(values);
            await(log, group + "'s offsets of " + copy, () -> committedOrNone(admin, group, copy).equals(
                    Map.of(0, (long) PER_PARTITION, 1, (long) PER_PARTITION)));
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
                    .contains("heartbeats", "A.heartbeats", "A.checkpoints.internal");
            assertThat(Files.readString(log)).contains("No ACL authorizer is configured on the source Kafka cluster");
        } finally {
            mm.destroy();
            if (!mm.waitFor(30, TimeUnit.SECONDS)) {
                mm.destroyForcibly();
            }
        }
    }

    /** {@link Groups#await}; on time-out the failure carries the end of MirrorMaker's log. */
    private static void await(Path log, String what, java.util.function.BooleanSupplier done) throws Exception {
        try {
            Groups.await(Duration.ofSeconds(120), what, done);
        } catch (AssertionError e) {
            List<String> lines = Files.readAllLines(log);
            throw new AssertionError(e.getMessage() + "; MirrorMaker's log ends:\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size())), e);
        }
    }

    private static Map<Integer, Long> endOffsets(Admin admin, String topic) {
        try {
            Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
            for (int p = 0; p < 2; p++) {
                ask.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            Map<Integer, Long> ends = new HashMap<>();
            admin.listOffsets(ask).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
            return ends;
        } catch (Exception e) { // the copy does not exist yet
            return Map.of();
        }
    }

    private static Map<Integer, Long> committedOrNone(Admin admin, String group, String topic) {
        try {
            return Groups.committed(admin, group, topic);
        } catch (Exception e) { // the group has no offsets yet
            return Map.of();
        }
    }
}
