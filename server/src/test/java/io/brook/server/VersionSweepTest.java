package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.message.AlterConfigsRequest;
import io.brook.wire.message.AlterConfigsResponse;
import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.message.CreatePartitionsRequest;
import io.brook.wire.message.CreatePartitionsResponse;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.DeleteGroupsRequest;
import io.brook.wire.message.DeleteGroupsResponse;
import io.brook.wire.message.DeleteRecordsRequest;
import io.brook.wire.message.DeleteRecordsResponse;
import io.brook.wire.message.DeleteTopicsRequest;
import io.brook.wire.message.DeleteTopicsResponse;
import io.brook.wire.message.CreateDelegationTokenRequest;
import io.brook.wire.message.CreateDelegationTokenResponse;
import io.brook.wire.message.DescribeClusterRequest;
import io.brook.wire.message.DescribeClusterResponse;
import io.brook.wire.message.DescribeConfigsRequest;
import io.brook.wire.message.DescribeConfigsResponse;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.IncrementalAlterConfigsRequest;
import io.brook.wire.message.IncrementalAlterConfigsResponse;
import io.brook.wire.message.InitProducerIdRequest;
import io.brook.wire.message.InitProducerIdResponse;
import io.brook.wire.message.ListOffsetsRequest;
import io.brook.wire.message.ListOffsetsResponse;
import io.brook.wire.message.OffsetCommitRequest;
import io.brook.wire.message.OffsetCommitResponse;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.message.OffsetForLeaderEpochRequest;
import io.brook.wire.message.OffsetForLeaderEpochResponse;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every accepted version of every registered API, with answers that version can carry: a field
 * a version lacks must stay at its default, or the response cannot be encoded.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class VersionSweepTest {

    private Brook brook;
    private ProtocolClient c;
    /** Topic "s", for the versions that name topics by id. */
    private UUID topicId;

    @BeforeEach
    void start() throws Exception {
        brook = Brook.builder().start();
        c = new ProtocolClient(brook.bootstrapServers());
        CreateTopicsResponse r = c.call(new CreateTopicsRequest().topics(List.of(
                new CreatableTopic().name("s").numPartitions(1).replicationFactor((short) 1))), (short) 7);
        assertThat(r.topics().get(0).errorCode()).isZero();
        topicId = r.topics().get(0).topicId();
    }

    @AfterEach
    void stop() throws Exception {
        c.close();
        brook.close();
    }

    private ProduceRequest.TopicProduceData data(String value) {
        return new ProduceRequest.TopicProduceData().name("s").topicId(topicId).partitionData(List.of(
                new ProduceRequest.PartitionProduceData().index(0).records(BufferRecords.wrap(
                        new RecordBatchBuilder(Compression.NONE).append(1000L, null, value.getBytes()).build()))));
    }

    @Test
    void shouldAnswerEveryVersionOfTheDataApis() throws Exception {
        for (short v = 3; v <= 13; v++) {
            ProduceResponse r = c.call(new ProduceRequest().acks((short) -1).timeoutMs(5000)
                    .topicData(List.of(data("v" + v))), v);
            assertThat(r.responses().get(0).partitionResponses().get(0).errorCode()).as("produce v%d", v).isZero();
        }
        for (short v = 4; v <= 18; v++) {
            FetchResponse r = c.call(new FetchRequest().maxWaitMs(0).minBytes(1).maxBytes(1 << 20).sessionEpoch(-1)
                    .isolationLevel((byte) 1).topics(List.of(new FetchRequest.FetchTopic().topic("s").topicId(topicId)
                            .partitions(List.of(
                            new FetchRequest.FetchPartition().partition(0).fetchOffset(0).partitionMaxBytes(1 << 20))))), v);
            assertThat(r.responses().get(0).partitions().get(0).errorCode()).as("fetch v%d", v).isZero();
            assertThat(r.responses().get(0).partitions().get(0).records().sizeInBytes()).isPositive();
        }
        for (short v = 1; v <= 11; v++) {
            for (long ts : v >= 11 ? new long[] {-1, -2, 500, -6} : new long[] {-1, -2, 500}) {
                ListOffsetsResponse r = c.call(new ListOffsetsRequest().replicaId(-1).topics(List.of(
                        new ListOffsetsRequest.ListOffsetsTopic().name("s").partitions(List.of(
                                new ListOffsetsRequest.ListOffsetsPartition().partitionIndex(0).timestamp(ts))))), v);
                assertThat(r.topics().get(0).partitions().get(0).errorCode()).as("list offsets v%d", v).isZero();
                if (ts == -6) {
                    // earliest pending upload: nothing is tiered, answered as Kafka answers without tiered storage
                    assertThat(r.topics().get(0).partitions().get(0)).satisfies(p -> {
                        assertThat(p.offset()).isEqualTo(-1);
                        assertThat(p.timestamp()).isEqualTo(-1);
                        assertThat(p.leaderEpoch()).isEqualTo(-1);
                    });
                }
            }
        }
        for (short v = 2; v <= 4; v++) {
            OffsetForLeaderEpochResponse r = c.call(new OffsetForLeaderEpochRequest().topics(List.of(
                    new OffsetForLeaderEpochRequest.OffsetForLeaderTopic().topic("s").partitions(List.of(
                            new OffsetForLeaderEpochRequest.OffsetForLeaderPartition().partition(0).leaderEpoch(0))))), v);
            assertThat(r.topics().get(0).partitions().get(0).endOffset()).as("epoch v%d", v).isEqualTo(11);
        }
        for (short v = 0; v <= 2; v++) {
            DeleteRecordsResponse r = c.call(new DeleteRecordsRequest().timeoutMs(1000).topics(List.of(
                    new DeleteRecordsRequest.DeleteRecordsTopic().name("s").partitions(List.of(
                            new DeleteRecordsRequest.DeleteRecordsPartition().partitionIndex(0).offset(v))))), v);
            assertThat(r.topics().get(0).partitions().get(0).errorCode()).as("delete records v%d", v).isZero();
        }
        for (short v = 0; v <= 5; v++) {
            InitProducerIdResponse r = c.call(new InitProducerIdRequest().transactionalId(null), v);
            assertThat(r.errorCode()).as("init producer id v%d", v).isZero();
        }
    }

    @Test
    void shouldAnswerEveryVersionOfTheGroupOffsetApis() throws Exception {
        for (short v = 2; v <= 10; v++) {
            OffsetCommitResponse r = c.call(new OffsetCommitRequest().groupId("g" + v).generationIdOrMemberEpoch(-1)
                    .memberId("").topics(new ArrayList<>(List.of(new OffsetCommitRequest.OffsetCommitRequestTopic()
                            .name("s").topicId(topicId).partitions(new ArrayList<>(List.of(
                                    new OffsetCommitRequest.OffsetCommitRequestPartition().partitionIndex(0)
                                            .committedOffset(v).committedMetadata("m"))))))), v);
            assertThat(r.topics()).as("offset commit v%d", v).singleElement()
                    .satisfies(t -> assertThat(t.partitions().get(0).errorCode()).isZero());
        }
        for (short v = 1; v <= 10; v++) {
            String group = "g" + Math.max(v, 2);
            OffsetFetchRequest req = new OffsetFetchRequest().requireStable(v >= 7);
            if (v >= 8) {
                req.groups(List.of(new OffsetFetchRequest.OffsetFetchRequestGroup().groupId(group).topics(List.of(
                        new OffsetFetchRequest.OffsetFetchRequestTopics().name("s").topicId(topicId)
                                .partitionIndexes(List.of(0))))));
            } else {
                req.groupId(group).topics(List.of(new OffsetFetchRequest.OffsetFetchRequestTopic().name("s")
                        .partitionIndexes(List.of(0))));
            }
            OffsetFetchResponse r = c.call(req, v);
            long committed = v >= 8 ? r.groups().get(0).topics().get(0).partitions().get(0).committedOffset()
                    : r.topics().get(0).partitions().get(0).committedOffset();
            assertThat(committed).as("offset fetch v%d", v).isEqualTo(Math.max(v, 2));
        }
        for (short v = 0; v <= 3; v++) {
            DeleteGroupsResponse r = c.call(new DeleteGroupsRequest().groupsNames(List.of("g" + (v + 2))), v);
            assertThat(r.results().get(0).errorCode()).as("delete groups v%d", v).isZero();
        }
        for (short v = 0; v <= 5; v++) {
            ApiVersionsRequest req = new ApiVersionsRequest();
            if (v >= 3) {
                req.clientSoftwareName("sweep").clientSoftwareVersion("1");
            }
            if (v >= 5) {
                req.clusterId(brook.clusterId()).nodeId(1);
            }
            ApiVersionsResponse r = c.call(req, v);
            assertThat(r.errorCode()).as("api versions v%d", v).isZero();
        }
    }

    @Test
    void shouldAnswerEveryVersionOfTheAdminApis() throws Exception {
        for (short v = 2; v <= 7; v++) {
            String name = "c" + v;
            CreateTopicsResponse r = c.call(new CreateTopicsRequest().timeoutMs(1000).topics(List.of(
                    new CreatableTopic().name(name).numPartitions(1).replicationFactor((short) 1))), v);
            assertThat(r.topics().get(0).errorCode()).as("create v%d", v).isZero();
            CreatePartitionsResponse p = c.call(new CreatePartitionsRequest().timeoutMs(1000).topics(List.of(
                    new CreatePartitionsRequest.CreatePartitionsTopic().name(name).count(2).assignments(null))),
                    (short) Math.min(v - 2, 3));
            assertThat(p.results().get(0).errorCode()).as("create partitions v%d", v - 2).isZero();
        }
        for (short v = 1; v <= 6; v++) {
            String name = "c" + (v + 1);
            DeleteTopicsRequest req = new DeleteTopicsRequest().timeoutMs(1000);
            if (v >= 6) {
                req.topics(List.of(new DeleteTopicsRequest.DeleteTopicState().name(name).topicId(new UUID(0, 0))));
            } else {
                req.topicNames(List.of(name));
            }
            DeleteTopicsResponse r = c.call(req, v);
            assertThat(r.responses().get(0).errorCode()).as("delete v%d", v).isZero();
        }
        for (short v = 1; v <= 4; v++) {
            DescribeConfigsResponse r = c.call(new DescribeConfigsRequest().includeSynonyms(true).resources(List.of(
                    new DescribeConfigsRequest.DescribeConfigsResource().resourceType((byte) 2).resourceName("s")
                            .configurationKeys(null),
                    new DescribeConfigsRequest.DescribeConfigsResource().resourceType((byte) 4).resourceName("1")
                            .configurationKeys(null))), v);
            assertThat(r.results()).as("describe configs v%d", v).allSatisfy(x -> assertThat(x.errorCode()).isZero());
        }
        for (short v = 0; v <= 1; v++) {
            IncrementalAlterConfigsResponse r = c.call(new IncrementalAlterConfigsRequest().resources(List.of(
                    new IncrementalAlterConfigsRequest.AlterConfigsResource().resourceType((byte) 2).resourceName("s")
                            .configs(List.of(new IncrementalAlterConfigsRequest.AlterableConfig()
                                    .name("retention.ms").configOperation((byte) 0).value("60000"))))), v);
            assertThat(r.responses().get(0).errorCode()).as("incremental alter v%d", v).isZero();
        }
        for (short v = 0; v <= 2; v++) {
            AlterConfigsResponse r = c.call(new AlterConfigsRequest().resources(List.of(
                    new AlterConfigsRequest.AlterConfigsResource().resourceType((byte) 2).resourceName("s")
                            .configs(List.of(new AlterConfigsRequest.AlterableConfig().name("retention.ms")
                                    .value("70000"))))), v);
            assertThat(r.responses().get(0).errorCode()).as("alter v%d", v).isZero();
        }
        for (short v = 0; v <= 2; v++) {
            DescribeClusterResponse r = c.call(new DescribeClusterRequest(), v);
            assertThat(r.errorCode()).as("describe cluster v%d", v).isZero();
        }
    }

    /** A v1 or v2 answer has no place for the token's requester (v3+): over PLAINTEXT, the refusal. */
    @Test
    void shouldAnswerEveryVersionOfCreateDelegationToken() throws Exception {
        for (short v = 1; v <= 3; v++) {
            CreateDelegationTokenResponse r = c.call(new CreateDelegationTokenRequest().renewers(List.of())
                    .maxLifetimeMs(-1), v);
            assertThat(r.errorCode()).as("create token v%d", v).isEqualTo(Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code());
            assertThat(r.principalName()).as("create token v%d", v).isEqualTo("ANONYMOUS");
        }
    }
}
