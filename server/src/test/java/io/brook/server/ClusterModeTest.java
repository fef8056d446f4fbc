package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.cluster.FakeQuorum;
import io.brook.testkit.Await;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.DeleteTopicsRequest;
import io.brook.wire.message.DeleteTopicsResponse;
import io.brook.wire.message.DescribeClusterRequest;
import io.brook.wire.message.DescribeClusterResponse;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchRequest.FetchPartition;
import io.brook.wire.message.FetchRequest.FetchTopic;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.IncrementalAlterConfigsRequest;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterConfigsResource;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterableConfig;
import io.brook.wire.message.IncrementalAlterConfigsResponse;
import io.brook.wire.message.InitProducerIdRequest;
import io.brook.wire.message.InitProducerIdResponse;
import io.brook.wire.message.ListOffsetsRequest;
import io.brook.wire.message.ListOffsetsRequest.ListOffsetsPartition;
import io.brook.wire.message.ListOffsetsRequest.ListOffsetsTopic;
import io.brook.wire.message.ListOffsetsResponse;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataRequest.MetadataRequestTopic;
import io.brook.wire.message.MetadataResponse;
import io.brook.wire.message.MetadataResponse.MetadataResponsePartition;
import io.brook.wire.message.MetadataResponse.MetadataResponseTopic;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.message.ProduceResponse.PartitionProduceResponse;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.RecordBatchBuilder;
import io.brook.wire.record.RecordBatches;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two brokers in cluster mode over an in-memory metadata quorum ({@link FakeQuorum}: the real
 * controller, no Raft): what each answers from the metadata image. Ownership: a partition led by
 * the other node is answered NOT_LEADER_OR_FOLLOWER with a KIP-951 hint naming the leader's
 * endpoint; leader epochs from the image decide FENCED_LEADER_EPOCH and UNKNOWN_LEADER_EPOCH.
 * Metadata and DescribeCluster list both brokers with racks and the controller; a partition of a
 * fenced broker is LEADER_NOT_AVAILABLE. The local topics mirror the image: logs only where this
 * node holds a replica, none left after a deletion.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterModeTest {

    private static final String TOPIC = "t";

    @TempDir
    Path dirs;

    private final FakeQuorum quorum = new FakeQuorum();
    private final List<Brook> nodes = new ArrayList<>();
    private UUID topicId;

    @BeforeEach
    void start() throws Exception {
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
            c.put("broker.rack", "rack-" + (i + 1));
            nodes.add(Brook.builder().dataDir(dirs.resolve("node" + (i + 1))).config(c)
                    .clusterMembers(quorum.members()).start());
        }
        try (ProtocolClient c = new ProtocolClient(nodes.get(0).bootstrapServers())) {
            CreateTopicsResponse r = c.call(new CreateTopicsRequest().timeoutMs(10_000).topics(List.of(
                    new CreatableTopic().name(TOPIC).numPartitions(4).replicationFactor((short) 1))), (short) 7);
            assertThat(r.topics().get(0).errorCode()).isZero();
            topicId = r.topics().get(0).topicId();
        }
        // the node asked answers once it has the topic; the other applies it on its own thread
        for (Brook node : nodes) {
            try (ProtocolClient c = new ProtocolClient(node.bootstrapServers())) {
                Await.until("the topic on every node", () -> {
                    try {
                        return node.topics().get(TOPIC) != null && metadata(c).topics().get(0).errorCode() == 0;
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
            }
        }
    }

    @AfterEach
    void stop() {
        nodes.forEach(Brook::close);
    }

    private static MetadataResponse metadata(ProtocolClient c) throws Exception {
        return c.call(new MetadataRequest().topics(List.of(new MetadataRequestTopic().name(TOPIC)))
                .allowAutoTopicCreation(false), (short) 12);
    }

    /** The partitions of {@link #TOPIC} node {@code id} leads. */
    private List<Integer> ledBy(int id) throws Exception {
        List<Integer> out = new ArrayList<>();
        try (ProtocolClient c = new ProtocolClient(nodes.get(0).bootstrapServers())) {
            for (MetadataResponsePartition p : metadata(c).topics().get(0).partitions()) {
                if (p.leaderId() == id) {
                    out.add(p.partitionIndex());
                }
            }
        }
        return out;
    }

    private static ProduceRequest produce(int partition) {
        return new ProduceRequest().acks((short) -1).timeoutMs(10_000).topicData(List.of(
                new TopicProduceData().name(TOPIC).partitionData(List.of(new PartitionProduceData().index(partition)
                        .records(BufferRecords.wrap(new RecordBatchBuilder(Compression.NONE)
                                .append(1000L, null, "x".getBytes()).build()))))));
    }

    private FetchRequest fetch(int partition, int currentLeaderEpoch) {
        return new FetchRequest().maxWaitMs(0).minBytes(0).maxBytes(1 << 20).sessionEpoch(-1)
                .topics(List.of(new FetchTopic().topicId(topicId).partitions(List.of(new FetchPartition()
                        .partition(partition).fetchOffset(0).currentLeaderEpoch(currentLeaderEpoch)
                        .partitionMaxBytes(1 << 20)))));
    }

    @Test
    void bothNodesDescribeTheClusterFromTheImage() throws Exception {
        for (Brook node : nodes) {
            try (ProtocolClient c = new ProtocolClient(node.bootstrapServers())) {
                MetadataResponse m = metadata(c);
                assertThat(m.controllerId()).isEqualTo(1);
                assertThat(m.clusterId()).isEqualTo("fake-cluster");
                assertThat(m.brokers()).extracting(b -> b.nodeId() + "@" + b.host() + ":" + b.port() + "/" + b.rack())
                        .containsExactly("1@" + nodes.get(0).bootstrapServers() + "/rack-1",
                                "2@" + nodes.get(1).bootstrapServers() + "/rack-2");
                MetadataResponseTopic t = m.topics().get(0);
                assertThat(t.errorCode()).isZero();
                assertThat(t.partitions()).hasSize(4);
                for (MetadataResponsePartition p : t.partitions()) {
                    assertThat(p.errorCode()).isZero();
                    assertThat(p.replicaNodes()).containsExactly(p.leaderId());
                    assertThat(p.isrNodes()).containsExactly(p.leaderId());
                    assertThat(p.leaderEpoch()).isZero();
                }
                DescribeClusterResponse d = c.call(new DescribeClusterRequest(), (short) 1);
                assertThat(d.controllerId()).isEqualTo(1);
                assertThat(d.brokers()).extracting(b -> b.brokerId()).containsExactly(1, 2);
            }
        }
        assertThat(ledBy(1)).hasSize(2);
        assertThat(ledBy(2)).hasSize(2);
    }

    @Test
    void logsExistOnlyWhereTheImagePutsReplicasAndGoWithTheTopic() throws Exception {
        for (int id = 1; id <= 2; id++) {
            Brook node = nodes.get(id - 1);
            List<Integer> mine = ledBy(id);
            Await.until("node's logs mirror the image", () -> {
                for (int p = 0; p < 4; p++) {
                    if ((node.topics().log(TOPIC, p) != null) != mine.contains(p)) {
                        return false;
                    }
                }
                return node.topics().get(TOPIC) != null && node.topics().get(TOPIC).partitions() == 4;
            });
        }
        try (ProtocolClient c = new ProtocolClient(nodes.get(1).bootstrapServers())) {
            DeleteTopicsResponse r = c.call(new DeleteTopicsRequest().topicNames(List.of(TOPIC)).timeoutMs(10_000),
                    (short) 4);
            assertThat(r.responses().get(0).errorCode()).isZero();
        }
        for (Brook node : nodes) {
            Await.until("the topic and its logs are gone", () -> node.topics().get(TOPIC) == null
                    && node.topics().log(TOPIC, 0) == null && node.topics().log(TOPIC, 1) == null
                    && node.topics().log(TOPIC, 2) == null && node.topics().log(TOPIC, 3) == null);
        }
    }

    @Test
    void aPartitionOfTheOtherNodeIsAnsweredNotLeaderWithAHintToTheLeader() throws Exception {
        int mine = ledBy(1).get(0);
        int theirs = ledBy(2).get(0);
        try (ProtocolClient c = new ProtocolClient(nodes.get(0).bootstrapServers())) {
            ProduceResponse ok = c.call(produce(mine), (short) 10);
            assertThat(ok.responses().get(0).partitionResponses().get(0).errorCode()).isZero();

            ProduceResponse r = c.call(produce(theirs), (short) 10);
            PartitionProduceResponse p = r.responses().get(0).partitionResponses().get(0);
            assertThat(p.errorCode()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
            assertThat(p.currentLeader().leaderId()).isEqualTo(2);
            assertThat(p.currentLeader().leaderEpoch()).isZero();
            assertThat(r.nodeEndpoints()).extracting(e -> e.nodeId() + "@" + e.host() + ":" + e.port() + "/" + e.rack())
                    .containsExactly("2@" + nodes.get(1).bootstrapServers() + "/rack-2");

            FetchResponse f = c.call(fetch(theirs, -1), (short) 16);
            assertThat(f.responses().get(0).partitions().get(0).errorCode())
                    .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
            assertThat(f.responses().get(0).partitions().get(0).currentLeader().leaderId()).isEqualTo(2);
            assertThat(f.nodeEndpoints()).extracting(e -> e.nodeId()).containsExactly(2);

            ListOffsetsResponse l = c.call(new ListOffsetsRequest().replicaId(-1).topics(List.of(new ListOffsetsTopic()
                    .name(TOPIC).partitions(List.of(new ListOffsetsPartition().partitionIndex(theirs)
                            .timestamp(-1).currentLeaderEpoch(-1))))), (short) 4);
            assertThat(l.topics().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
        }
        try (ProtocolClient c = new ProtocolClient(nodes.get(1).bootstrapServers())) {
            ProduceResponse r = c.call(produce(theirs), (short) 10);
            assertThat(r.responses().get(0).partitionResponses().get(0).errorCode()).isZero();
        }
    }

    @Test
    void leaderEpochsComeFromTheImage() throws Exception {
        int theirs = ledBy(2).get(0);
        // node 2 fenced and back: each of its partitions went leaderless and back, leader epoch 0 -> 1 -> 2
        quorum.fence(2);
        try (ProtocolClient c = new ProtocolClient(nodes.get(0).bootstrapServers())) {
            Await.until("node 2's partitions without a leader", () -> {
                try {
                    MetadataResponse m = metadata(c);
                    MetadataResponsePartition p = m.topics().get(0).partitions().get(theirs);
                    return p.errorCode() == Errors.LEADER_NOT_AVAILABLE.code() && p.leaderId() == -1
                            && p.offlineReplicas().equals(List.of(2)) && m.brokers().size() == 1;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
        }
        quorum.unfence(2);
        try (ProtocolClient c = new ProtocolClient(nodes.get(1).bootstrapServers())) {
            Await.until("node 2 leads again at epoch 2", () -> {
                try {
                    MetadataResponsePartition p = metadata(c).topics().get(0).partitions().get(theirs);
                    return p.leaderId() == 2 && p.leaderEpoch() == 2;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            // the leader stamps what it appends with its leader epoch
            assertThat(c.<ProduceResponse>call(produce(theirs), (short) 10).responses().get(0).partitionResponses()
                    .get(0).errorCode()).isZero();
            FetchResponse.PartitionData data = c.<FetchResponse>call(fetch(theirs, 2), (short) 16).responses().get(0)
                    .partitions().get(0);
            assertThat(data.errorCode()).isZero();
            RecordBatch batch = new RecordBatches().wrap(((BufferRecords) data.records()).buffer()).next();
            assertThat(batch.partitionLeaderEpoch()).isEqualTo(2);
            assertThat(c.<FetchResponse>call(fetch(theirs, 1), (short) 16).responses().get(0).partitions().get(0)
                    .errorCode()).isEqualTo(Errors.FENCED_LEADER_EPOCH.code());
            assertThat(c.<FetchResponse>call(fetch(theirs, 3), (short) 16).responses().get(0).partitions().get(0)
                    .errorCode()).isEqualTo(Errors.UNKNOWN_LEADER_EPOCH.code());
        }
    }

    @Test
    void topicConfigsChangeThroughTheControllerAndReachEveryNode() throws Exception {
        try (ProtocolClient c = new ProtocolClient(nodes.get(0).bootstrapServers())) {
            IncrementalAlterConfigsResponse r = c.call(new IncrementalAlterConfigsRequest().resources(List.of(
                    new AlterConfigsResource().resourceType((byte) 2).resourceName(TOPIC).configs(List.of(
                            new AlterableConfig().name("retention.ms").configOperation((byte) 0).value("12345"))))),
                    (short) 1);
            assertThat(r.responses().get(0).errorCode()).isZero();
        }
        for (Brook node : nodes) {
            Await.until("the override mirrored", () -> "12345".equals(node.topics().get(TOPIC).configs().get("retention.ms")));
        }
    }

    @Test
    void producerIdsComeFromTheControllersBlocks() throws Exception {
        long[] ids = new long[2];
        for (int i = 0; i < 2; i++) {
            try (ProtocolClient c = new ProtocolClient(nodes.get(i).bootstrapServers())) {
                InitProducerIdResponse r = c.call(new InitProducerIdRequest().transactionalId(null)
                        .transactionTimeoutMs(60_000).producerId(-1).producerEpoch((short) -1), (short) 4);
                assertThat(r.errorCode()).isZero();
                ids[i] = r.producerId();
            }
        }
        // one block of 1000 each, recorded in the image before it was handed out
        assertThat(ids[0] / 1000).isNotEqualTo(ids[1] / 1000);
        long next = quorum.read(image -> image.nextProducerId());
        assertThat(next).isEqualTo(2000);
    }

    @Test
    void metadataAutoCreatesThroughTheController() throws Exception {
        try (ProtocolClient c = new ProtocolClient(nodes.get(1).bootstrapServers())) {
            MetadataRequest ask = new MetadataRequest().topics(List.of(new MetadataRequestTopic().name("auto")))
                    .allowAutoTopicCreation(true);
            MetadataResponse first = c.call(ask, (short) 12);
            assertThat(first.topics().get(0).errorCode()).isIn(Errors.LEADER_NOT_AVAILABLE.code(), Errors.NONE.code());
            Await.until("the auto-created topic in every node's answer", () -> {
                for (Brook node : nodes) {
                    try (ProtocolClient n = new ProtocolClient(node.bootstrapServers())) {
                        MetadataResponseTopic t = n.<MetadataResponse>call(ask, (short) 12).topics().get(0);
                        if (t.errorCode() != 0 || t.partitions().size() != 1) {
                            return false;
                        }
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                }
                return true;
            });
        }
    }
}
