package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.message.ApiVersionsResponse.ApiVersion;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.DeleteRecordsRequest;
import io.brook.wire.message.DeleteRecordsRequest.DeleteRecordsPartition;
import io.brook.wire.message.DeleteRecordsRequest.DeleteRecordsTopic;
import io.brook.wire.message.DeleteRecordsResponse;
import io.brook.wire.message.DeleteTopicsRequest;
import io.brook.wire.message.DeleteTopicsResponse;
import io.brook.wire.message.DescribeGroupsRequest;
import io.brook.wire.message.DescribeGroupsResponse;
import io.brook.wire.message.DescribeGroupsResponse.DescribedGroup;
import io.brook.wire.message.FindCoordinatorRequest;
import io.brook.wire.message.FindCoordinatorResponse;
import io.brook.wire.message.FindCoordinatorResponse.Coordinator;
import io.brook.wire.message.HeartbeatRequest;
import io.brook.wire.message.HeartbeatResponse;
import io.brook.wire.message.JoinGroupRequest;
import io.brook.wire.message.JoinGroupRequest.JoinGroupRequestProtocol;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.message.LeaveGroupRequest;
import io.brook.wire.message.LeaveGroupResponse;
import io.brook.wire.message.ListGroupsRequest;
import io.brook.wire.message.ListGroupsResponse;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataResponse;
import io.brook.wire.message.MetadataResponse.MetadataResponseTopic;
import io.brook.wire.message.OffsetCommitRequest;
import io.brook.wire.message.OffsetCommitRequest.OffsetCommitRequestPartition;
import io.brook.wire.message.OffsetCommitRequest.OffsetCommitRequestTopic;
import io.brook.wire.message.OffsetCommitResponse;
import io.brook.wire.message.OffsetCommitResponse.OffsetCommitResponsePartition;
import io.brook.wire.message.OffsetCommitResponse.OffsetCommitResponseTopic;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchRequest.OffsetFetchRequestTopic;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.message.SyncGroupRequest;
import io.brook.wire.message.SyncGroupRequest.SyncGroupRequestAssignment;
import io.brook.wire.message.SyncGroupResponse;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The group APIs over raw sockets against an embedded broker: FindCoordinator at every version,
 * the librdkafka-era JoinGroup v0 round, the topic checks the broker adds to OffsetCommit, and
 * the protection of {@code __consumer_offsets}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GroupApisTest {

    private Brook brook;

    @BeforeEach
    void start() {
        brook = Brook.builder().port(0).config("group.initial.rebalance.delay.ms", "0")
                .config("offsets.topic.num.partitions", "3").start();
    }

    @AfterEach
    void stop() {
        brook.close();
    }

    private ProtocolClient client() throws Exception {
        return new ProtocolClient(brook.bootstrapServers());
    }

    /**
     * Joins with {@code request}, again while the answer is COORDINATOR_LOAD_IN_PROGRESS (a broker
     * just started may still be loading its offsets partitions), as clients do.
     */
    private static JoinGroupResponse joinOnceLoaded(ProtocolClient c, JoinGroupRequest request) {
        AtomicReference<JoinGroupResponse> joined = new AtomicReference<>();
        Await.until("the coordinator loaded", () -> {
            try {
                joined.set(c.call(request, (short) 0));
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            return joined.get().errorCode() != Errors.COORDINATOR_LOAD_IN_PROGRESS.code();
        });
        return joined.get();
    }

    private void createTopic(ProtocolClient c, String name, int partitions) throws Exception {
        CreateTopicsResponse r = c.call(new CreateTopicsRequest().topics(new ArrayList<>(List.of(
                new CreatableTopic().name(name).numPartitions(partitions).replicationFactor((short) 1))))
                .timeoutMs(10_000), (short) 5);
        assertThat(r.topics().get(0).errorCode()).isEqualTo(Errors.NONE.code());
    }

    @Test
    void shouldAdvertiseTheGroupApisWithinLibrdkafkaFeatureWindows() throws Exception {
        try (ProtocolClient c = client()) {
            ApiVersionsResponse r = c.call(new ApiVersionsRequest(), (short) 0);
            Map<Short, ApiVersion> byKey = new HashMap<>();
            for (ApiVersion v : r.apiKeys()) {
                byKey.put(v.apiKey(), v);
            }
            // the single versions (or window) librdkafka 2.0.2 checks for before it enables a feature
            assertContains(byKey, ApiKey.FIND_COORDINATOR, 0, 0);
            assertContains(byKey, ApiKey.OFFSET_COMMIT, 2, 2);
            assertContains(byKey, ApiKey.OFFSET_FETCH, 1, 1);
            assertContains(byKey, ApiKey.JOIN_GROUP, 0, 0);
            assertContains(byKey, ApiKey.SYNC_GROUP, 0, 0);
            assertContains(byKey, ApiKey.HEARTBEAT, 0, 0);
            assertContains(byKey, ApiKey.LEAVE_GROUP, 0, 0);
            for (ApiKey k : List.of(ApiKey.DESCRIBE_GROUPS, ApiKey.LIST_GROUPS, ApiKey.DELETE_GROUPS,
                    ApiKey.OFFSET_DELETE)) {
                assertThat(byKey).containsKey(k.id());
            }
        }
    }

    private static void assertContains(Map<Short, ApiVersion> byKey, ApiKey key, int lo, int hi) {
        ApiVersion v = byKey.get(key.id());
        assertThat(v).as(key.displayName()).isNotNull();
        assertThat((int) v.minVersion()).as(key.displayName()).isLessThanOrEqualTo(lo);
        assertThat((int) v.maxVersion()).as(key.displayName()).isGreaterThanOrEqualTo(hi);
    }

    @Test
    void shouldAnswerFindCoordinatorForGroupsAtEveryVersion() throws Exception {
        try (ProtocolClient c = client()) {
            int port = brook.port();
            for (short v = 0; v <= 3; v++) {
                FindCoordinatorRequest req = new FindCoordinatorRequest().key("g");
                FindCoordinatorResponse r = c.call(req, v);
                assertThat(r.errorCode()).as("v%d", v).isEqualTo(Errors.NONE.code());
                assertThat(r.nodeId()).isEqualTo(1);
                assertThat(r.host()).isEqualTo("127.0.0.1");
                assertThat(r.port()).isEqualTo(port);
            }
            for (short v = 4; v <= 6; v++) {
                FindCoordinatorResponse r = c.call(new FindCoordinatorRequest().keyType((byte) 0)
                        .coordinatorKeys(new ArrayList<>(List.of("g1", "g2"))), v);
                assertThat(r.coordinators()).extracting(Coordinator::key).containsExactly("g1", "g2");
                for (Coordinator co : r.coordinators()) {
                    assertThat(co.errorCode()).isEqualTo(Errors.NONE.code());
                    assertThat(co.nodeId()).isEqualTo(1);
                    assertThat(co.port()).isEqualTo(port);
                }
            }
        }
    }

    @Test
    void shouldNameThisNodeAsTransactionCoordinatorAndRefuseShareCoordinators() throws Exception {
        try (ProtocolClient c = client()) {
            FindCoordinatorResponse v3 = c.call(new FindCoordinatorRequest().key("tx").keyType((byte) 1), (short) 3);
            assertThat(v3.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(v3.nodeId()).isNotNegative();
            FindCoordinatorResponse v4 = c.call(new FindCoordinatorRequest().keyType((byte) 1)
                    .coordinatorKeys(new ArrayList<>(List.of("tx", ""))), (short) 4);
            assertThat(v4.coordinators().get(0).errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(v4.coordinators().get(0).port()).isPositive();
            assertThat(v4.coordinators().get(1).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
            FindCoordinatorResponse share = c.call(new FindCoordinatorRequest().keyType((byte) 2)
                    .coordinatorKeys(new ArrayList<>(List.of("s"))), (short) 6);
            assertThat(share.coordinators().get(0).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        }
    }

    @Test
    void shouldRunALibrdkafkaEraGroupRoundAtVersionZero() throws Exception {
        try (ProtocolClient c = client()) {
            createTopic(c, "t0", 2);
            byte[] subscription = {0, 0, 0, 0, 0, 1, 0, 2, 't', '0', 0, 0, 0, 0};
            JoinGroupResponse join = joinOnceLoaded(c, new JoinGroupRequest().groupId("g0").sessionTimeoutMs(10_000)
                    .memberId("").protocolType("consumer").protocols(new ArrayList<>(List.of(
                            new JoinGroupRequestProtocol().name("range").metadata(subscription)))));
            assertThat(join.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(join.memberId()).isNotEmpty();
            assertThat(join.leader()).isEqualTo(join.memberId());
            assertThat(join.protocolName()).isEqualTo("range");
            assertThat(join.generationId()).isEqualTo(1);
            assertThat(join.members()).hasSize(1);

            SyncGroupResponse sync = c.call(new SyncGroupRequest().groupId("g0").generationId(1).memberId(join.memberId())
                    .assignments(new ArrayList<>(List.of(new SyncGroupRequestAssignment().memberId(join.memberId())
                            .assignment(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0})))), (short) 0);
            assertThat(sync.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(sync.assignment()).hasSize(10);

            HeartbeatResponse hb = c.call(new HeartbeatRequest().groupId("g0").generationId(1).memberId(join.memberId()),
                    (short) 0);
            assertThat(hb.errorCode()).isEqualTo(Errors.NONE.code());

            OffsetCommitResponse commit = c.call(new OffsetCommitRequest().groupId("g0").generationIdOrMemberEpoch(1)
                    .memberId(join.memberId()).topics(new ArrayList<>(List.of(new OffsetCommitRequestTopic().name("t0")
                            .partitions(new ArrayList<>(List.of(new OffsetCommitRequestPartition().partitionIndex(1)
                                    .committedOffset(5).committedMetadata("m"))))))), (short) 2);
            assertThat(commit.topics().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.NONE.code());

            OffsetFetchResponse fetched = c.call(new OffsetFetchRequest().groupId("g0").topics(new ArrayList<>(List.of(
                    new OffsetFetchRequestTopic().name("t0").partitionIndexes(new ArrayList<>(List.of(0, 1)))))), (short) 1);
            Map<Integer, Long> offsets = new HashMap<>();
            fetched.topics().get(0).partitions().forEach(p -> offsets.put(p.partitionIndex(), p.committedOffset()));
            assertThat(offsets).isEqualTo(Map.of(0, -1L, 1, 5L));

            // librdkafka's legacy rd_kafka_list_groups(): ListGroups v0, then DescribeGroups v0
            ListGroupsResponse listed = c.call(new ListGroupsRequest(), (short) 0);
            assertThat(listed.groups()).anySatisfy(g -> {
                assertThat(g.groupId()).isEqualTo("g0");
                assertThat(g.protocolType()).isEqualTo("consumer");
            });
            DescribeGroupsResponse described = c.call(new DescribeGroupsRequest().groups(new ArrayList<>(List.of("g0"))),
                    (short) 0);
            DescribedGroup g0 = described.groups().get(0);
            assertThat(g0.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(g0.groupState()).isEqualTo("Stable");
            assertThat(g0.protocolData()).isEqualTo("range");
            assertThat(g0.members()).hasSize(1);
            assertThat(g0.members().get(0).clientId()).isEqualTo("brook-test");
            assertThat(g0.members().get(0).clientHost()).isEqualTo("/127.0.0.1");
            assertThat(g0.members().get(0).memberAssignment()).hasSize(10);

            LeaveGroupResponse leave = c.call(new LeaveGroupRequest().groupId("g0").memberId(join.memberId()), (short) 0);
            assertThat(leave.errorCode()).isEqualTo(Errors.NONE.code());
        }
    }

    @Test
    void shouldAnswerAParkedJoinWithNotCoordinatorWhenTheBrokerStops() throws Exception {
        try (ProtocolClient a = client(); ProtocolClient b = client()) {
            byte[] subscription = {0, 0, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 0};
            JoinGroupRequest first = new JoinGroupRequest().groupId("parked").sessionTimeoutMs(30_000).memberId("")
                    .protocolType("consumer").protocols(new ArrayList<>(List.of(
                            new JoinGroupRequestProtocol().name("range").metadata(subscription))));
            JoinGroupResponse joined = joinOnceLoaded(a, first);
            assertThat(joined.errorCode()).isEqualTo(Errors.NONE.code());
            // a second member's join waits for the first to rejoin: up to its 30 s session timeout
            int id = b.send(first, (short) 0);
            Await.until("the group to rebalance", () -> {
                try {
                    HeartbeatResponse hb = a.call(new HeartbeatRequest().groupId("parked").generationId(1)
                            .memberId(joined.memberId()), (short) 0);
                    return hb.errorCode() == Errors.REBALANCE_IN_PROGRESS.code();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            brook.close();
            JoinGroupResponse parked = b.receive(ApiKey.JOIN_GROUP, (short) 0, id);
            assertThat(parked.errorCode()).isEqualTo(Errors.NOT_COORDINATOR.code());
        }
    }

    @Test
    void shouldExpireAMemberWhoseSessionTimedOutOnTheBrokersClock() throws Exception {
        MutableClock clock = new MutableClock(1_000_000);
        try (Brook b = Brook.builder().clock(clock).config("group.initial.rebalance.delay.ms", "0")
                .config("offsets.topic.num.partitions", "1").start();
                ProtocolClient c = new ProtocolClient(b.bootstrapServers())) {
            byte[] subscription = {0, 0, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 0};
            JoinGroupRequest joinRequest = new JoinGroupRequest().groupId("s").sessionTimeoutMs(10_000).memberId("")
                    .protocolType("consumer").protocols(new ArrayList<>(List.of(
                            new JoinGroupRequestProtocol().name("range").metadata(subscription))));
            JoinGroupResponse join = joinOnceLoaded(c, joinRequest);
            assertThat(join.errorCode()).isEqualTo(Errors.NONE.code());
            SyncGroupResponse sync = c.call(new SyncGroupRequest().groupId("s").generationId(1).memberId(join.memberId())
                    .assignments(new ArrayList<>(List.of(new SyncGroupRequestAssignment().memberId(join.memberId())
                            .assignment(new byte[0])))), (short) 0);
            assertThat(sync.errorCode()).isEqualTo(Errors.NONE.code());
            HeartbeatRequest heartbeat = new HeartbeatRequest().groupId("s").generationId(1).memberId(join.memberId());

            clock.advance(9_999);
            assertThat(((HeartbeatResponse) c.call(heartbeat, (short) 0)).errorCode())
                    .as("a heartbeat within the session").isEqualTo(Errors.NONE.code());
            // past the session's deadline: the coordinator expires the member before it handles
            // the next heartbeat, which therefore finds it gone
            clock.advance(10_001);
            Await.until("the session expired", () -> {
                try {
                    return ((HeartbeatResponse) c.call(heartbeat, (short) 0)).errorCode()
                            == Errors.UNKNOWN_MEMBER_ID.code();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
        }
    }

    @Test
    void shouldAnswerCommitsForUnknownTopicsAndPartitionsPerPartition() throws Exception {
        try (ProtocolClient c = client()) {
            createTopic(c, "known", 2);
            OffsetCommitRequest req = new OffsetCommitRequest().groupId("simple").generationIdOrMemberEpoch(-1).memberId("")
                    .topics(new ArrayList<>(List.of(
                            new OffsetCommitRequestTopic().name("known").partitions(new ArrayList<>(List.of(
                                    new OffsetCommitRequestPartition().partitionIndex(0).committedOffset(1),
                                    new OffsetCommitRequestPartition().partitionIndex(7).committedOffset(1)))),
                            new OffsetCommitRequestTopic().name("missing").partitions(new ArrayList<>(List.of(
                                    new OffsetCommitRequestPartition().partitionIndex(0).committedOffset(1)))))));
            OffsetCommitResponse r = c.call(req, (short) 8);
            Map<String, Short> errors = new HashMap<>();
            for (OffsetCommitResponseTopic t : r.topics()) {
                for (OffsetCommitResponsePartition p : t.partitions()) {
                    errors.put(t.name() + "-" + p.partitionIndex(), p.errorCode());
                }
            }
            assertThat(errors).isEqualTo(Map.of("known-0", Errors.NONE.code(),
                    "known-7", Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
                    "missing-0", Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
        }
    }

    @Test
    void shouldCreateConsumerOffsetsOnFirstWriteAsAnInternalTopicClientsCannotWriteOrDelete() throws Exception {
        try (ProtocolClient c = client()) {
            MetadataResponse before = c.call(new MetadataRequest().topics(null), (short) 12);
            assertThat(before.topics()).extracting(MetadataResponseTopic::name).doesNotContain("__consumer_offsets");
            CreateTopicsResponse byClient = c.call(new CreateTopicsRequest().topics(new ArrayList<>(List.of(
                    new CreatableTopic().name("__consumer_offsets").numPartitions(1).replicationFactor((short) 1))))
                    .timeoutMs(10_000), (short) 5);
            assertThat(byClient.topics().get(0).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
            createTopic(c, "t", 1);
            c.call(new OffsetCommitRequest().groupId("g").generationIdOrMemberEpoch(-1).memberId("")
                    .topics(new ArrayList<>(List.of(new OffsetCommitRequestTopic().name("t").partitions(new ArrayList<>(
                            List.of(new OffsetCommitRequestPartition().partitionIndex(0).committedOffset(0))))))), (short) 8);

            MetadataResponse after = c.call(new MetadataRequest().topics(null), (short) 12);
            MetadataResponseTopic offsets = after.topics().stream().filter(t -> t.name().equals("__consumer_offsets"))
                    .findFirst().orElseThrow();
            assertThat(offsets.isInternal()).isTrue();
            assertThat(offsets.partitions()).hasSize(3);

            ProduceResponse produced = c.call(new ProduceRequest().acks((short) 1).timeoutMs(1000).topicData(
                    new ArrayList<>(List.of(new TopicProduceData().name("__consumer_offsets").partitionData(
                            new ArrayList<>(List.of(new PartitionProduceData().index(0)
                                    .records(BufferRecords.wrap(new RecordBatchBuilder(Compression.NONE)
                                            .append(0L, null, new byte[] {1}).build())))))))), (short) 9);
            assertThat(produced.responses().get(0).partitionResponses().get(0).errorCode())
                    .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());

            DeleteRecordsResponse truncated = c.call(new DeleteRecordsRequest().timeoutMs(1000).topics(new ArrayList<>(
                    List.of(new DeleteRecordsTopic().name("__consumer_offsets").partitions(new ArrayList<>(List.of(
                            new DeleteRecordsPartition().partitionIndex(0).offset(-1))))))), (short) 2);
            assertThat(truncated.topics().get(0).partitions().get(0).errorCode())
                    .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());

            DeleteTopicsResponse deleted = c.call(new DeleteTopicsRequest().topicNames(
                    new ArrayList<>(List.of("__consumer_offsets"))).timeoutMs(1000), (short) 4);
            assertThat(deleted.responses().get(0).errorCode()).isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
        }
    }
}
