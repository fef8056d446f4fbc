package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.cluster.FakeQuorum;
import io.brook.wire.message.AlterClientQuotasRequest;
import io.brook.wire.message.AlterClientQuotasRequest.EntityData;
import io.brook.wire.message.AlterClientQuotasRequest.EntryData;
import io.brook.wire.message.AlterClientQuotasRequest.OpData;
import io.brook.wire.message.AlterClientQuotasResponse;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.CreateTopicsResponse.CreatableTopicResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code controller_mutation_rate} in cluster mode (two nodes over an in-memory metadata quorum):
 * the quota set through one node holds on both (the metadata log keeps it), and the node a
 * CreateTopics request arrives at charges it to a bucket of its own, before the controller
 * creates the topics.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterMutationRateTest {

    @TempDir
    Path dirs;

    private final FakeQuorum quorum = new FakeQuorum();
    private final List<Brook> nodes = new ArrayList<>();

    @BeforeEach
    void start() {
        int[] voterPorts = {InJvmCluster.freePort(), InJvmCluster.freePort()};
        String voters = "1@127.0.0.1:" + voterPorts[0] + ",2@127.0.0.1:" + voterPorts[1];
        for (int i = 0; i < 2; i++) {
            Map<String, String> c = new HashMap<>();
            c.put("process.roles", "broker,controller");
            c.put("node.id", Integer.toString(i + 1));
            c.put("cluster.id", "fake-cluster");
            c.put("controller.quorum.voters", voters);
            c.put("controller.listener.names", "CONTROLLER");
            c.put("listeners", "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:" + voterPorts[i]);
            nodes.add(Brook.builder().dataDir(dirs.resolve("node" + (i + 1))).config(c)
                    .clusterMembers(quorum.members()).start());
        }
    }

    @AfterEach
    void stop() {
        nodes.forEach(Brook::close);
    }

    private static CreateTopicsRequest create(String... nameAndPartitions) {
        List<CreatableTopic> topics = new ArrayList<>();
        for (int i = 0; i < nameAndPartitions.length; i += 2) {
            topics.add(new CreatableTopic().name(nameAndPartitions[i])
                    .numPartitions(Integer.parseInt(nameAndPartitions[i + 1])).replicationFactor((short) 1));
        }
        return new CreateTopicsRequest().timeoutMs(30_000).topics(topics);
    }

    @Test
    void theNodeAskedChargesTheRequestToItsOwnBucketOfTheClustersQuota() throws Exception {
        try (ProtocolClient first = new ProtocolClient(nodes.get(0).bootstrapServers());
                ProtocolClient second = new ProtocolClient(nodes.get(1).bootstrapServers())) {
            // the protocol client's id, set through node 1: 1 mutation/s, a burst of 11
            AlterClientQuotasResponse set = first.call(new AlterClientQuotasRequest().entries(List.of(new EntryData()
                    .entity(List.of(new EntityData().entityType("client-id").entityName("brook-test")))
                    .ops(List.of(new OpData().key("controller_mutation_rate").value(1.0))))), (short) 1);
            assertThat(set.entries().get(0).errorCode()).isZero();

            // 11 → 3 → -1, then refused
            CreateTopicsResponse r = first.call(create("a", "8", "b", "4", "c", "1"), (short) 7);
            assertThat(r.topics()).extracting(CreatableTopicResult::errorCode)
                    .containsExactly((short) 0, (short) 0, (short) 89);
            assertThat(r.topics().get(0).topicId()).as("created by the controller").isNotNull();
            assertThat(r.throttleTimeMs()).as("1 mutation at 1/s, less the time since").isBetween(1, 1000);
            assertThat(nodes.get(0).topics().get("c")).isNull();

            // node 2 has the quota too (the cluster's metadata keeps it), and a bucket of its own: 11 → 10 → -10
            CreateTopicsResponse elsewhere = second.call(create("c", "1", "d", "20"), (short) 7);
            assertThat(elsewhere.topics()).extracting(CreatableTopicResult::errorCode)
                    .containsExactly((short) 0, (short) 0);
            assertThat(elsewhere.throttleTimeMs()).as("nothing refused yet").isZero();
            CreateTopicsResponse refused = second.call(create("e", "1"), (short) 7);
            assertThat(refused.topics()).extracting(CreatableTopicResult::errorCode).containsExactly((short) 89);
            assertThat(refused.throttleTimeMs()).as("10 mutations at 1/s").isBetween(9_000, 10_000);
        }
    }
}
