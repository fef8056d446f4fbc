package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * librdkafka's transactional producer (2.0.2, through Debian's {@code python3-confluent-kafka};
 * {@code .ci/run} installs it), which kcat cannot drive and whose transaction code is its own:
 * {@code src/test/python/librdkafka_transactions.py} copies ten records from one topic to
 * another in transactions that carry its group's offsets (five committed, one record aborted,
 * five committed), then a second producer with the same transactional id fences the first. What
 * became visible is read back with the stock Java client. Runs against Apache Kafka too; skipped
 * locally, failed in CI, when Debian's python3 cannot import {@code confluent_kafka}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LibrdkafkaTransactionsCompatTest {

    private static final Path SCRIPT = Path.of("src", "test", "python", "librdkafka_transactions.py");
    private static final Path PYTHON = Path.of("/usr/bin/python3"); // where Debian's packages install modules

    private static BrookCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        Tools.require(Files.isExecutable(PYTHON)
                && Tools.run(List.of(PYTHON.toString(), "-c", "import confluent_kafka"), null, 30).exit() == 0,
                "/usr/bin/python3 with confluent-kafka (python3-confluent-kafka)");
        cluster = new BrookCluster(Groups.BROKER_CONFIGS);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void copiesInTransactionsWithTheGroupsOffsetsAndFencesAZombie() throws Exception {
        String source = Groups.unique("rdk-txn-in");
        String sink = Groups.unique("rdk-txn-out");
        String group = Groups.unique("rdk-txn-group");
        Groups.createTopic(cluster.bootstrapServers(), source, 2);
        Groups.createTopic(cluster.bootstrapServers(), sink, 2);

        Tools.Result r = Tools.run(List.of(PYTHON.toString(), SCRIPT.toString(), cluster.bootstrapServers(), source,
                sink, Groups.unique("rdk-tx"), group), null, 150);

        assertThat(r.exit()).as("exit; stdout: %s; stderr: %s", r.out(), r.err()).isZero();
        assertThat(r.out()).contains("source 10\n", "consumed 10\n", "committed 5\n", "aborted 1\n",
                "committed 10\n", "second initialised\n", "zombie refused fatal fenced\n");
        List<String> copied = IntStream.range(0, 10).mapToObj(i -> "s" + i + "-x").toList();
        assertThat(Groups.readValues(cluster.bootstrapServers(), sink, 2, true))
                .containsExactlyInAnyOrderElementsOf(copied);
        List<String> everything = new ArrayList<>(copied);
        everything.add("aborted");
        assertThat(Groups.readValues(cluster.bootstrapServers(), sink, 2, false))
                .containsExactlyInAnyOrderElementsOf(everything);
        try (Admin admin = Groups.admin(cluster.bootstrapServers())) {
            Map<TopicPartition, OffsetAndMetadata> offsets =
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            assertThat(offsets).containsOnlyKeys(new TopicPartition(source, 0), new TopicPartition(source, 1));
            assertThat(offsets.values()).allSatisfy(o -> assertThat(o.offset()).isEqualTo(5));
        }
    }
}
