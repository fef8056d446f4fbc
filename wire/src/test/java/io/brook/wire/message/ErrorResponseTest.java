package io.brook.wire.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.ApiRequest;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * The generated {@code errorResponse} of every request the broker serves, pinned to the response
 * the broker has always sent when it fails a request as a whole: every topic, partition, group or
 * resource the request named, the error code at every level that has one, a null error message
 * where the field may be null (the client then shows its error's own text), -1 for offsets,
 * watermarks and epochs. The expected responses are written out here field by field and compared
 * with the generated ones as encoded bytes, at each version a broker serves today.
 */
class ErrorResponseTest {

    private static final UUID ID_A = new UUID(1, 2);
    private static final UUID ID_B = new UUID(3, 4);
    private static final UUID ZERO = new UUID(0, 0);
    private static final List<Errors> ERRORS = List.of(Errors.UNKNOWN_SERVER_ERROR, Errors.NOT_COORDINATOR,
            Errors.UNSUPPORTED_VERSION);

    private static byte[] bytes(ApiMessage m, short version) {
        ByteBuffer buf = m.toByteBuffer(version);
        byte[] b = new byte[buf.remaining()];
        buf.get(b);
        return b;
    }

    /** For each version from..to and each error: the generated response encodes like the expected one. */
    private static void assertMirrors(ApiRequest request, int from, int to, BiFunction<Short, Errors, ApiMessage> expected) {
        for (short v = (short) from; v <= to; v++) {
            for (Errors error : ERRORS) {
                ApiMessage ours = request.errorResponse(v, error);
                ApiMessage want = expected.apply(v, error);
                assertThat(ours.apiKey()).isEqualTo(request.apiKey());
                assertThat(bytes(ours, v)).as("%s v%d %s\n  ours: %s\n  want: %s", request.apiKey(), v, error, ours, want)
                        .isEqualTo(bytes(want, v));
            }
        }
    }

    private static <T> List<T> list(T... elements) {
        return new ArrayList<>(Arrays.asList(elements));
    }

    @Test
    void produce() {
        ProduceRequest request = new ProduceRequest().topicData(list(
                new ProduceRequest.TopicProduceData().name("a").topicId(ID_A).partitionData(list(
                        new ProduceRequest.PartitionProduceData().index(0),
                        new ProduceRequest.PartitionProduceData().index(3))),
                new ProduceRequest.TopicProduceData().name("b").partitionData(list(
                        new ProduceRequest.PartitionProduceData().index(1)))));
        assertMirrors(request, 3, 12, (v, e) -> {
            List<ProduceResponse.TopicProduceResponse> topics = new ArrayList<>();
            for (ProduceRequest.TopicProduceData t : request.topicData()) {
                List<ProduceResponse.PartitionProduceResponse> parts = new ArrayList<>();
                for (ProduceRequest.PartitionProduceData p : t.partitionData()) {
                    parts.add(new ProduceResponse.PartitionProduceResponse().index(p.index()).errorCode(e.code())
                            .baseOffset(-1).logAppendTimeMs(-1).logStartOffset(-1));
                }
                topics.add(new ProduceResponse.TopicProduceResponse().name(t.name()).partitionResponses(parts));
            }
            return new ProduceResponse().responses(topics);
        });
    }

    @Test
    void fetch() {
        FetchRequest request = new FetchRequest().topics(list(
                new FetchRequest.FetchTopic().topic("a").topicId(ID_A).partitions(list(
                        new FetchRequest.FetchPartition().partition(0), new FetchRequest.FetchPartition().partition(2))),
                new FetchRequest.FetchTopic().topic("b").partitions(list(new FetchRequest.FetchPartition().partition(1)))));
        assertMirrors(request, 4, 12, (v, e) -> {
            List<FetchResponse.FetchableTopicResponse> topics = new ArrayList<>();
            for (FetchRequest.FetchTopic t : request.topics()) {
                List<FetchResponse.PartitionData> parts = new ArrayList<>();
                for (FetchRequest.FetchPartition p : t.partitions()) {
                    parts.add(new FetchResponse.PartitionData().partitionIndex(p.partition()).records(BufferRecords.EMPTY)
                            .errorCode(e.code()).highWatermark(-1).lastStableOffset(-1).logStartOffset(-1));
                }
                topics.add(new FetchResponse.FetchableTopicResponse().topic(t.topic()).partitions(parts));
            }
            return new FetchResponse().errorCode(v >= 7 ? e.code() : (short) 0).sessionId(0).responses(topics);
        });
    }

    @Test
    void listOffsets() {
        ListOffsetsRequest request = new ListOffsetsRequest().topics(list(
                new ListOffsetsRequest.ListOffsetsTopic().name("a").partitions(list(
                        new ListOffsetsRequest.ListOffsetsPartition().partitionIndex(0),
                        new ListOffsetsRequest.ListOffsetsPartition().partitionIndex(1)))));
        assertMirrors(request, 1, 10, (v, e) -> {
            List<ListOffsetsResponse.ListOffsetsTopicResponse> topics = new ArrayList<>();
            for (ListOffsetsRequest.ListOffsetsTopic t : request.topics()) {
                List<ListOffsetsResponse.ListOffsetsPartitionResponse> parts = new ArrayList<>();
                for (ListOffsetsRequest.ListOffsetsPartition p : t.partitions()) {
                    parts.add(new ListOffsetsResponse.ListOffsetsPartitionResponse().partitionIndex(p.partitionIndex())
                            .errorCode(e.code()).timestamp(-1).offset(-1).leaderEpoch(-1));
                }
                topics.add(new ListOffsetsResponse.ListOffsetsTopicResponse().name(t.name()).partitions(parts));
            }
            return new ListOffsetsResponse().topics(topics);
        });
    }

    @Test
    void metadata() {
        MetadataRequest named = new MetadataRequest().topics(list(
                new MetadataRequest.MetadataRequestTopic().name("a").topicId(ID_A),
                new MetadataRequest.MetadataRequestTopic().name(null).topicId(ID_B)));
        MetadataRequest all = new MetadataRequest().topics(null);
        for (MetadataRequest request : List.of(named, all)) {
            assertMirrors(request, request.topics() == null ? 1 : 0, 13, (v, e) -> {
                List<MetadataResponse.MetadataResponseTopic> topics = new ArrayList<>();
                if (request.topics() != null) {
                    for (MetadataRequest.MetadataRequestTopic t : request.topics()) {
                        String name = t.name() == null && v < 12 ? "" : t.name();
                        topics.add(new MetadataResponse.MetadataResponseTopic().errorCode(e.code()).name(name)
                                .topicId(t.topicId() == null ? ZERO : t.topicId()));
                    }
                }
                MetadataResponse r = new MetadataResponse().topics(topics);
                if (v >= 13) {
                    r.errorCode(e.code());
                }
                return r;
            });
        }
    }

    @Test
    void initProducerId() {
        assertMirrors(new InitProducerIdRequest().transactionalId("tx"), 0, 5, (v, e) -> new InitProducerIdResponse()
                .errorCode(e.code()).producerId(-1).producerEpoch((short) -1));
    }

    @Test
    void createTopics() {
        CreateTopicsRequest request = new CreateTopicsRequest().topics(list(
                new CreateTopicsRequest.CreatableTopic().name("a").numPartitions(3),
                new CreateTopicsRequest.CreatableTopic().name("b")));
        assertMirrors(request, 2, 7, (v, e) -> {
            List<CreateTopicsResponse.CreatableTopicResult> results = new ArrayList<>();
            for (CreateTopicsRequest.CreatableTopic t : request.topics()) {
                results.add(new CreateTopicsResponse.CreatableTopicResult().name(t.name()).errorCode(e.code())
                        .errorMessage(null));
            }
            return new CreateTopicsResponse().topics(results);
        });
    }

    @Test
    void deleteTopics() {
        DeleteTopicsRequest request = new DeleteTopicsRequest()
                .topics(list(new DeleteTopicsRequest.DeleteTopicState().name("a").topicId(ID_A),
                        new DeleteTopicsRequest.DeleteTopicState().name(null).topicId(ID_B)))
                .topicNames(list("x", "y"));
        assertMirrors(request, 1, 6, (v, e) -> {
            List<DeleteTopicsRequest.DeleteTopicState> wanted = new ArrayList<>();
            if (v >= 6) {
                wanted.addAll(request.topics());
            } else {
                for (String name : request.topicNames()) {
                    wanted.add(new DeleteTopicsRequest.DeleteTopicState().name(name));
                }
            }
            List<DeleteTopicsResponse.DeletableTopicResult> results = new ArrayList<>();
            for (DeleteTopicsRequest.DeleteTopicState t : wanted) {
                results.add(new DeleteTopicsResponse.DeletableTopicResult().name(t.name())
                        .topicId(t.topicId() == null ? ZERO : t.topicId()).errorCode(e.code()));
            }
            return new DeleteTopicsResponse().responses(results);
        });
    }

    @Test
    void createPartitions() {
        CreatePartitionsRequest request = new CreatePartitionsRequest().topics(list(
                new CreatePartitionsRequest.CreatePartitionsTopic().name("a").count(4),
                new CreatePartitionsRequest.CreatePartitionsTopic().name("b").count(2)));
        assertMirrors(request, 0, 3, (v, e) -> {
            List<CreatePartitionsResponse.CreatePartitionsTopicResult> results = new ArrayList<>();
            for (CreatePartitionsRequest.CreatePartitionsTopic t : request.topics()) {
                results.add(new CreatePartitionsResponse.CreatePartitionsTopicResult().name(t.name()).errorCode(e.code()));
            }
            return new CreatePartitionsResponse().results(results);
        });
    }

    @Test
    void describeConfigs() {
        DescribeConfigsRequest request = new DescribeConfigsRequest().resources(list(
                new DescribeConfigsRequest.DescribeConfigsResource().resourceType((byte) 2).resourceName("a"),
                new DescribeConfigsRequest.DescribeConfigsResource().resourceType((byte) 4).resourceName("1")));
        assertMirrors(request, 1, 4, (v, e) -> {
            List<DescribeConfigsResponse.DescribeConfigsResult> results = new ArrayList<>();
            for (DescribeConfigsRequest.DescribeConfigsResource r : request.resources()) {
                results.add(new DescribeConfigsResponse.DescribeConfigsResult().resourceType(r.resourceType())
                        .resourceName(r.resourceName()).errorCode(e.code()).errorMessage(null));
            }
            return new DescribeConfigsResponse().results(results);
        });
    }

    @Test
    void incrementalAlterConfigs() {
        IncrementalAlterConfigsRequest request = new IncrementalAlterConfigsRequest().resources(list(
                new IncrementalAlterConfigsRequest.AlterConfigsResource().resourceType((byte) 2).resourceName("a"),
                new IncrementalAlterConfigsRequest.AlterConfigsResource().resourceType((byte) 4).resourceName("1")));
        assertMirrors(request, 0, 1, (v, e) -> {
            List<IncrementalAlterConfigsResponse.AlterConfigsResourceResponse> out = new ArrayList<>();
            for (IncrementalAlterConfigsRequest.AlterConfigsResource r : request.resources()) {
                out.add(new IncrementalAlterConfigsResponse.AlterConfigsResourceResponse().resourceType(r.resourceType())
                        .resourceName(r.resourceName()).errorCode(e.code()).errorMessage(null));
            }
            return new IncrementalAlterConfigsResponse().responses(out);
        });
    }

    @Test
    void alterConfigs() {
        AlterConfigsRequest request = new AlterConfigsRequest().resources(list(
                new AlterConfigsRequest.AlterConfigsResource().resourceType((byte) 2).resourceName("a"),
                new AlterConfigsRequest.AlterConfigsResource().resourceType((byte) 4).resourceName("1")));
        assertMirrors(request, 0, 2, (v, e) -> {
            List<AlterConfigsResponse.AlterConfigsResourceResponse> out = new ArrayList<>();
            for (AlterConfigsRequest.AlterConfigsResource r : request.resources()) {
                out.add(new AlterConfigsResponse.AlterConfigsResourceResponse().resourceType(r.resourceType())
                        .resourceName(r.resourceName()).errorCode(e.code()).errorMessage(null));
            }
            return new AlterConfigsResponse().responses(out);
        });
    }

    @Test
    void deleteRecords() {
        DeleteRecordsRequest request = new DeleteRecordsRequest().topics(list(
                new DeleteRecordsRequest.DeleteRecordsTopic().name("a").partitions(list(
                        new DeleteRecordsRequest.DeleteRecordsPartition().partitionIndex(0).offset(5),
                        new DeleteRecordsRequest.DeleteRecordsPartition().partitionIndex(1).offset(7)))));
        assertMirrors(request, 0, 2, (v, e) -> {
            List<DeleteRecordsResponse.DeleteRecordsTopicResult> out = new ArrayList<>();
            for (DeleteRecordsRequest.DeleteRecordsTopic t : request.topics()) {
                List<DeleteRecordsResponse.DeleteRecordsPartitionResult> parts = new ArrayList<>();
                for (DeleteRecordsRequest.DeleteRecordsPartition p : t.partitions()) {
                    parts.add(new DeleteRecordsResponse.DeleteRecordsPartitionResult().partitionIndex(p.partitionIndex())
                            .lowWatermark(-1).errorCode(e.code()));
                }
                out.add(new DeleteRecordsResponse.DeleteRecordsTopicResult().name(t.name()).partitions(parts));
            }
            return new DeleteRecordsResponse().topics(out);
        });
    }

    @Test
    void offsetForLeaderEpoch() {
        OffsetForLeaderEpochRequest request = new OffsetForLeaderEpochRequest().topics(list(
                new OffsetForLeaderEpochRequest.OffsetForLeaderTopic().topic("a").partitions(list(
                        new OffsetForLeaderEpochRequest.OffsetForLeaderPartition().partition(0).leaderEpoch(3),
                        new OffsetForLeaderEpochRequest.OffsetForLeaderPartition().partition(5)))));
        assertMirrors(request, 2, 4, (v, e) -> {
            List<OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult> out = new ArrayList<>();
            for (OffsetForLeaderEpochRequest.OffsetForLeaderTopic t : request.topics()) {
                List<OffsetForLeaderEpochResponse.EpochEndOffset> parts = new ArrayList<>();
                for (OffsetForLeaderEpochRequest.OffsetForLeaderPartition p : t.partitions()) {
                    parts.add(new OffsetForLeaderEpochResponse.EpochEndOffset().partition(p.partition())
                            .errorCode(e.code()).leaderEpoch(-1).endOffset(-1));
                }
                out.add(new OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult().topic(t.topic()).partitions(parts));
            }
            return new OffsetForLeaderEpochResponse().topics(out);
        });
    }

    @Test
    void describeCluster() {
        assertMirrors(new DescribeClusterRequest(), 0, 2, (v, e) -> new DescribeClusterResponse().errorCode(e.code())
                .clusterId(""));
    }

    @Test
    void findCoordinator() {
        FindCoordinatorRequest request = new FindCoordinatorRequest().key("g").coordinatorKeys(list("g1", "g2"));
        assertMirrors(request, 0, 6, (v, e) -> {
            if (v < 4) {
                return new FindCoordinatorResponse().errorCode(e.code()).errorMessage(null).nodeId(-1).host("").port(-1);
            }
            List<FindCoordinatorResponse.Coordinator> out = new ArrayList<>();
            for (String key : request.coordinatorKeys()) {
                out.add(new FindCoordinatorResponse.Coordinator().key(key).errorCode(e.code()).errorMessage(null)
                        .nodeId(-1).host("").port(-1));
            }
            return new FindCoordinatorResponse().coordinators(out);
        });
    }

    @Test
    void joinGroup() {
        JoinGroupRequest request = new JoinGroupRequest().groupId("g").memberId("m-1");
        assertMirrors(request, 0, 9, (v, e) -> new JoinGroupResponse().errorCode(e.code()).generationId(-1)
                .protocolName(v >= 7 ? null : "").leader("").memberId(request.memberId()));
        // a request built without a member id still answers with an empty one
        JoinGroupRequest noMember = new JoinGroupRequest().groupId("g").memberId(null);
        assertThat(noMember.errorResponse((short) 5, Errors.NOT_COORDINATOR).memberId()).isEmpty();
    }

    @Test
    void syncGroup() {
        assertMirrors(new SyncGroupRequest().groupId("g"), 0, 5, (v, e) -> new SyncGroupResponse().errorCode(e.code())
                .assignment(new byte[0]));
    }

    @Test
    void heartbeat() {
        assertMirrors(new HeartbeatRequest().groupId("g"), 0, 4, (v, e) -> new HeartbeatResponse().errorCode(e.code()));
    }

    @Test
    void leaveGroup() {
        LeaveGroupRequest request = new LeaveGroupRequest().groupId("g").memberId("m").members(list(
                new LeaveGroupRequest.MemberIdentity().memberId("m1"),
                new LeaveGroupRequest.MemberIdentity().memberId("m2").groupInstanceId("i2")));
        assertMirrors(request, 0, 5, (v, e) -> {
            LeaveGroupResponse r = new LeaveGroupResponse().errorCode(e.code());
            if (v >= 3) {
                List<LeaveGroupResponse.MemberResponse> members = new ArrayList<>();
                for (LeaveGroupRequest.MemberIdentity m : request.members()) {
                    members.add(new LeaveGroupResponse.MemberResponse().memberId(m.memberId())
                            .groupInstanceId(m.groupInstanceId()).errorCode(e.code()));
                }
                r.members(members);
            }
            return r;
        });
    }

    @Test
    void offsetCommit() {
        OffsetCommitRequest request = new OffsetCommitRequest().groupId("g").topics(list(
                new OffsetCommitRequest.OffsetCommitRequestTopic().name("a").topicId(ID_A).partitions(list(
                        new OffsetCommitRequest.OffsetCommitRequestPartition().partitionIndex(0).committedOffset(9),
                        new OffsetCommitRequest.OffsetCommitRequestPartition().partitionIndex(1)))));
        assertMirrors(request, 2, 9, (v, e) -> {
            List<OffsetCommitResponse.OffsetCommitResponseTopic> topics = new ArrayList<>();
            for (OffsetCommitRequest.OffsetCommitRequestTopic t : request.topics()) {
                List<OffsetCommitResponse.OffsetCommitResponsePartition> parts = new ArrayList<>();
                for (OffsetCommitRequest.OffsetCommitRequestPartition p : t.partitions()) {
                    parts.add(new OffsetCommitResponse.OffsetCommitResponsePartition().partitionIndex(p.partitionIndex())
                            .errorCode(e.code()));
                }
                topics.add(new OffsetCommitResponse.OffsetCommitResponseTopic().name(t.name()).partitions(parts));
            }
            return new OffsetCommitResponse().topics(topics);
        });
    }

    @Test
    void txnOffsetCommit() {
        // an empty answer would leave a producer's sendOffsetsToTransaction retrying forever
        TxnOffsetCommitRequest request = new TxnOffsetCommitRequest().transactionalId("t").groupId("g").topics(list(
                new TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic().name("a").topicId(ID_A).partitions(list(
                        new TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition().partitionIndex(0).committedOffset(9),
                        new TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition().partitionIndex(1)))));
        assertMirrors(request, 0, 6, (v, e) -> {
            List<TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic> topics = new ArrayList<>();
            for (TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic t : request.topics()) {
                List<TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition> parts = new ArrayList<>();
                for (TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition p : t.partitions()) {
                    parts.add(new TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition()
                            .partitionIndex(p.partitionIndex()).errorCode(e.code()));
                }
                topics.add(new TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic().name(t.name()).topicId(t.topicId())
                        .partitions(parts));
            }
            return new TxnOffsetCommitResponse().topics(topics);
        });
    }

    @Test
    void offsetFetch() {
        OffsetFetchRequest named = new OffsetFetchRequest().groupId("g")
                .topics(list(new OffsetFetchRequest.OffsetFetchRequestTopic().name("a").partitionIndexes(list(0, 2)),
                        new OffsetFetchRequest.OffsetFetchRequestTopic().name("b").partitionIndexes(list(1))))
                .groups(list(new OffsetFetchRequest.OffsetFetchRequestGroup().groupId("g1"),
                        new OffsetFetchRequest.OffsetFetchRequestGroup().groupId("g2")));
        OffsetFetchRequest all = new OffsetFetchRequest().groupId("g").topics(null);
        for (OffsetFetchRequest request : List.of(named, all)) {
            assertMirrors(request, 1, 9, (v, e) -> {
                if (v >= 8) {
                    List<OffsetFetchResponse.OffsetFetchResponseGroup> groups = new ArrayList<>();
                    for (OffsetFetchRequest.OffsetFetchRequestGroup g : request.groups()) {
                        groups.add(new OffsetFetchResponse.OffsetFetchResponseGroup().groupId(g.groupId())
                                .errorCode(e.code()));
                    }
                    return new OffsetFetchResponse().groups(groups);
                }
                List<OffsetFetchResponse.OffsetFetchResponseTopic> topics = new ArrayList<>();
                if (request.topics() != null) {
                    for (OffsetFetchRequest.OffsetFetchRequestTopic t : request.topics()) {
                        List<OffsetFetchResponse.OffsetFetchResponsePartition> parts = new ArrayList<>();
                        for (int p : t.partitionIndexes()) {
                            parts.add(new OffsetFetchResponse.OffsetFetchResponsePartition().partitionIndex(p)
                                    .committedOffset(-1).committedLeaderEpoch(-1).metadata("").errorCode(e.code()));
                        }
                        topics.add(new OffsetFetchResponse.OffsetFetchResponseTopic().name(t.name()).partitions(parts));
                    }
                }
                return new OffsetFetchResponse().topics(topics).errorCode(e.code());
            });
        }
    }

    @Test
    void describeGroups() {
        DescribeGroupsRequest request = new DescribeGroupsRequest().groups(list("g1", "g2"));
        assertMirrors(request, 0, 6, (v, e) -> {
            List<DescribeGroupsResponse.DescribedGroup> groups = new ArrayList<>();
            for (String id : request.groups()) {
                groups.add(new DescribeGroupsResponse.DescribedGroup().groupId(id).errorCode(e.code()).groupState("")
                        .protocolType("").protocolData(""));
            }
            return new DescribeGroupsResponse().groups(groups);
        });
    }

    @Test
    void listGroups() {
        assertMirrors(new ListGroupsRequest(), 0, 5, (v, e) -> new ListGroupsResponse().errorCode(e.code()));
    }

    @Test
    void deleteGroups() {
        DeleteGroupsRequest request = new DeleteGroupsRequest().groupsNames(list("g1", "g2"));
        assertMirrors(request, 0, 2, (v, e) -> {
            List<DeleteGroupsResponse.DeletableGroupResult> results = new ArrayList<>();
            for (String id : request.groupsNames()) {
                results.add(new DeleteGroupsResponse.DeletableGroupResult().groupId(id).errorCode(e.code()));
            }
            return new DeleteGroupsResponse().results(results);
        });
    }

    @Test
    void offsetDelete() {
        OffsetDeleteRequest request = new OffsetDeleteRequest().groupId("g").topics(list(
                new OffsetDeleteRequest.OffsetDeleteRequestTopic().name("a").partitions(list(
                        new OffsetDeleteRequest.OffsetDeleteRequestPartition().partitionIndex(0)))));
        assertMirrors(request, 0, 0, (v, e) -> new OffsetDeleteResponse().errorCode(e.code()));
    }

    /**
     * The schema knows nothing of the versions a broker advertises, so an UNSUPPORTED_VERSION
     * answer gets its ApiVersions entry from the broker (KIP-511); everything else matches.
     */
    @Test
    void apiVersions() {
        ApiVersionsRequest request = new ApiVersionsRequest().clientSoftwareName("x").clientSoftwareVersion("1");
        ApiVersionsResponse.ApiVersion entry = new ApiVersionsResponse.ApiVersion().apiKey(ApiKey.API_VERSIONS.id())
                .minVersion((short) 0).maxVersion((short) 4);
        for (short v = 0; v <= 4; v++) {
            for (Errors error : ERRORS) {
                ApiVersionsResponse ours = request.errorResponse(v, error);
                List<ApiVersionsResponse.ApiVersion> keys = new ArrayList<>(1);
                if (error == Errors.UNSUPPORTED_VERSION) {
                    keys.add(entry);
                    ours.apiKeys().add(entry);
                }
                ApiVersionsResponse want = new ApiVersionsResponse().errorCode(error.code()).apiKeys(keys);
                assertThat(bytes(ours, v)).as("v%d %s", v, error).isEqualTo(bytes(want, v));
            }
        }
    }

    /** Beyond the versions served today, the topic ids that later versions name are mirrored too. */
    @Test
    void topicIdsAreMirroredWhereTheVersionCarriesThem() {
        ProduceRequest produce = new ProduceRequest().topicData(list(new ProduceRequest.TopicProduceData().topicId(ID_A)));
        assertThat(produce.errorResponse((short) 13, Errors.NOT_LEADER_OR_FOLLOWER).responses().get(0).topicId())
                .isEqualTo(ID_A);
        FetchRequest fetch = new FetchRequest().topics(list(new FetchRequest.FetchTopic().topicId(ID_B)));
        assertThat(fetch.errorResponse((short) 13, Errors.UNKNOWN_SERVER_ERROR).responses().get(0).topicId())
                .isEqualTo(ID_B);
        OffsetCommitRequest commit = new OffsetCommitRequest().topics(list(
                new OffsetCommitRequest.OffsetCommitRequestTopic().topicId(ID_A)));
        assertThat(commit.errorResponse((short) 10, Errors.NOT_COORDINATOR).topics().get(0).topicId()).isEqualTo(ID_A);
    }

    /** Every request of every version yields an error response that its version can encode. */
    @Test
    void everyDefaultRequestHasAnEncodableErrorResponse() {
        for (ApiKey key : ApiKey.values()) {
            ApiRequest request = ApiMessages.newRequest(key);
            for (short v = key.oldestVersion(); v <= key.latestVersion(); v++) {
                ApiMessage response = request.errorResponse(v, Errors.UNKNOWN_SERVER_ERROR);
                assertThat(response.apiKey()).isEqualTo(key);
                ByteBuffer encoded = response.toByteBuffer(v);
                assertThat(ApiMessages.readResponse(key, v, encoded.duplicate()).toByteBuffer(v)).as("%s v%d", key, v)
                        .isEqualTo(encoded);
            }
        }
    }
}
