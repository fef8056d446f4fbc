package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The tools people point at a new broker first, each in a JVM of its own as its script runs it:
 * {@code kafka-broker-api-versions.sh} (every API the broker announces, with the version the tool
 * would use), {@code kafka-producer-perf-test.sh} and {@code kafka-consumer-perf-test.sh} (all
 * records sent, acknowledged and read back), and {@code kafka-groups.sh}, which lists groups of
 * every type with their protocol. Runs against Kafka too ({@link BrookCluster}).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class PerfAndInfoToolsCompatTest {

    private static final String API_VERSIONS = "org.apache.kafka.tools.BrokerApiVersionsCommand";
    private static final String PRODUCER_PERF = "org.apache.kafka.tools.ProducerPerformance";
    private static final String CONSUMER_PERF = "org.apache.kafka.tools.ConsumerPerformance";
    private static final String GROUPS = "org.apache.kafka.tools.GroupsCommand";
    private static final int RECORDS = 20_000;

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    private static CliToolsCompatTest.Run ok(String mainClass, String... args) throws Exception {
        CliToolsCompatTest.Run r = CliToolsCompatTest.tool(mainClass, args);
        assertThat(r.exit()).as("%s %s: %s", mainClass, String.join(" ", args), r.output()).isZero();
        return r;
    }

    @Test
    void brokerApiVersionsListsTheApisClientsUse() throws Exception {
        String out = ok(API_VERSIONS, "--bootstrap-server", cluster.bootstrapServers()).output();
        // one line per API the tool's client knows: the broker's range and the version both can use
        for (String api : List.of("Produce(0)", "Fetch(1)", "ListOffsets(2)", "Metadata(3)", "OffsetCommit(8)",
                "OffsetFetch(9)", "FindCoordinator(10)", "JoinGroup(11)", "ApiVersions(18)", "CreateTopics(19)",
                "InitProducerId(22)", "DescribeConfigs(32)", "SaslHandshake(17)", "ConsumerGroupHeartbeat(68)")) {
            assertThat(out).as(api).containsPattern("\\Q" + api + "\\E: \\d+ to \\d+ \\[usable: \\d+\\]");
        }
    }

    @Test
    void producerAndConsumerPerfTestsSendAndReadEveryRecord() throws Exception {
        String bootstrap = cluster.bootstrapServers();
        String topic = Groups.unique("perf-tools");
        Groups.createTopic(bootstrap, topic, 3);
        String sent = ok(PRODUCER_PERF, "--topic", topic, "--num-records", Integer.toString(RECORDS),
                "--record-size", "100", "--throughput", "-1",
                "--producer-props", "bootstrap.servers=" + bootstrap, "acks=all", "linger.ms=5").output();
        assertThat(sent).contains(RECORDS + " records sent");

        String read = ok(CONSUMER_PERF, "--bootstrap-server", bootstrap, "--topic", topic,
                "--messages", Integer.toString(RECORDS), "--timeout", "60000").output();
        // a header line, then one line of figures; the fifth is data.consumed.in.nMsg
        List<String> lines = read.lines().filter(l -> !l.isBlank()).toList();
        int header = indexOf(lines, "data.consumed.in.nMsg");
        List<String> names = trimmed(lines.get(header).split(","));
        List<String> values = trimmed(lines.get(header + 1).split(","));
        assertThat(values.get(names.indexOf("data.consumed.in.nMsg"))).isEqualTo(Integer.toString(RECORDS));
    }

    @Test
    void groupsToolListsClassicAndConsumerGroups() throws Exception {
        String bootstrap = cluster.bootstrapServers();
        String topic = Groups.unique("groups-tool");
        Groups.createTopic(bootstrap, topic, 1);
        String classic = Groups.unique("groups-tool-classic");
        String modern = Groups.unique("groups-tool-consumer");
        for (String[] g : new String[][] {{classic, "classic"}, {modern, "consumer"}}) {
            var props = Groups.consumerProps(bootstrap, g[0]);
            props.put("group.protocol", g[1]);
            if (g[1].equals("consumer")) {
                props.remove("heartbeat.interval.ms"); // the broker decides it under the consumer protocol
                props.remove("session.timeout.ms");
            }
            try (KafkaConsumer<String, String> c = Groups.consumer(props)) {
                c.subscribe(List.of(topic));
                Groups.pollUntil(java.time.Duration.ofSeconds(60), () -> g[0] + "'s assignment",
                        () -> c.poll(java.time.Duration.ofMillis(100)), () -> !c.assignment().isEmpty());
                c.commitSync();
            }
        }
        String out = ok(GROUPS, "--bootstrap-server", bootstrap, "--list").output();
        assertThat(out.lines().filter(l -> l.startsWith(classic)).map(PerfAndInfoToolsCompatTest::columns))
                .containsExactly(List.of(classic, "Classic", "consumer"));
        assertThat(out.lines().filter(l -> l.startsWith(modern)).map(PerfAndInfoToolsCompatTest::columns))
                .containsExactly(List.of(modern, "Consumer", "consumer"));
        assertThat(ok(GROUPS, "--bootstrap-server", bootstrap, "--list", "--group-type", "consumer").output())
                .contains(modern).doesNotContain(classic);
    }

    private static int indexOf(List<String> lines, String part) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(part)) {
                return i;
            }
        }
        throw new AssertionError("no line with " + part + " in " + lines);
    }

    private static List<String> trimmed(String[] parts) {
        List<String> out = new ArrayList<>();
        for (String p : parts) {
            out.add(p.trim());
        }
        return out;
    }

    private static List<String> columns(String line) {
        return List.of(line.trim().split("\\s+"));
    }
}
