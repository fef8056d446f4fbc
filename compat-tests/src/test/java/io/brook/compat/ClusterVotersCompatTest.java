package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.tools.ClusterTool;
import org.apache.kafka.tools.MetadataQuorumCommand;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Kafka 4.4's tools changing the voters of a Brook cluster of processes (docs/cluster.md, section
 * 6b): the three-node example and its broker-only node 4 ({@code node4.properties}), made a voter
 * with {@code kafka-metadata-quorum.sh add-controller} (from {@code node4-controller.properties},
 * the directory id read from node 4's meta.properties), described with {@code describe --status}
 * (node 4 listed with that directory id)
 * and {@code --replication}, made an observer again with {@code remove-controller}, stopped and
 * forgotten with {@code kafka-cluster.sh unregister}; each with its error case. Every tool is
 * pointed at a node that is not node 4 with {@code --bootstrap-server}.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ClusterVotersCompatTest {

    private static ProcessCluster cluster;
    private static Process four;

    @RegisterExtension
    final TestWatcher logsOnFailure = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            if (cluster != null) {
                System.err.println(context.getDisplayName() + " failed; the nodes' logs end with:\n"
                        + cluster.logTails(80) + "\n---- node 4\n" + ProcessCluster.tail(dir().resolve("node4.log"), 80));
            }
        }
    };

    @BeforeAll
    static void start() {
        String external = System.getProperty("bootstrap.servers");
        Assumptions.assumeTrue(external == null || external.isBlank(),
                "starts Brook nodes of its own: nothing to run against an external cluster");
        cluster = ProcessCluster.start("voters", 3, ProcessClusterExtension.OVERRIDES);
    }

    @AfterAll
    static void stop() {
        if (four != null) {
            four.destroyForcibly();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Path dir() {
        return cluster.log(1).getParent();
    }

    private static Properties example(String name) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(ProcessCluster.EXAMPLES.resolve(name), StandardCharsets.UTF_8)) {
            p.load(r);
        }
        return p;
    }

    private static Path write(String name, Properties p) throws IOException {
        Path file = dir().resolve(name);
        try (OutputStream out = Files.newOutputStream(file)) {
            p.store(out, name);
        }
        return file;
    }

    private static Tools.Result quorumTool(String... args) throws Exception {
        return Tools.kafkaTool(MetadataQuorumCommand.class, args);
    }

    private static List<Integer> ids(List<QuorumInfo.ReplicaState> replicas) {
        return replicas.stream().map(QuorumInfo.ReplicaState::replicaId).sorted().toList();
    }

    private static QuorumInfo quorum(Admin admin) {
        try {
            return admin.describeMetadataQuorum().quorumInfo().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            return null;
        }
    }

    @Test
    void theToolsAddAListenerAsAVoterRemoveItAndUnregisterItOnceStopped() throws Exception {
        // node 4 as docs/examples/cluster/node4.properties has it, on free ports, bootstrapping from the voters
        Properties node4 = example("node4.properties");
        String voters = Arrays.stream(cluster.properties(1).getProperty("controller.quorum.voters").split(","))
                .map(v -> v.substring(v.indexOf('@') + 1)).collect(Collectors.joining(","));
        String listeners = "PLAINTEXT://127.0.0.1:" + ProcessCluster.freePort() + ",CONTROLLER://127.0.0.1:"
                + ProcessCluster.freePort();
        Path data = dir().resolve("node4").resolve("data");
        node4.setProperty("controller.quorum.bootstrap.servers", voters);
        node4.setProperty("listeners", listeners);
        node4.setProperty("log.dirs", data.toString());
        node4.setProperty("brook.http.listener", "none");
        node4.putAll(ProcessClusterExtension.OVERRIDES);
        four = cluster.startExtra("node4", node4);
        String bootstrap = cluster.bootstrapServers(1);
        try (Admin admin = ProcessCluster.admin(bootstrap)) {
            Groups.await(Duration.ofSeconds(90), "node 4 registered and following the log", () -> {
                QuorumInfo q = quorum(admin);
                return ProcessCluster.brokerIds(admin).contains(4) && q != null && ids(q.observers()).contains(4);
            });

            Properties controller = example("node4-controller.properties");
            controller.setProperty("listeners", listeners);
            controller.setProperty("metadata.log.dir", data.resolve("meta").toString());
            Path commandConfig = write("node4-controller.properties", controller);
            Properties meta = new Properties();
            try (Reader r = Files.newBufferedReader(data.resolve("meta").resolve("meta.properties"))) {
                meta.load(r);
            }
            String directoryId = meta.getProperty("directory.id");

            Tools.Result added = quorumTool("--bootstrap-server", bootstrap, "--command-config",
                    commandConfig.toString(), "add-controller");
            assertThat(added.exit()).as(added.out() + added.err()).isZero();
            assertThat(added.out()).contains("Added controller 4 with directory id " + directoryId);
            Tools.Result again = quorumTool("--bootstrap-server", bootstrap, "--command-config",
                    commandConfig.toString(), "add-controller");
            assertThat(again.exit()).isNotZero();
            assertThat(again.out() + again.err()).containsAnyOf("DuplicateVoterException", "is a voter already");

            Tools.Result status = quorumTool("--bootstrap-server", cluster.bootstrapServers(2), "describe", "--status");
            assertThat(status.exit()).as(status.out() + status.err()).isZero();
            assertThat(status.out().lines().filter(l -> l.startsWith("CurrentVoters:")).findFirst().orElse(""))
                    .contains("\"id\": 1", "\"id\": 2", "\"id\": 3",
                            "\"id\": 4, \"directoryId\": \"" + directoryId + "\"");
            Tools.Result replication = quorumTool("--bootstrap-server", bootstrap, "describe", "--replication");
            assertThat(replication.exit()).as(replication.out() + replication.err()).isZero();
            assertThat(replication.out().lines().filter(l -> l.trim().startsWith("4 ")).toList())
                    .singleElement().satisfies(row -> assertThat(row.trim()).endsWith("Follower"));

            Tools.Result removed = quorumTool("--bootstrap-server", bootstrap, "remove-controller",
                    "--controller-id", "4", "--controller-directory-id", directoryId);
            assertThat(removed.exit()).as(removed.out() + removed.err()).isZero();
            assertThat(removed.out()).contains("Removed KRaft controller 4 with directory id " + directoryId);
            Tools.Result notAVoter = quorumTool("--bootstrap-server", bootstrap, "remove-controller",
                    "--controller-id", "4", "--controller-directory-id", directoryId);
            assertThat(notAVoter.exit()).isNotZero();
            assertThat(notAVoter.out() + notAVoter.err()).containsAnyOf("VoterNotFoundException", "is not a voter");
            Groups.await(Duration.ofSeconds(30), "node 4 an observer again", () -> {
                QuorumInfo q = quorum(admin);
                return q != null && ids(q.voters()).equals(List.of(1, 2, 3)) && ids(q.observers()).contains(4);
            });

            // a clean stop fences node 4 at once; with no partitions it leads nothing
            four.destroy();
            assertThat(four.waitFor(60, TimeUnit.SECONDS)).as("node 4 stops").isTrue();
            Tools.Result unregistered = Tools.kafkaTool(ClusterTool.class, "unregister", "--bootstrap-server",
                    bootstrap, "--id", "4");
            assertThat(unregistered.exit()).as(unregistered.out() + unregistered.err()).isZero();
            assertThat(unregistered.out()).contains("Broker 4 is no longer registered.");
            Tools.Result unknown = Tools.kafkaTool(ClusterTool.class, "unregister", "--bootstrap-server",
                    bootstrap, "--id", "4");
            assertThat(unknown.exit()).isNotZero();
            assertThat(unknown.out() + unknown.err()).containsAnyOf("BrokerIdNotRegisteredException", "is not currently registered");
        }
    }
}
