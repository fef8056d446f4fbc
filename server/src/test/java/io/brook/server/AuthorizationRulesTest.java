package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.DeleteTopicsRequest;
import io.brook.wire.message.DeleteTopicsResponse;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.FindCoordinatorRequest;
import io.brook.wire.message.FindCoordinatorResponse;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataResponse;
import io.brook.wire.message.OffsetForLeaderEpochRequest;
import io.brook.wire.message.OffsetForLeaderEpochResponse;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The authorization rules of Kafka's request handlers that go beyond one operation per topic:
 * transactional records need their transactional id; a follower's Fetch and OffsetForLeaderEpoch
 * are a broker's (CLUSTER_ACTION); Metadata neither creates nor names what the principal may not
 * describe; CreateTopics shows a new topic's configs only to who may describe them;
 * FindCoordinator and DeleteTopics answer per key and topic, with DELETE on the cluster for
 * every topic. Users: {@code alice} may use the topics prefixed {@code ok-} and the group
 * {@code g}; {@code carol} may only CREATE topics prefixed {@code cr-}, {@code dora} only DESCRIBE
 * those prefixed {@code de-}; {@code broker} has CLUSTER_ACTION; {@code dave} DELETE on the cluster.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class AuthorizationRulesTest {

    private static Brook brook;

    @BeforeAll
    static void start() throws Exception {
        brook = PlainUsers.broker("alice", "carol", "dora", "broker", "dave");
        try (Admin admin = Admin.create(PlainUsers.client(bootstrap(), "admin"))) {
            admin.createTopics(List.of(new NewTopic("ok-a", 1, (short) 1), new NewTopic("no-a", 1, (short) 1),
                    new NewTopic("no-del", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            admin.createAcls(List.of(
                    allow("alice", ResourceType.TOPIC, "ok-", PatternType.PREFIXED, AclOperation.ALL),
                    allow("alice", ResourceType.GROUP, "g", PatternType.LITERAL, AclOperation.ALL),
                    allow("carol", ResourceType.TOPIC, "cr-", PatternType.PREFIXED, AclOperation.CREATE),
                    allow("dora", ResourceType.TOPIC, "de-", PatternType.PREFIXED, AclOperation.DESCRIBE),
                    allow("broker", ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL,
                            AclOperation.CLUSTER_ACTION),
                    allow("dave", ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, AclOperation.DELETE)))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        brook.close();
    }

    private static String bootstrap() {
        return brook.bootstrapServers("SASL_PLAINTEXT");
    }

    private static AclBinding allow(String user, ResourceType type, String name, PatternType pattern, AclOperation op) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry("User:" + user, "*", op, AclPermissionType.ALLOW));
    }

    private static ProtocolClient login(String user) throws Exception {
        return PlainUsers.login(brook, user);
    }

    private static UUID topicId(String topic) throws Exception {
        try (Admin admin = Admin.create(PlainUsers.client(bootstrap(), "admin"))) {
            return UUID.fromString(toJavaUuid(admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(30, TimeUnit.SECONDS).get(topic).topicId()));
        }
    }

    private static String toJavaUuid(org.apache.kafka.common.Uuid id) {
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits()).toString();
    }

    private static Set<String> topicNames() throws Exception {
        try (Admin admin = Admin.create(PlainUsers.client(bootstrap(), "admin"))) {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void transactionalRecordsNeedTheirTransactionalId() throws Exception {
        RecordBatchBuilder b = new RecordBatchBuilder(Compression.NONE).producer(4242L, (short) 0, 0).transactional(true);
        b.append(1L, null, "injected".getBytes(StandardCharsets.UTF_8));
        ProduceRequest.TopicProduceData data = new ProduceRequest.TopicProduceData().name("ok-a").partitionData(List.of(
                new ProduceRequest.PartitionProduceData().index(0).records(BufferRecords.wrap(b.build()))));
        try (ProtocolClient alice = login("alice")) {
            ProduceResponse r = alice.call(new ProduceRequest().transactionalId(null).acks((short) -1)
                    .timeoutMs(10_000).topicData(List.of(data)), (short) 9);
            assertThat(r.responses().get(0).partitionResponses().get(0).errorCode())
                    .isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code());
        }
        try (Admin admin = Admin.create(PlainUsers.client(bootstrap(), "admin"))) {
            TopicPartition tp = new TopicPartition("ok-a", 0);
            assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get(30, TimeUnit.SECONDS).get(tp)
                    .offset()).as("nothing appended").isZero();
        }
    }

    @Test
    void transactionalRecordsNeedTheirTransactionalIdWithoutAnAuthorizerToo() throws Exception {
        try (Brook plain = Brook.builder().port(0).start()) {
            plain.createTopic("t", 1);
            RecordBatchBuilder b = new RecordBatchBuilder(Compression.NONE).producer(7L, (short) 0, 0)
                    .transactional(true);
            b.append(1L, null, "v".getBytes(StandardCharsets.UTF_8));
            try (ProtocolClient c = new ProtocolClient(plain.bootstrapServers())) {
                ProduceResponse r = c.call(new ProduceRequest().transactionalId(null).acks((short) 1).timeoutMs(10_000)
                        .topicData(List.of(new ProduceRequest.TopicProduceData().name("t").partitionData(List.of(
                                new ProduceRequest.PartitionProduceData().index(0)
                                        .records(BufferRecords.wrap(b.build())))))), (short) 11);
                assertThat(r.responses().get(0).partitionResponses().get(0).errorCode())
                        .isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code());
            }
        }
    }

    @Test
    void aFollowersFetchAndEpochLookupNeedClusterAction() throws Exception {
        FetchRequest follower = new FetchRequest().replicaId(1).maxWaitMs(0).minBytes(0).maxBytes(1 << 20)
                .isolationLevel((byte) 0).sessionId(0).sessionEpoch(-1).topics(List.of(new FetchRequest.FetchTopic()
                        .topic("ok-a").partitions(List.of(new FetchRequest.FetchPartition().partition(0).fetchOffset(0)
                                .partitionMaxBytes(1 << 20).currentLeaderEpoch(-1).logStartOffset(-1)))))
                .forgottenTopicsData(List.of()).rackId("");
        try (ProtocolClient alice = login("alice")) {
            FetchResponse r = alice.call(follower, (short) 12);
            assertThat(r.responses().get(0).partitions().get(0).errorCode())
                    .as("READ on the topic does not make a consumer a follower")
                    .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        }
        try (ProtocolClient broker = login("broker")) {
            FetchResponse r = broker.call(follower, (short) 12);
            assertThat(r.responses().get(0).partitions().get(0).errorCode())
                    .as("a broker's fetch is not refused for the topic (a single node has no followers)")
                    .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
            OffsetForLeaderEpochResponse e = broker.call(new OffsetForLeaderEpochRequest().replicaId(-1)
                    .topics(List.of(new OffsetForLeaderEpochRequest.OffsetForLeaderTopic().topic("no-a")
                            .partitions(List.of(new OffsetForLeaderEpochRequest.OffsetForLeaderPartition()
                                    .partition(0).currentLeaderEpoch(-1).leaderEpoch(0))))), (short) 4);
            assertThat(e.topics().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.NONE.code());
        }
    }

    @Test
    void metadataNeitherCreatesNorNamesWhatThePrincipalMayNotDescribe() throws Exception {
        try (ProtocolClient carol = login("carol")) {
            MetadataResponse r = carol.call(new MetadataRequest().allowAutoTopicCreation(true).topics(List.of(
                    new MetadataRequest.MetadataRequestTopic().name("cr-hidden"))), (short) 12);
            assertThat(r.topics().get(0).errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        }
        try (ProtocolClient dora = login("dora")) {
            MetadataResponse r = dora.call(new MetadataRequest().allowAutoTopicCreation(true).topics(List.of(
                    new MetadataRequest.MetadataRequestTopic().name("de-missing"))), (short) 12);
            assertThat(r.topics().get(0).errorCode()).as("may describe, may not create: refused, not unknown")
                    .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        }
        assertThat(topicNames()).doesNotContain("cr-hidden", "de-missing");

        UUID id = topicId("no-a");
        try (ProtocolClient alice = login("alice")) {
            MetadataResponse r = alice.call(new MetadataRequest().allowAutoTopicCreation(false).topics(List.of(
                    new MetadataRequest.MetadataRequestTopic().name(null).topicId(id))), (short) 12);
            MetadataResponse.MetadataResponseTopic t = r.topics().get(0);
            assertThat(t.errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            assertThat(t.name()).as("the id does not disclose the name").isNull();
            assertThat(t.topicId()).isEqualTo(id);
        }
    }

    private static CreateTopicsResponse.CreatableTopicResult create(ProtocolClient c, String topic) throws Exception {
        CreateTopicsResponse r = c.call(new CreateTopicsRequest().timeoutMs(10_000).validateOnly(false).topics(List.of(
                new CreateTopicsRequest.CreatableTopic().name(topic).numPartitions(2).replicationFactor((short) 1)
                        .assignments(List.of()).configs(List.of()))), (short) 7);
        return r.topics().get(0);
    }

    @Test
    void createTopicsShowsTheNewTopicsConfigsOnlyToWhoMayDescribeThem() throws Exception {
        try (ProtocolClient carol = login("carol")) {
            CreateTopicsResponse.CreatableTopicResult t = create(carol, "cr-new");
            assertThat(t.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(t.topicConfigErrorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            assertThat(t.configs()).isEmpty();
            assertThat(t.numPartitions()).isEqualTo(-1);
            assertThat(t.replicationFactor()).isEqualTo((short) -1);
        }
        try (ProtocolClient alice = login("alice")) {
            CreateTopicsResponse.CreatableTopicResult t = create(alice, "ok-new");
            assertThat(t.topicConfigErrorCode()).isEqualTo(Errors.NONE.code());
            assertThat(t.configs()).isNotEmpty();
            assertThat(t.numPartitions()).isEqualTo(2);
        }
        assertThat(topicNames()).contains("cr-new", "ok-new");
    }

    @Test
    void findCoordinatorAnswersEachKey() throws Exception {
        try (ProtocolClient alice = login("alice")) {
            FindCoordinatorResponse r = alice.call(new FindCoordinatorRequest().keyType((byte) 0)
                    .coordinatorKeys(List.of("g", "other")), (short) 4);
            Map<String, Short> errors = new HashMap<>();
            r.coordinators().forEach(c -> errors.put(c.key(), c.errorCode()));
            assertThat(errors).containsExactlyInAnyOrderEntriesOf(Map.of("g", Errors.NONE.code(),
                    "other", Errors.GROUP_AUTHORIZATION_FAILED.code()));
            assertThat(r.coordinators()).filteredOn(c -> c.key().equals("other")).singleElement()
                    .satisfies(c -> assertThat(c.nodeId()).isEqualTo(-1));
        }
    }

    private static Map<String, Short> delete(ProtocolClient c, String... topics) throws Exception {
        List<DeleteTopicsRequest.DeleteTopicState> states = new java.util.ArrayList<>();
        for (String t : topics) {
            states.add(new DeleteTopicsRequest.DeleteTopicState().name(t));
        }
        DeleteTopicsResponse r = c.call(new DeleteTopicsRequest().timeoutMs(10_000).topics(states), (short) 6);
        Map<String, Short> errors = new HashMap<>();
        r.responses().forEach(t -> errors.put(t.name(), t.errorCode()));
        return errors;
    }

    @Test
    void deleteTopicsHonoursDeleteOnTheClusterAndTellsWhoMayDescribeThatATopicIsMissing() throws Exception {
        try (ProtocolClient alice = login("alice")) {
            assertThat(delete(alice, "ok-missing", "no-missing", "no-a")).containsExactlyInAnyOrderEntriesOf(Map.of(
                    "ok-missing", Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
                    "no-missing", Errors.TOPIC_AUTHORIZATION_FAILED.code(),
                    "no-a", Errors.TOPIC_AUTHORIZATION_FAILED.code()));
        }
        try (ProtocolClient dave = login("dave")) {
            assertThat(delete(dave, "no-del")).containsExactly(Map.entry("no-del", Errors.NONE.code()));
        }
        assertThat(topicNames()).doesNotContain("no-del").contains("no-a");
    }
}
