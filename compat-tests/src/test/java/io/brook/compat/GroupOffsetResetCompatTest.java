package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every way {@code kafka-consumer-groups.sh --reset-offsets} moves a group's committed offsets,
 * each run in a JVM of its own as its script runs it: {@code --shift-by} (clamped to the log),
 * {@code --to-offset}, {@code --to-latest}, {@code --to-datetime} before and after every record
 * (ListOffsets by time: the first offset at or after it, else the end), {@code --by-duration},
 * one partition ({@code --topic t:1}), a dry run, and {@code --export} to a file read back by
 * {@code --from-file}. Runs against Kafka too ({@link BrookCluster}).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class GroupOffsetResetCompatTest {

    private static final String GROUPS = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";

    @TempDir
    static Path dir;
    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    private static String reset(String group, String topic, String... how) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("--bootstrap-server", cluster.bootstrapServers(),
                "--reset-offsets", "--group", group, "--topic", topic));
        args.addAll(List.of(how));
        CliToolsCompatTest.Run r = CliToolsCompatTest.tool(GROUPS, args.toArray(String[]::new));
        assertThat(r.exit()).as("%s: %s", args, r.output()).isZero();
        return r.output();
    }

    private static Map<Integer, Long> both(long offset) {
        return Map.of(0, offset, 1, offset);
    }

    @Test
    void everyResetMovesTheCommittedOffsetsAsKafkaDoes() throws Exception {
        String bootstrap = cluster.bootstrapServers();
        String topic = Groups.unique("reset-topic");
        String group = Groups.unique("reset-group");
        Groups.createTopic(bootstrap, topic, 2);
        Groups.produce(bootstrap, topic, 2, 10);
        var props = Groups.consumerProps(bootstrap, group);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<String, String> c = Groups.consumer(props)) {
            c.commitSync(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(5),
                    new TopicPartition(topic, 1), new OffsetAndMetadata(5)));
        }
        try (Admin admin = Groups.admin(bootstrap)) {
            reset(group, topic, "--shift-by", "-2", "--execute");
            assertThat(Groups.committed(admin, group, topic)).isEqualTo(both(3));
            reset(group, topic, "--shift-by", "100", "--execute"); // past the end: the end
            assertThat(Groups.committed(admin, group, topic)).isEqualTo(both(10));
            reset(group, topic, "--to-offset", "7", "--execute");
            assertThat(Groups.committed(admin, group, topic)).isEqualTo(both(7));
            reset(group, topic, "--to-datetime", "2000-01-01T00:00:00.000", "--execute"); // before every record
            assertThat(Groups.committed(admin, group, topic)).isEqualTo(both(0));
            reset(group, topic, "--to-latest", "--execute");
            assertThat(Groups.committed(admin, group, topic)).isEqualTo(both(10));
            reset(group, topic, "--by-duration", "PT1H", "--execute"); // an hour ago: before every record
            assertThat(Groups.committed(admin, group, topic)).isEqualTo(both(0));
            reset(group, topic, "--to-datetime", "2999-01-01T00:00:00.000", "--execute"); // after every record: the end
            assertThat(Groups.committed(admin, group, topic)).isEqualTo(both(10));
            reset(group, topic + ":1", "--to-offset", "6", "--execute");
            assertThat(Groups.committed(admin, group, topic)).isEqualTo(Map.of(0, 10L, 1, 6L));

            String dry = reset(group, topic, "--to-offset", "2"); // neither --execute nor --dry-run: a dry run
            assertThat(dry).contains("NEW-OFFSET");
            assertThat(Groups.committed(admin, group, topic)).isEqualTo(Map.of(0, 10L, 1, 6L));

            List<String> exported = reset(group, topic, "--to-offset", "4", "--dry-run", "--export").lines()
                    .filter(l -> l.startsWith(topic + ",")).toList(); // the CSV, without what the tool logs
            assertThat(exported).containsExactlyInAnyOrder(topic + ",0,4", topic + ",1,4");
            Path plan = Files.write(dir.resolve("offsets.csv"), exported, StandardCharsets.UTF_8);
            CliToolsCompatTest.Run fromFile = CliToolsCompatTest.tool(GROUPS, "--bootstrap-server", bootstrap,
                    "--reset-offsets", "--group", group, "--from-file", plan.toString(), "--execute");
            assertThat(fromFile.exit()).as(fromFile.output()).isZero();
            assertThat(Groups.committed(admin, group, topic)).as(fromFile.output()).isEqualTo(both(4));
        }
    }
}
