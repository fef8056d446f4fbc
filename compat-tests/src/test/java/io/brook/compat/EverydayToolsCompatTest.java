package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka command-line tools people use every day, each in a JVM of its own as its script runs
 * it ({@link CliToolsCompatTest#tool}): {@code kafka-topics.sh} (create with a config, describe,
 * add partitions, list, delete), {@code kafka-console-producer.sh} with keys from standard input,
 * {@code kafka-console-consumer.sh} in a group, {@code kafka-consumer-groups.sh} (list, describe
 * with lag, reset offsets, delete offsets, delete the group), {@code kafka-get-offsets.sh} and
 * {@code kafka-delete-records.sh}. Runs against Kafka too ({@link BrookCluster}).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class EverydayToolsCompatTest {

    private static final String TOPICS = "org.apache.kafka.tools.TopicCommand";
    private static final String PRODUCER = "org.apache.kafka.tools.ConsoleProducer";
    private static final String CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer";
    private static final String GROUPS = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";
    private static final String OFFSETS = "org.apache.kafka.tools.GetOffsetShell";
    private static final String DELETE_RECORDS = "org.apache.kafka.tools.DeleteRecordsCommand";

    @TempDir
    static Path dir;
    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    private static CliToolsCompatTest.Run tool(String mainClass, String... args) throws IOException, InterruptedException {
        return CliToolsCompatTest.tool(mainClass, withBootstrap(args));
    }

    private static String[] withBootstrap(String... args) {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", cluster.bootstrapServers()));
        all.addAll(List.of(args));
        return all.toArray(String[]::new);
    }

    private static CliToolsCompatTest.Run ok(String mainClass, String... args) throws IOException, InterruptedException {
        CliToolsCompatTest.Run r = tool(mainClass, args);
        assertThat(r.exit()).as("%s %s: %s", mainClass, String.join(" ", args), r.output()).isZero();
        return r;
    }

    /** The tool's script with {@code input} on its standard input. */
    private static CliToolsCompatTest.Run withInput(String input, String mainClass, String... args) throws Exception {
        Path in = Files.writeString(dir.resolve("stdin-" + System.nanoTime()), input, StandardCharsets.UTF_8);
        return CliToolsCompatTest.tool(in, mainClass, withBootstrap(args));
    }

    /** kafka-consumer-groups.sh --describe: the sum of one column (CURRENT-OFFSET, LOG-END-OFFSET or LAG). */
    private static long columnSum(String describe, String column) {
        List<String> lines = describe.lines().filter(l -> !l.isBlank()).toList();
        String header = lines.stream().filter(l -> l.startsWith("GROUP")).findFirst().orElseThrow();
        List<String> names = List.of(header.trim().split("\\s+"));
        int at = names.indexOf(column);
        long sum = 0;
        for (String l : lines.subList(lines.indexOf(header) + 1, lines.size())) {
            sum += Long.parseLong(l.trim().split("\\s+")[at]);
        }
        return sum;
    }

    @Test
    void topicsToolCreatesDescribesGrowsListsAndDeletes() throws Exception {
        String topic = Groups.unique("tools-topic");
        assertThat(ok(TOPICS, "--create", "--topic", topic, "--partitions", "2", "--config", "retention.ms=123456")
                .output()).contains("Created topic " + topic + ".");
        String described = ok(TOPICS, "--describe", "--topic", topic).output();
        assertThat(described).contains("Topic: " + topic, "PartitionCount: 2", "ReplicationFactor: 1",
                "retention.ms=123456", "Partition: 1");
        ok(TOPICS, "--alter", "--topic", topic, "--partitions", "3");
        assertThat(ok(TOPICS, "--describe", "--topic", topic).output()).contains("PartitionCount: 3", "Partition: 2");
        // one partition per DescribeTopicPartitions answer: the tool follows the cursor to the end
        assertThat(ok(TOPICS, "--describe", "--topic", topic, "--partition-size-limit-per-response", "1").output())
                .contains("PartitionCount: 3", "Partition: 0", "Partition: 1", "Partition: 2");
        assertThat(ok(TOPICS, "--list").output().lines()).contains(topic);
        assertThat(ok(TOPICS, "--describe", "--topics-with-overrides").output()).contains(topic);
        CliToolsCompatTest.Run again = tool(TOPICS, "--create", "--topic", topic, "--partitions", "1");
        assertThat(again.exit()).isNotZero();
        assertThat(again.output()).contains("already exists");

        ok(TOPICS, "--delete", "--topic", topic);
        try (Admin admin = Groups.admin(cluster.bootstrapServers())) {
            Groups.awaitTopicGone(admin, topic);
        }
        assertThat(ok(TOPICS, "--list").output().lines()).doesNotContain(topic);
    }

    @Test
    void consoleProducerConsumerAndConsumerGroupsTool() throws Exception {
        String topic = Groups.unique("tools-console");
        String group = Groups.unique("tools-console-group");
        ok(TOPICS, "--create", "--topic", topic, "--partitions", "2");
        StringBuilder input = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            input.append("key").append(i).append(':').append("value").append(i).append('\n');
        }
        CliToolsCompatTest.Run produced = withInput(input.toString(), PRODUCER, "--topic", topic,
                "--reader-property", "parse.key=true", "--reader-property", "key.separator=:");
        assertThat(produced.exit()).as(produced.output()).isZero();

        String consumed = ok(CONSUMER, "--topic", topic, "--from-beginning", "--max-messages", "20", "--group", group,
                "--formatter-property", "print.key=true", "--timeout-ms", "60000").output();
        assertThat(consumed).contains("Processed a total of 20 messages");
        for (int i = 0; i < 20; i++) {
            assertThat(consumed).contains("key" + i + "\tvalue" + i + "\n");
        }

        assertThat(ok(GROUPS, "--list").output().lines()).contains(group);
        String described = ok(GROUPS, "--describe", "--group", group).output();
        assertThat(columnSum(described, "LOG-END-OFFSET")).isEqualTo(20);
        // the console consumer commits what it read (all 20) when it closes
        assertThat(columnSum(described, "CURRENT-OFFSET")).isEqualTo(20);
        assertThat(columnSum(described, "LAG")).isZero();
        assertThat(ok(GROUPS, "--describe", "--group", group, "--state").output()).contains("Empty");

        String reset = ok(GROUPS, "--reset-offsets", "--group", group, "--topic", topic, "--to-earliest", "--execute")
                .output();
        assertThat(reset).contains("NEW-OFFSET");
        String afterReset = ok(GROUPS, "--describe", "--group", group).output();
        assertThat(columnSum(afterReset, "CURRENT-OFFSET")).isZero();
        assertThat(columnSum(afterReset, "LAG")).isEqualTo(20);

        assertThat(ok(GROUPS, "--delete-offsets", "--group", group, "--topic", topic + ":1").output())
                .contains("Successful");
        assertThat(ok(GROUPS, "--delete", "--group", group).output())
                .contains("Deletion of requested consumer groups ('" + group + "') was successful.");
        assertThat(ok(GROUPS, "--list").output().lines()).doesNotContain(group);
    }

    @Test
    void getOffsetsAndDeleteRecords() throws Exception {
        String topic = Groups.unique("tools-offsets");
        Groups.createTopic(cluster.bootstrapServers(), topic, 2);
        Groups.produce(cluster.bootstrapServers(), topic, 2, 7);
        assertThat(ok(OFFSETS, "--topic", topic).output().lines()).containsExactlyInAnyOrder(topic + ":0:7", topic + ":1:7");
        assertThat(ok(OFFSETS, "--topic", topic, "--time", "-2").output().lines())
                .containsExactlyInAnyOrder(topic + ":0:0", topic + ":1:0");

        Path json = Files.writeString(dir.resolve("delete-records.json"),
                "{\"partitions\":[{\"topic\":\"" + topic + "\",\"partition\":0,\"offset\":3}],\"version\":1}");
        String deleted = ok(DELETE_RECORDS, "--offset-json-file", json.toString()).output();
        Matcher m = Pattern.compile("partition: " + Pattern.quote(topic) + "-0\\s+low_watermark: (\\d+)").matcher(deleted);
        assertThat(m.find()).as(deleted).isTrue();
        assertThat(m.group(1)).isEqualTo("3");
        assertThat(ok(OFFSETS, "--topic", topic, "--time", "-2").output().lines())
                .containsExactlyInAnyOrder(topic + ":0:3", topic + ":1:0");
        assertThat(ok(OFFSETS, "--topic", topic, "--time", "-1").output().lines())
                .containsExactlyInAnyOrder(topic + ":0:7", topic + ":1:7");
    }
}
