package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * kafkajs 2.2.4 transactions ({@code src/test/node/transaction.js}): {@code producer.transaction()}
 * with send and commit, send and abort, and consume-transform-produce with
 * {@code transaction.sendOffsets}, committed and aborted. What became visible is read with the
 * stock Java consumer: read_committed sees exactly the committed records, read_uncommitted the
 * aborted ones too, and the group's offsets move only with a committed transaction. Runs against
 * Apache Kafka too; skipped locally when node or kafkajs is missing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KafkajsTransactionsCompatTest {

    private static BrookCluster cluster;

    @BeforeAll
    static void start() {
        Tools.require(Tools.onPath("node") != null, "node");
        Tools.require(Tools.exists(KafkajsCompatTest.NODE_DIR.resolve("node_modules").resolve("kafkajs")),
                "kafkajs (run npm ci in compat-tests/src/test/node)");
        cluster = new BrookCluster(Groups.BROKER_CONFIGS);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Tools.Result node(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Tools.onPath("node").toString(), "transaction.js",
                cluster.bootstrapServers()));
        command.addAll(List.of(args));
        Tools.Result r = Tools.run(command, KafkajsCompatTest.NODE_DIR, 90);
        assertThat(r.exit()).as("node exit; stderr: %s", r.err()).isZero();
        return r;
    }

    /** The values of one JSON array member ("committed" or "aborted") of the script's result. */
    private static List<String> values(Tools.Result r, String member) {
        Matcher m = Pattern.compile("\"" + member + "\":\\[([^\\]]*)\\]").matcher(r.out());
        assertThat(m.find()).as("%s in %s", member, r.out()).isTrue();
        List<String> out = new ArrayList<>();
        Matcher s = Pattern.compile("\"([^\"]*)\"").matcher(m.group(1));
        while (s.find()) {
            out.add(s.group(1));
        }
        return out;
    }

    /** Every value of the topic up to its end for this isolation level, read with the Java consumer. */
    private static List<String> readAll(String topic, int partitions, boolean readCommitted) {
        return Groups.readValues(cluster.bootstrapServers(), topic, partitions, readCommitted);
    }

    @Test
    void shouldCommitAndAbortKafkajsTransactions() throws Exception {
        String topic = Groups.unique("kjs-txn");
        Groups.createTopic(cluster.bootstrapServers(), topic, 2);
        String id = Groups.unique("kjs-tx");
        List<String> committed = values(node(id, "commit", topic, "2", "6", "a"), "committed");
        List<String> aborted = values(node(id, "abort", topic, "2", "6", "b"), "aborted");
        List<String> later = values(node(id, "commit", topic, "2", "4", "c"), "committed");
        assertThat(committed).hasSize(6);
        assertThat(aborted).hasSize(6);
        List<String> expected = new ArrayList<>(committed);
        expected.addAll(later);
        assertThat(readAll(topic, 2, true)).containsExactlyInAnyOrderElementsOf(expected);
        List<String> everything = new ArrayList<>(expected);
        everything.addAll(aborted);
        assertThat(readAll(topic, 2, false)).containsExactlyInAnyOrderElementsOf(everything);
    }

    @Test
    void shouldCommitConsumedOffsetsWithTheTransformedRecordsAndNotWhenAborted() throws Exception {
        String input = Groups.unique("kjs-in");
        String output = Groups.unique("kjs-out");
        String group = Groups.unique("kjs-ctp");
        Groups.createTopic(cluster.bootstrapServers(), input, 2);
        Groups.createTopic(cluster.bootstrapServers(), output, 2);
        List<String> produced = Groups.produce(cluster.bootstrapServers(), input, 2, 5);
        String id = Groups.unique("kjs-tx");
        List<String> transformed = values(node(id, "transform-commit", input, output, group, "10"), "committed");
        List<String> outputs = produced.stream().map(v -> "T-" + v).toList();
        assertThat(transformed).containsExactlyInAnyOrderElementsOf(outputs);
        assertThat(readAll(output, 2, true)).containsExactlyInAnyOrderElementsOf(outputs);
        Map<TopicPartition, OffsetAndMetadata> offsets = committedOffsets(group);
        assertThat(offsets).containsOnlyKeys(new TopicPartition(input, 0), new TopicPartition(input, 1));
        assertThat(offsets.values()).allSatisfy(o -> assertThat(o.offset()).isEqualTo(5));

        // more input, transformed in a transaction that aborts: neither its output nor its offsets show
        List<String> more = Groups.produce(cluster.bootstrapServers(), input, 2, 5, 3);
        List<String> abortedOutput = values(node(id, "transform-abort", input, output, group, "6"), "aborted");
        assertThat(abortedOutput).isNotEmpty();
        assertThat(more.stream().map(v -> "T-" + v).toList()).containsAll(abortedOutput);
        assertThat(readAll(output, 2, true)).containsExactlyInAnyOrderElementsOf(outputs);
        List<String> uncommitted = new ArrayList<>(outputs);
        uncommitted.addAll(abortedOutput);
        assertThat(readAll(output, 2, false)).containsExactlyInAnyOrderElementsOf(uncommitted);
        assertThat(committedOffsets(group).values()).allSatisfy(o -> assertThat(o.offset()).isEqualTo(5));
    }

    private static Map<TopicPartition, OffsetAndMetadata> committedOffsets(String group) throws Exception {
        try (Admin admin = Groups.admin(cluster.bootstrapServers())) {
            return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        }
    }
}
