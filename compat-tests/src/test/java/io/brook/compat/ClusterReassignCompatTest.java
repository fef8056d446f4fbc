package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kafka-reassign-partitions.sh} against three Brook processes ({@link ProcessCluster}, the
 * example of docs/cluster.md): {@code --execute} records a move of a partition to another node,
 * {@code --list} and {@code --verify} show it under way (Brook does not copy partitions between
 * nodes yet, so the move stays under way and the old leader keeps serving), {@code --cancel}
 * returns the partition to its original node. Skipped against an external cluster.
 *
 * <p>{@code --throttle} sets the replication throttles ({@code leader.replication.throttled.rate}
 * and {@code follower.replication.throttled.rate} on the brokers of the move, {@code
 * *.replication.throttled.replicas} on its topic), and the tool's clean-up after a cancel or a
 * completed move deletes them, as with Kafka.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ClusterReassignCompatTest {

    private static final String REASSIGN = org.apache.kafka.tools.reassign.ReassignPartitionsCommand.class.getName();

    @RegisterExtension
    static final ProcessClusterExtension NODES = new ProcessClusterExtension("reassign");

    private static ProcessCluster cluster;

    @TempDir
    Path dir;

    @BeforeAll
    static void cluster() {
        cluster = NODES.cluster();
    }

    private static CliToolsCompatTest.Run reassign(String... args) throws Exception {
        String[] all = new String[args.length + 2];
        all[0] = "--bootstrap-server";
        all[1] = cluster.bootstrapServers();
        System.arraycopy(args, 0, all, 2, args.length);
        return CliToolsCompatTest.tool(REASSIGN, all);
    }

    @Test
    void executeListVerifyAndCancelAMove() throws Exception {
        cluster.awaitAllServing(Duration.ofSeconds(60));
        String topic = Groups.unique("moved");
        int old;
        try (Admin admin = ProcessCluster.admin(cluster.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            old = Groups.awaitTopic(admin, topic, 1).partitions().get(0).leader().id();
        }
        int target = old % 3 + 1;
        Path plan = dir.resolve("plan.json");
        Files.writeString(plan, "{\"version\":1,\"partitions\":[{\"topic\":\"" + topic + "\",\"partition\":0,"
                + "\"replicas\":[" + target + "]}]}", StandardCharsets.UTF_8);

        CliToolsCompatTest.Run execute = reassign("--execute", "--throttle", "10000000", "--reassignment-json-file",
                plan.toString());
        assertThat(execute.exit()).as(execute.output()).isZero();
        assertThat(execute.output()).contains("Successfully started partition reassignment for " + topic + "-0")
                .contains("The inter-broker throttle limit was set to 10000000 B/s");
        try (Admin admin = ProcessCluster.admin(cluster.bootstrapServers())) {
            ConfigResource t = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config configs = admin.describeConfigs(List.of(t)).all().get(30, TimeUnit.SECONDS).get(t);
            assertThat(configs.get("leader.replication.throttled.replicas").value()).isEqualTo("0:" + old);
            assertThat(configs.get("follower.replication.throttled.replicas").value()).isEqualTo("0:" + target);
            ConfigResource b = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(target));
            assertThat(admin.describeConfigs(List.of(b)).all().get(30, TimeUnit.SECONDS).get(b)
                    .get("follower.replication.throttled.rate").value()).isEqualTo("10000000");
        }

        CliToolsCompatTest.Run list = reassign("--list");
        assertThat(list.exit()).as(list.output()).isZero();
        assertThat(list.output()).contains(topic + "-0: replicas: " + target + "," + old + ". adding: " + target
                + ". removing: " + old + ".");
        CliToolsCompatTest.Run verify = reassign("--verify", "--reassignment-json-file", plan.toString());
        assertThat(verify.output()).contains("Reassignment of partition " + topic + "-0 is still in progress.");
        List<String> written = Groups.produce(cluster.bootstrapServers(), topic, 1, 5);
        assertThat(Groups.readValues(cluster.bootstrapServers(), topic, 1, false)).containsExactlyElementsOf(written);

        // the cancel deletes the throttles
        CliToolsCompatTest.Run cancel = reassign("--cancel", "--reassignment-json-file", plan.toString());
        assertThat(cancel.exit()).as(cancel.output()).isZero();
        assertThat(cancel.output()).contains("Successfully cancelled partition reassignment for: " + topic + "-0");
        CliToolsCompatTest.Run none = reassign("--list");
        assertThat(none.output()).contains("No partition reassignments found.");
        CliToolsCompatTest.Run after = reassign("--verify", "--reassignment-json-file", plan.toString());
        assertThat(after.exit()).as(after.output()).isZero();
        assertThat(after.output()).contains("There is no active reassignment of partition " + topic + "-0, but replica"
                + " set is " + old + " rather than " + target + ".");
    }

    @Test
    void aThrottledMoveThatAddsNoReplicaCompletesAndVerifyRemovesTheThrottles() throws Exception {
        cluster.awaitAllServing(Duration.ofSeconds(60));
        String topic = Groups.unique("stays");
        int leader;
        try (Admin admin = ProcessCluster.admin(cluster.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            leader = Groups.awaitTopic(admin, topic, 1).partitions().get(0).leader().id();
        }
        Path plan = dir.resolve("same.json");
        Files.writeString(plan, "{\"version\":1,\"partitions\":[{\"topic\":\"" + topic + "\",\"partition\":0,"
                + "\"replicas\":[" + leader + "]}]}", StandardCharsets.UTF_8);

        CliToolsCompatTest.Run execute = reassign("--execute", "--throttle", "5000000", "--reassignment-json-file",
                plan.toString());
        assertThat(execute.exit()).as(execute.output()).isZero();
        CliToolsCompatTest.Run verify = reassign("--verify", "--reassignment-json-file", plan.toString());
        assertThat(verify.exit()).as(verify.output()).isZero();
        assertThat(verify.output()).contains("Reassignment of partition " + topic + "-0 is completed.")
                .contains("Clearing broker-level throttles on brokers");
        try (Admin admin = ProcessCluster.admin(cluster.bootstrapServers())) {
            ConfigResource b = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(leader));
            Config configs = admin.describeConfigs(List.of(b)).all().get(30, TimeUnit.SECONDS).get(b);
            assertThat(configs.get("leader.replication.throttled.rate").value()).isEqualTo(Long.toString(Long.MAX_VALUE));
            assertThat(configs.get("leader.replication.throttled.rate").source())
                    .isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        }
    }
}
