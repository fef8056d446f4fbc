package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cluster.metadata.ConfigResource;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.server.cluster.FakeQuorum;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.IncrementalAlterConfigsRequest;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterConfigsResource;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterableConfig;
import io.brook.wire.message.IncrementalAlterConfigsResponse;
import io.brook.wire.protocol.ApiKey;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two IncrementalAlterConfigs of one topic computed from the same image (the controller is slow,
 * so neither change is in the image when the other is computed, as on two nodes at once): both
 * take effect, the one that lost the race computed again from the newer image, instead of the
 * second replacing the overrides with a set that lacks the first's key.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class ClusterConfigRaceTest {

    private static final String TOPIC = "t";

    @TempDir
    Path dir;

    private final FakeQuorum quorum = new FakeQuorum();
    private Brook node;

    @AfterEach
    void stop() {
        quorum.release();
        if (node != null) {
            node.close();
        }
    }

    private static IncrementalAlterConfigsRequest set(String key, String value) {
        return new IncrementalAlterConfigsRequest().resources(List.of(new AlterConfigsResource()
                .resourceType((byte) 2).resourceName(TOPIC).configs(List.of(new AlterableConfig()
                        .name(key).configOperation((byte) 0).value(value)))));
    }

    @Test
    void twoChangesOfOneTopicFromTheSameImageBothTakeEffect() throws Exception {
        int voterPort = InJvmCluster.freePort();
        Map<String, String> c = new HashMap<>();
        c.put("process.roles", "broker,controller");
        c.put("node.id", "1");
        c.put("cluster.id", "fake-cluster");
        c.put("controller.quorum.voters", "1@127.0.0.1:" + voterPort);
        c.put("controller.listener.names", "CONTROLLER");
        c.put("listeners", "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:" + voterPort);
        node = Brook.builder().dataDir(dir).config(c).clusterMembers(quorum.members()).start();
        try (ProtocolClient first = new ProtocolClient(node.bootstrapServers());
             ProtocolClient second = new ProtocolClient(node.bootstrapServers())) {
            CreateTopicsResponse created = first.call(new CreateTopicsRequest().timeoutMs(10_000).topics(List.of(
                    new CreatableTopic().name(TOPIC).numPartitions(1).replicationFactor((short) 1))), (short) 7);
            assertThat(created.topics().get(0).errorCode()).isZero();

            quorum.hold();
            int a = first.send(set("retention.ms", "123456"), (short) 1);
            // the second change reaches the controller while the first one is not applied yet
            int b = second.send(set("max.message.bytes", "54321"), (short) 1);
            quorum.release();

            IncrementalAlterConfigsResponse ra = first.receive(ApiKey.INCREMENTAL_ALTER_CONFIGS, (short) 1, a);
            IncrementalAlterConfigsResponse rb = second.receive(ApiKey.INCREMENTAL_ALTER_CONFIGS, (short) 1, b);
            assertThat(ra.responses().get(0).errorCode()).isZero();
            assertThat(rb.responses().get(0).errorCode()).as(rb.responses().get(0).errorMessage()).isZero();
        }
        Map<String, String> stored = quorum.read(image -> new TreeMap<>(
                image.configs(new ConfigResource(MetadataRecord.RESOURCE_TOPIC, TOPIC))));
        assertThat(stored).containsEntry("retention.ms", "123456").containsEntry("max.message.bytes", "54321");
    }
}
