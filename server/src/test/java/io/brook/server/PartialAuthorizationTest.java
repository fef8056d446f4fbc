package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.wire.message.DescribeTopicPartitionsRequest;
import io.brook.wire.message.DescribeTopicPartitionsRequest.TopicRequest;
import io.brook.wire.message.DescribeTopicPartitionsResponse;
import io.brook.wire.message.DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.OffsetCommitRequest;
import io.brook.wire.message.OffsetCommitResponse;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.message.OffsetForLeaderEpochRequest;
import io.brook.wire.message.OffsetForLeaderEpochResponse;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.message.SaslAuthenticateRequest;
import io.brook.wire.message.SaslHandshakeRequest;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A request naming topics its principal may use next to topics it may not is served for the first
 * and answered TOPIC_AUTHORIZATION_FAILED per topic or partition for the others, as Kafka does:
 * raw Produce, Fetch, OffsetCommit, OffsetFetch, OffsetForLeaderEpoch and DescribeTopicPartitions,
 * and the stock admin client's topic, config, offset and record calls. User alice may use the topics prefixed
 * {@code ok-} and the group {@code g}; {@code no-} topics are the admin's only.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PartialAuthorizationTest {

    private static Brook brook;

    @BeforeAll
    static void start() throws Exception {
        brook = PlainUsers.broker("alice");
        try (Admin admin = Admin.create(client("admin"))) {
            admin.createTopics(List.of(new NewTopic("ok-a", 2, (short) 1), new NewTopic("no-a", 2, (short) 1),
                    new NewTopic("ok-del", 1, (short) 1), new NewTopic("no-del", 1, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
            admin.createAcls(List.of(
                    allow(ResourceType.TOPIC, "ok-", PatternType.PREFIXED, AclOperation.ALL),
                    allow(ResourceType.GROUP, "g", PatternType.LITERAL, AclOperation.ALL)))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        brook.close();
    }

    private static AclBinding allow(ResourceType type, String name, PatternType pattern, AclOperation op) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry("User:alice", "*", op, AclPermissionType.ALLOW));
    }

    private static Properties client(String user) {
        return PlainUsers.client(brook.bootstrapServers("SASL_PLAINTEXT"), user);
    }

    private static ProtocolClient alice() throws Exception {
        return PlainUsers.login(brook, "alice");
    }

    private static Map<String, Short> errors(ProduceResponse r) {
        Map<String, Short> m = new HashMap<>();
        r.responses().forEach(t -> t.partitionResponses().forEach(p -> m.put(t.name() + "-" + p.index(), p.errorCode())));
        return m;
    }

    private static ProduceRequest.TopicProduceData produceTo(String topic) {
        RecordBatchBuilder b = new RecordBatchBuilder(Compression.NONE);
        b.append(1L, null, "v".getBytes(StandardCharsets.UTF_8));
        return new ProduceRequest.TopicProduceData().name(topic).partitionData(List.of(
                new ProduceRequest.PartitionProduceData().index(0).records(BufferRecords.wrap(b.build()))));
    }

    @Test
    void produceAppendsToTheAuthorizedTopicsOnly() throws Exception {
        try (ProtocolClient c = alice()) {
            ProduceResponse r = c.call(new ProduceRequest().acks((short) -1).timeoutMs(10_000)
                    .topicData(List.of(produceTo("ok-a"), produceTo("no-a"))), (short) 9);
            assertThat(errors(r)).containsEntry("ok-a-0", Errors.NONE.code())
                    .containsEntry("no-a-0", Errors.TOPIC_AUTHORIZATION_FAILED.code()).hasSize(2);
            ProduceResponse none = c.call(new ProduceRequest().acks((short) -1).timeoutMs(10_000)
                    .topicData(List.of(produceTo("no-a"))), (short) 9);
            assertThat(errors(none)).containsExactly(Map.entry("no-a-0", Errors.TOPIC_AUTHORIZATION_FAILED.code()));
        }
        try (Admin admin = Admin.create(client("admin"))) {
            var ends = admin.listOffsets(Map.of(new TopicPartition("no-a", 0), OffsetSpec.latest())).all()
                    .get(30, TimeUnit.SECONDS);
            assertThat(ends.get(new TopicPartition("no-a", 0)).offset()).as("nothing appended to the refused topic")
                    .isZero();
        }
    }

    @Test
    void fetchCommitAndEpochLookupsAnswerPerTopic() throws Exception {
        try (ProtocolClient c = alice()) {
            FetchResponse f = c.call(new FetchRequest().replicaId(-1).maxWaitMs(0).minBytes(0).maxBytes(1 << 20)
                    .isolationLevel((byte) 0).sessionId(0).sessionEpoch(-1).topics(List.of(
                            fetchTopic("ok-a"), fetchTopic("no-a"))).forgottenTopicsData(List.of()).rackId(""),
                    (short) 12);
            assertThat(f.errorCode()).isEqualTo(Errors.NONE.code());
            Map<String, Short> fetched = new HashMap<>();
            f.responses().forEach(t -> t.partitions().forEach(p -> fetched.put(t.topic(), p.errorCode())));
            assertThat(fetched).containsExactlyInAnyOrderEntriesOf(Map.of("ok-a", Errors.NONE.code(),
                    "no-a", Errors.TOPIC_AUTHORIZATION_FAILED.code()));

            OffsetCommitResponse oc = c.call(new OffsetCommitRequest().groupId("g").generationIdOrMemberEpoch(-1)
                    .memberId("").topics(List.of(commit("ok-a"), commit("no-a"))), (short) 8);
            Map<String, Short> committed = new HashMap<>();
            oc.topics().forEach(t -> t.partitions().forEach(p -> committed.put(t.name(), p.errorCode())));
            assertThat(committed).containsExactlyInAnyOrderEntriesOf(Map.of("ok-a", Errors.NONE.code(),
                    "no-a", Errors.TOPIC_AUTHORIZATION_FAILED.code()));

            OffsetFetchResponse named = c.call(new OffsetFetchRequest().groups(List.of(
                    new OffsetFetchRequest.OffsetFetchRequestGroup().groupId("g").topics(List.of(
                            new OffsetFetchRequest.OffsetFetchRequestTopics().name("ok-a").partitionIndexes(List.of(0)),
                            new OffsetFetchRequest.OffsetFetchRequestTopics().name("no-a").partitionIndexes(List.of(0)))),
                    new OffsetFetchRequest.OffsetFetchRequestGroup().groupId("other").topics(null))), (short) 8);
            assertThat(named.groups()).hasSize(2);
            var g = named.groups().stream().filter(x -> x.groupId().equals("g")).findFirst().orElseThrow();
            assertThat(g.errorCode()).isEqualTo(Errors.NONE.code());
            Map<String, Long> offsets = new HashMap<>();
            Map<String, Short> offsetErrors = new HashMap<>();
            g.topics().forEach(t -> t.partitions().forEach(p -> {
                offsets.put(t.name(), p.committedOffset());
                offsetErrors.put(t.name(), p.errorCode());
            }));
            assertThat(offsets).containsEntry("ok-a", 0L).containsEntry("no-a", -1L);
            assertThat(offsetErrors).containsEntry("no-a", Errors.TOPIC_AUTHORIZATION_FAILED.code());
            var other = named.groups().stream().filter(x -> x.groupId().equals("other")).findFirst().orElseThrow();
            assertThat(other.errorCode()).isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED.code());

            OffsetForLeaderEpochResponse e = c.call(new OffsetForLeaderEpochRequest().replicaId(-1).topics(List.of(
                    epochOf("ok-a"), epochOf("no-a"))), (short) 4);
            Map<String, Short> epochs = new HashMap<>();
            e.topics().forEach(t -> t.partitions().forEach(p -> epochs.put(t.topic(), p.errorCode())));
            assertThat(epochs).containsExactlyInAnyOrderEntriesOf(Map.of("ok-a", Errors.NONE.code(),
                    "no-a", Errors.TOPIC_AUTHORIZATION_FAILED.code()));
        }
        try (Admin admin = Admin.create(client("admin"))) {
            admin.alterConsumerGroupOffsets("g", Map.of(new TopicPartition("no-a", 1),
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(0))).all().get(30, TimeUnit.SECONDS);
        }
        try (Admin alice = Admin.create(client("alice"))) {
            var all = alice.listConsumerGroupOffsets("g").partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            assertThat(all.keySet()).as("all of a group's offsets leave out the topics alice may not describe")
                    .containsExactly(new TopicPartition("ok-a", 0));
        }
    }

    private static FetchRequest.FetchTopic fetchTopic(String topic) {
        return new FetchRequest.FetchTopic().topic(topic).partitions(List.of(new FetchRequest.FetchPartition()
                .partition(0).currentLeaderEpoch(-1).fetchOffset(0).lastFetchedEpoch(-1).logStartOffset(-1)
                .partitionMaxBytes(1 << 20)));
    }

    private static OffsetCommitRequest.OffsetCommitRequestTopic commit(String topic) {
        return new OffsetCommitRequest.OffsetCommitRequestTopic().name(topic).partitions(List.of(
                new OffsetCommitRequest.OffsetCommitRequestPartition().partitionIndex(0).committedOffset(0)
                        .committedLeaderEpoch(-1).committedMetadata("")));
    }

    private static OffsetForLeaderEpochRequest.OffsetForLeaderTopic epochOf(String topic) {
        return new OffsetForLeaderEpochRequest.OffsetForLeaderTopic().topic(topic).partitions(List.of(
                new OffsetForLeaderEpochRequest.OffsetForLeaderPartition().partition(0).currentLeaderEpoch(-1)
                        .leaderEpoch(0)));
    }

    private static void assertRefused(KafkaFuture<?> f) {
        assertThatThrownBy(() -> f.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void leaderElectionAndTheQuorumNeedTheCluster() throws Exception {
        try (Admin alice = Admin.create(client("alice")); Admin admin = Admin.create(client("admin"))) {
            assertThatThrownBy(() -> alice.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.ClusterAuthorizationException.class);
            assertThatThrownBy(() -> alice.electLeaders(org.apache.kafka.common.ElectionType.PREFERRED,
                    java.util.Set.of(new org.apache.kafka.common.TopicPartition("ok-a", 0))).all().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.ClusterAuthorizationException.class);
            assertThatThrownBy(() -> alice.listPartitionReassignments().reassignments().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.ClusterAuthorizationException.class);
            assertThat(admin.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS).leaderId()).isNotNegative();
            assertThat(admin.listPartitionReassignments().reassignments().get(30, TimeUnit.SECONDS)).isEmpty();
        }
    }

    @Test
    void adminCallsSucceedForTheAuthorizedTopicsOfAMixedRequest() throws Exception {
        try (Admin alice = Admin.create(client("alice"))) {
            var created = alice.createTopics(List.of(new NewTopic("ok-new", 1, (short) 1),
                    new NewTopic("no-new", 1, (short) 1))).values();
            created.get("ok-new").get(30, TimeUnit.SECONDS);
            assertRefused(created.get("no-new"));

            var grown = alice.createPartitions(Map.of("ok-new", NewPartitions.increaseTo(2),
                    "no-a", NewPartitions.increaseTo(3))).values();
            grown.get("ok-new").get(30, TimeUnit.SECONDS);
            assertRefused(grown.get("no-a"));

            ConfigResource ok = new ConfigResource(ConfigResource.Type.TOPIC, "ok-a");
            ConfigResource no = new ConfigResource(ConfigResource.Type.TOPIC, "no-a");
            var described = alice.describeConfigs(List.of(ok, no)).values();
            assertThat(described.get(ok).get(30, TimeUnit.SECONDS).get("retention.ms")).isNotNull();
            assertRefused(described.get(no));

            AlterConfigOp set = new AlterConfigOp(new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET);
            var altered = alice.incrementalAlterConfigs(Map.of(ok, List.of(set), no, List.of(set))).values();
            altered.get(ok).get(30, TimeUnit.SECONDS);
            assertRefused(altered.get(no));

            var listed = alice.listOffsets(Map.of(new TopicPartition("ok-a", 1), OffsetSpec.latest(),
                    new TopicPartition("no-a", 1), OffsetSpec.latest()));
            assertThat(listed.partitionResult(new TopicPartition("ok-a", 1)).get(30, TimeUnit.SECONDS).offset()).isZero();
            assertRefused(listed.partitionResult(new TopicPartition("no-a", 1)));

            var deletedRecords = alice.deleteRecords(Map.of(new TopicPartition("ok-a", 1), RecordsToDelete.beforeOffset(0),
                    new TopicPartition("no-a", 1), RecordsToDelete.beforeOffset(0))).lowWatermarks();
            deletedRecords.get(new TopicPartition("ok-a", 1)).get(30, TimeUnit.SECONDS);
            assertRefused(deletedRecords.get(new TopicPartition("no-a", 1)));

            var deleted = alice.deleteTopics(List.of("ok-del", "no-del")).topicNameValues();
            deleted.get("ok-del").get(30, TimeUnit.SECONDS);
            assertRefused(deleted.get("no-del"));
        }
        try (Admin admin = Admin.create(client("admin"))) {
            Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            assertThat(names).contains("ok-new", "no-del").doesNotContain("ok-del", "no-new");
            assertThat(admin.describeTopics(List.of("no-a")).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get("no-a").partitions()).as("no partitions added to the refused topic").hasSize(2);
        }
    }

    @Test
    void describeTopicPartitionsHidesOrRefusesTheTopicsTheClientMayNotDescribe() throws Exception {
        try (ProtocolClient c = alice()) {
            DescribeTopicPartitionsResponse named = c.call(new DescribeTopicPartitionsRequest().topics(List.of(
                    new TopicRequest().name("no-such"), new TopicRequest().name("ok-a"), new TopicRequest().name("no-a"))),
                    (short) 0);
            assertThat(named.topics()).extracting(DescribeTopicPartitionsResponseTopic::name)
                    .as("the refused ones after the others, in name order; a missing one refused as well")
                    .containsExactly("ok-a", "no-a", "no-such");
            DescribeTopicPartitionsResponseTopic ok = named.topics().get(0);
            assertThat(ok.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(ok.partitions()).hasSize(2);
            assertThat(ok.topicAuthorizedOperations() & (1 << 3)).as("READ among the authorized operations").isNotZero();
            for (DescribeTopicPartitionsResponseTopic refused : named.topics().subList(1, 3)) {
                assertThat(refused.errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                assertThat(refused.topicId()).isEqualTo(new java.util.UUID(0, 0));
                assertThat(refused.partitions()).isEmpty();
                assertThat(refused.topicAuthorizedOperations()).isEqualTo(Integer.MIN_VALUE);
            }

            DescribeTopicPartitionsResponse all = c.call(new DescribeTopicPartitionsRequest().topics(List.of()),
                    (short) 0);
            assertThat(all.topics()).extracting(DescribeTopicPartitionsResponseTopic::name).contains("ok-a")
                    .noneMatch(name -> name.startsWith("no-"));
            assertThat(all.topics()).allMatch(t -> t.errorCode() == Errors.NONE.code());
        }
    }

    @Test
    void anIncrementalFetchSessionStopsServingATopicWhoseReadWasRevoked() throws Exception {
        AclBinding read = new AclBinding(new ResourcePattern(ResourceType.TOPIC, "rv-x", PatternType.LITERAL),
                new AccessControlEntry("User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW));
        try (Admin admin = Admin.create(client("admin"))) {
            admin.createTopics(List.of(new NewTopic("rv-x", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            admin.createAcls(List.of(read)).all().get(30, TimeUnit.SECONDS);
        }
        try (ProtocolClient c = alice(); ProtocolClient admin = new ProtocolClient(brook.bootstrapServers("SASL_PLAINTEXT"))) {
            admin.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 1);
            admin.call(new SaslAuthenticateRequest().authBytes("\0admin\0admin-secret".getBytes(StandardCharsets.UTF_8)),
                    (short) 2);
            FetchResponse opened = c.call(new FetchRequest().replicaId(-1).maxWaitMs(0).minBytes(0).maxBytes(1 << 20)
                    .isolationLevel((byte) 0).sessionId(0).sessionEpoch(0).topics(List.of(fetchTopic("rv-x")))
                    .forgottenTopicsData(List.of()).rackId(""), (short) 12);
            assertThat(opened.sessionId()).as("a session opened").isNotZero();
            assertThat(errors(admin.call(new ProduceRequest().acks((short) -1).timeoutMs(10_000)
                    .topicData(List.of(produceTo("rv-x"))), (short) 9))).containsEntry("rv-x-0", Errors.NONE.code());
            try (Admin a = Admin.create(client("admin"))) {
                a.deleteAcls(List.of(read.toFilter())).all().get(30, TimeUnit.SECONDS);
            }
            FetchResponse next = c.call(new FetchRequest().replicaId(-1).maxWaitMs(0).minBytes(0).maxBytes(1 << 20)
                    .isolationLevel((byte) 0).sessionId(opened.sessionId()).sessionEpoch(1).topics(List.of())
                    .forgottenTopicsData(List.of()).rackId(""), (short) 12);
            assertThat(next.responses()).hasSize(1);
            var p = next.responses().get(0).partitions().get(0);
            assertThat(p.errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            assertThat(p.records().sizeInBytes()).isZero();
        }
    }
}
