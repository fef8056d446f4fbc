package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The programs Kafka's own system tests drive brokers with, shipped in kafka-tools, each in a JVM
 * of its own: {@code VerifiableProducer} and {@code VerifiableConsumer} (every acknowledged record
 * consumed by a group, with either group protocol), {@code ClientCompatibilityTest} (the features
 * a 4.x broker offers, as Kafka's compatibility system test checks them),
 * {@code TransactionalMessageCopier} (read-process-write in transactions, the copies read
 * committed), {@code EndToEndLatency} and {@code LogCompactionTester} (the latest value of every
 * key survives compaction). Runs against Kafka too ({@link BrookCluster}).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaSystemToolsCompatTest {

    private static final Pattern RECORDS_CONSUMED = Pattern.compile("\"name\":\"records_consumed\",\"count\":(\\d+)");

    /** Small segments, so that the compaction test's records reach closed segments the cleaner takes. */
    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass(Map.of("log.segment.bytes", "1048576"));

    private static CliToolsCompatTest.Run tool(String mainClass, String... args) throws IOException, InterruptedException {
        CliToolsCompatTest.Run r = CliToolsCompatTest.tool(mainClass, args);
        assertThat(r.exit()).as("%s %s: %s", mainClass, List.of(args), r.output()).isZero();
        return r;
    }

    private static void createTopic(String name, int partitions) throws Exception {
        try (Admin admin = cluster.admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void everyRecordTheVerifiableProducerHadAcknowledgedIsConsumedByTheVerifiableConsumer(String protocol)
            throws Exception {
        String topic = "verifiable-" + protocol;
        createTopic(topic, 3);
        CliToolsCompatTest.Run produced = tool("org.apache.kafka.tools.VerifiableProducer", "--bootstrap-server",
                cluster.bootstrapServers(), "--topic", topic, "--max-messages", "3000", "--acks", "-1");
        assertThat(produced.output()).contains("\"name\":\"tool_data\",\"sent\":3000,\"acked\":3000");

        CliToolsCompatTest.Run consumed = tool("org.apache.kafka.tools.VerifiableConsumer", "--bootstrap-server",
                cluster.bootstrapServers(), "--topic", topic, "--group-id", "verifiable-" + protocol,
                "--group-protocol", protocol, "--max-messages", "3000", "--reset-policy", "earliest");
        long count = 0;
        Matcher m = RECORDS_CONSUMED.matcher(consumed.output());
        while (m.find()) {
            count += Long.parseLong(m.group(1));
        }
        assertThat(count).as(consumed.output()).isEqualTo(3000);
        assertThat(consumed.output()).contains("\"name\":\"offsets_committed\"").contains("\"success\":true")
                .doesNotContain("\"success\":false");
    }

    @Test
    void clientCompatibilityTestFindsEveryFeatureOfAFourXBroker() throws Exception {
        // the program creates a topic of this fixed name
        try (Admin admin = cluster.admin()) {
            if (admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("newtopic")) {
                admin.deleteTopics(List.of("newtopic")).all().get(30, TimeUnit.SECONDS);
            }
        }
        CliToolsCompatTest.Run r = tool("org.apache.kafka.tools.ClientCompatibilityTest", "--bootstrap-server",
                cluster.bootstrapServers(), "--topic", "client-compatibility", "--offsets-for-times-supported", "true",
                "--cluster-id-supported", "true", "--expect-record-too-large-exception", "false",
                "--num-cluster-nodes", "1", "--create-topics-supported", "true", "--describe-acls-supported", "true",
                "--describe-configs-supported", "true", "--idempotent-producer-supported", "true");
        assertThat(r.output()).contains("SUCCESS");
    }

    @Test
    void transactionalMessageCopierCopiesEveryRecordInCommittedTransactions() throws Exception {
        createTopic("copier-in", 1);
        createTopic("copier-out", 1);
        tool("org.apache.kafka.tools.VerifiableProducer", "--bootstrap-server", cluster.bootstrapServers(),
                "--topic", "copier-in", "--max-messages", "500", "--acks", "-1");
        CliToolsCompatTest.Run r = tool("org.apache.kafka.tools.TransactionalMessageCopier", "--broker-list",
                cluster.bootstrapServers(), "--input-topic", "copier-in", "--input-partition", "0", "--output-topic",
                "copier-out", "--transactional-id", "copier", "--consumer-group", "copier-group",
                "--transaction-size", "50", "--max-messages", "500", "--use-group-metadata");
        assertThat(r.output()).contains("\"stage\":\"ShutdownComplete\"").contains("\"remaining\":0");

        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        TopicPartition out = new TopicPartition("copier-out", 0);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(List.of(out));
            consumer.seekToBeginning(List.of(out));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.size() < 500 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> rec : consumer.poll(Duration.ofMillis(500))) {
                    values.add(rec.value());
                }
            }
        }
        assertThat(values).hasSize(500);
        assertThat(Set.copyOf(values)).hasSize(500);
    }

    @Test
    void endToEndLatencyRunsItsRoundTrips() throws Exception {
        createTopic("end-to-end", 1);
        CliToolsCompatTest.Run r = tool("org.apache.kafka.tools.EndToEndLatency", cluster.bootstrapServers(),
                "end-to-end", "500", "all", "100");
        assertThat(r.output()).contains("Avg latency").contains("Percentiles");
    }

    @Test
    void logCompactionTesterFindsTheLatestValueOfEveryKey(@TempDir Path tmp) throws Exception {
        // the tool leaves a directory of its own in the temporary directory
        CliToolsCompatTest.Run r = CliToolsCompatTest.tool(null, tmp, "org.apache.kafka.tools.LogCompactionTester",
                "--bootstrap-server", cluster.bootstrapServers(), "--messages", "50000", "--duplicates", "10",
                "--percent-deletes", "10", "--topics", "1", "--sleep", "2");
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).contains("50000 rows of data produced").contains(" 0 mismatches")
                .contains("Data verification is completed");
    }
}
