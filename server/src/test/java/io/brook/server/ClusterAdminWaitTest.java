package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.cluster.FakeQuorum;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.IncrementalAlterConfigsRequest;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterConfigsResource;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterableConfig;
import io.brook.wire.message.IncrementalAlterConfigsResponse;
import io.brook.wire.message.InitProducerIdRequest;
import io.brook.wire.message.InitProducerIdResponse;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admin requests that wait for a slow controller hold no I/O-pool thread: with two I/O threads,
 * no inline Produce, and many config changes and producer-id requests waiting for the
 * controller, a Produce is still answered at once.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class ClusterAdminWaitTest {

    private static final String TOPIC = "t";

    @TempDir
    Path dir;

    private final FakeQuorum quorum = new FakeQuorum();
    private Brook node;
    private final List<ProtocolClient> clients = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        quorum.release();
        for (ProtocolClient c : clients) {
            c.close();
        }
        if (node != null) {
            node.close();
        }
    }

    private void start() throws Exception {
        int voterPort = InJvmCluster.freePort();
        Map<String, String> c = new HashMap<>();
        c.put("process.roles", "broker,controller");
        c.put("node.id", "1");
        c.put("cluster.id", "fake-cluster");
        c.put("controller.quorum.voters", "1@127.0.0.1:" + voterPort);
        c.put("controller.listener.names", "CONTROLLER");
        c.put("listeners", "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:" + voterPort);
        c.put("num.io.threads", "2");
        c.put("brook.network.inline.requests", "false");
        node = Brook.builder().dataDir(dir).config(c).clusterMembers(quorum.members()).start();
        try (ProtocolClient client = new ProtocolClient(node.bootstrapServers())) {
            CreateTopicsResponse r = client.call(new CreateTopicsRequest().timeoutMs(10_000).topics(List.of(
                    new CreatableTopic().name(TOPIC).numPartitions(1).replicationFactor((short) 1))), (short) 7);
            assertThat(r.topics().get(0).errorCode()).isZero();
        }
    }

    private ProtocolClient client() throws Exception {
        ProtocolClient c = new ProtocolClient(node.bootstrapServers());
        clients.add(c);
        return c;
    }

    private static IncrementalAlterConfigsRequest setRetention(int i) {
        return new IncrementalAlterConfigsRequest().resources(List.of(new AlterConfigsResource()
                .resourceType((byte) 2).resourceName(TOPIC).configs(List.of(new AlterableConfig()
                        .name("retention.ms").configOperation((byte) 0).value(Integer.toString(100_000 + i))))));
    }

    @Test
    void produceIsAnsweredWhileConfigChangesAndProducerIdsWaitForASlowController() throws Exception {
        start();
        quorum.hold();
        int[] configCalls = new int[6];
        List<ProtocolClient> waiting = new ArrayList<>();
        for (int i = 0; i < configCalls.length; i++) {
            ProtocolClient c = client();
            configCalls[i] = c.send(setRetention(i), (short) 1);
            waiting.add(c);
        }
        int[] idCalls = new int[4];
        List<ProtocolClient> waitingForIds = new ArrayList<>();
        for (int i = 0; i < idCalls.length; i++) {
            ProtocolClient c = client();
            idCalls[i] = c.send(new InitProducerIdRequest().transactionalId(null).transactionTimeoutMs(60_000)
                    .producerId(-1).producerEpoch((short) -1), (short) 4);
            waitingForIds.add(c);
        }

        ProduceResponse produced = client().call(new ProduceRequest().acks((short) -1).timeoutMs(10_000)
                .topicData(List.of(new TopicProduceData().name(TOPIC).partitionData(List.of(new PartitionProduceData()
                        .index(0).records(BufferRecords.wrap(new RecordBatchBuilder(Compression.NONE)
                                .append(1000L, null, "x".getBytes()).build())))))), (short) 9);
        assertThat(produced.responses().get(0).partitionResponses().get(0).errorCode()).isZero();

        quorum.release();
        for (int i = 0; i < configCalls.length; i++) {
            IncrementalAlterConfigsResponse r = waiting.get(i).receive(ApiKey.INCREMENTAL_ALTER_CONFIGS, (short) 1,
                    configCalls[i]);
            assertThat(r.responses().get(0).errorCode()).isZero();
        }
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < idCalls.length; i++) {
            InitProducerIdResponse r = waitingForIds.get(i).receive(ApiKey.INIT_PRODUCER_ID, (short) 4, idCalls[i]);
            assertThat(r.errorCode()).isZero();
            ids.add(r.producerId());
        }
        // one block shared by the requests that waited for it
        assertThat(ids).doesNotHaveDuplicates().allMatch(id -> id >= 0 && id < 1000);
        long nextBlock = quorum.read(image -> image.nextProducerId());
        assertThat(nextBlock).isEqualTo(1000);
    }
}
