package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartitionReplica;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's command-line tools against Brook, each run as its script runs it: a JVM of its own
 * (the test class path, which holds kafka-tools) starting the tool's main
 * class, its exit status and output checked. {@code kafka-log-dirs.sh --describe},
 * {@code kafka-configs.sh} for brokers and broker-loggers, {@code kafka-leader-election.sh},
 * {@code kafka-reassign-partitions.sh --list} and with a plan that names log directories, and
 * {@code kafka-metadata-quorum.sh describe --status}.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class CliToolsCompatTest {

    private static final String LOG_DIRS = org.apache.kafka.tools.LogDirsCommand.class.getName();
    private static final String CONFIGS = org.apache.kafka.tools.ConfigCommand.class.getName();
    private static final String LEADER_ELECTION = org.apache.kafka.tools.LeaderElectionCommand.class.getName();
    private static final String REASSIGN = org.apache.kafka.tools.reassign.ReassignPartitionsCommand.class.getName();
    private static final String QUORUM = org.apache.kafka.tools.MetadataQuorumCommand.class.getName();

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();
    private static String topic;
    private static String node;

    @BeforeAll
    static void createTopic() throws Exception {
        topic = Groups.unique("cli-tools");
        Groups.createTopic(cluster.bootstrapServers(), topic, 2);
        Groups.produce(cluster.bootstrapServers(), topic, 2, 5);
        try (Admin admin = Groups.admin(cluster.bootstrapServers())) {
            node = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next().idString();
        }
    }

    /** What a tool printed (standard output and error together) and how it exited. */
    record Run(int exit, String output) { }

    static Run tool(String mainClass, String... args) throws IOException, InterruptedException {
        return tool(null, mainClass, args);
    }

    /** {@link #tool(String, String...)} with the file {@code stdin} (null: nothing) on its standard input. */
    static Run tool(Path stdin, String mainClass, String... args) throws IOException, InterruptedException {
        return tool(stdin, null, mainClass, args);
    }

    /**
     * {@link #tool(Path, String, String...)} with the tool's temporary files in {@code tmpDir}
     * (null: the machine's), for tools that leave theirs behind.
     */
    static Run tool(Path stdin, Path tmpDir, String mainClass, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        if (tmpDir != null) {
            cmd.add("-Djava.io.tmpdir=" + tmpDir);
        }
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (stdin != null) {
            pb.redirectInput(stdin.toFile());
        }
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("%s exits", mainClass).isTrue();
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    private static String[] withBootstrap(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--bootstrap-server";
        all[1] = cluster.bootstrapServers();
        System.arraycopy(args, 0, all, 2, args.length);
        return all;
    }

    @Test
    void logDirsDescribeListsThePartitionsOfTheDataDirectory() throws Exception {
        Run r = tool(LOG_DIRS, withBootstrap("--describe", "--topic-list", topic));
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).contains("\"logDir\":").contains("\"partition\":\"" + topic + "-0\"")
                .contains("\"partition\":\"" + topic + "-1\"");
    }

    @Test
    void configsDescribeAndAlterABrokersDynamicConfig() throws Exception {
        Run all = tool(CONFIGS, withBootstrap("--describe", "--entity-type", "brokers", "--entity-name", node, "--all"));
        assertThat(all.exit()).as(all.output()).isZero();
        assertThat(all.output()).contains("All configs for broker " + node).contains("log.retention.ms=");

        Run alter = tool(CONFIGS, withBootstrap("--alter", "--entity-type", "brokers", "--entity-name", node,
                "--add-config", "log.cleaner.delete.retention.ms=3600000"));
        assertThat(alter.exit()).as(alter.output()).isZero();
        Run dynamic = tool(CONFIGS, withBootstrap("--describe", "--entity-type", "brokers", "--entity-name", node));
        assertThat(dynamic.output()).contains("log.cleaner.delete.retention.ms=3600000");

        Run undo = tool(CONFIGS, withBootstrap("--alter", "--entity-type", "brokers", "--entity-name", node,
                "--delete-config", "log.cleaner.delete.retention.ms"));
        assertThat(undo.exit()).as(undo.output()).isZero();
    }

    @Test
    void configsDescribeBrokerLoggersAndExplainWhyALevelCannotChange() throws Exception {
        Run levels = tool(CONFIGS, withBootstrap("--describe", "--entity-type", "broker-loggers", "--entity-name", node));
        assertThat(levels.exit()).as(levels.output()).isZero();
        assertThat(levels.output()).containsPattern("root=(TRACE|DEBUG|INFO|WARN|ERROR|OFF)");

        Run alter = tool(CONFIGS, withBootstrap("--alter", "--entity-type", "broker-loggers", "--entity-name", node,
                "--add-config", "root=INFO"));
        String external = System.getProperty("bootstrap.servers");
        if (external != null && !external.isBlank()) {
            // Kafka's log4j changes a level at run time; Brook's slf4j-simple cannot (KAFKA-DIFFERENCES.md)
            assertThat(alter.exit()).as(alter.output()).isZero();
            return;
        }
        assertThat(alter.exit()).as(alter.output()).isNotZero();
        assertThat(alter.output()).contains("Log levels cannot change at run time");
    }

    @Test
    void leaderElectionFindsNothingToElect() throws Exception {
        Run all = tool(LEADER_ELECTION, withBootstrap("--election-type", "preferred", "--all-topic-partitions"));
        assertThat(all.exit()).as(all.output()).isZero();
        Run one = tool(LEADER_ELECTION, withBootstrap("--election-type", "preferred", "--topic", topic,
                "--partition", "0"));
        assertThat(one.exit()).as(one.output()).isZero();
        assertThat(one.output()).contains("Valid replica already elected for partitions " + topic + "-0");
    }

    @Test
    void reassignPartitionsListsNone() throws Exception {
        Run r = tool(REASSIGN, withBootstrap("--list"));
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).contains("No partition reassignments found.");
    }

    @Test
    void reassignPartitionsWithLogDirsKeepsTheReplicaWhereItIs(@TempDir Path tmp) throws Exception {
        String dir;
        try (Admin admin = Groups.admin(cluster.bootstrapServers())) {
            TopicPartitionReplica replica = new TopicPartitionReplica(topic, 0, Integer.parseInt(node));
            dir = admin.describeReplicaLogDirs(List.of(replica)).all().get(30, TimeUnit.SECONDS).get(replica)
                    .getCurrentReplicaLogDir();
        }
        Path plan = tmp.resolve("plan.json");
        Files.writeString(plan, "{\"version\":1,\"partitions\":[{\"topic\":\"" + topic + "\",\"partition\":0,"
                + "\"replicas\":[" + node + "],\"log_dirs\":[\"" + dir.replace("\\", "\\\\") + "\"]}]}");
        Run execute = tool(REASSIGN, withBootstrap("--execute", "--reassignment-json-file", plan.toString()));
        assertThat(execute.exit()).as(execute.output()).isZero();
        assertThat(execute.output()).contains("Successfully started partition reassignment for " + topic + "-0")
                .contains("Successfully started moving log directory to " + dir + " for replica " + topic + "-0 with broker "
                        + node);
        Run verify = tool(REASSIGN, withBootstrap("--verify", "--reassignment-json-file", plan.toString()));
        assertThat(verify.exit()).as(verify.output()).isZero();
        assertThat(verify.output()).contains("Reassignment of partition " + topic + "-0 is completed.")
                .contains("Reassignment of replica " + topic + "-0-" + node + " completed successfully.");
    }

    @Test
    void metadataQuorumDescribesThisNodeAsItsLeader() throws Exception {
        Run r = tool(QUORUM, withBootstrap("describe", "--status"));
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).contains("LeaderId:               " + node).contains("HighWatermark:")
                .contains("CurrentVoters:          [{\"id\": " + node);
    }
}
