package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.message.CreatePartitionsRequest;
import io.brook.wire.message.CreatePartitionsResponse;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.DeleteTopicsRequest;
import io.brook.wire.message.DeleteTopicsResponse;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
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
 * What Kafka's controller checks of a CreateTopics, DeleteTopics or CreatePartitions request as a
 * whole. A request that names a topic twice gets one answer for that name, INVALID_REQUEST, and
 * the topic is left alone, whether or not the principal may use the topic: an answer per entry
 * would name the topic twice, and librdkafka then refuses the whole response (every other
 * topic's result lost with it). A request for more than 10,000 partitions in all is refused whole.
 * The other topics of a request are served as usual, refused ones included.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TopicMutationRequestsTest {

    private static Brook brook;

    @BeforeAll
    static void start() throws Exception {
        brook = PlainUsers.broker("alice");
        try (Admin admin = Admin.create(PlainUsers.client(brook.bootstrapServers("SASL_PLAINTEXT"), "admin"))) {
            admin.createTopics(List.of(new NewTopic("ok-kept", 1, (short) 1), new NewTopic("no-kept", 1, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
            admin.createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.TOPIC, "ok-", PatternType.PREFIXED),
                    new AccessControlEntry("User:alice", "*", AclOperation.ALL, AclPermissionType.ALLOW))))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        brook.close();
    }

    private static Admin admin() {
        return Admin.create(PlainUsers.client(brook.bootstrapServers("SASL_PLAINTEXT"), "admin"));
    }

    private static java.util.Set<String> topicNames() throws Exception {
        try (Admin admin = admin()) {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS);
        }
    }

    private static org.apache.kafka.clients.admin.TopicDescription describe(String topic) throws Exception {
        try (Admin admin = admin()) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        }
    }

    private static UUID topicId(String topic) throws Exception {
        org.apache.kafka.common.Uuid id = describe(topic).topicId();
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    private static int partitionCount(String topic) throws Exception {
        return describe(topic).partitions().size();
    }

    @Test
    void createTopicsAnswersARepeatedNameOnceAndCreatesNothingForIt() throws Exception {
        for (String user : List.of("admin", "alice")) {
            try (ProtocolClient c = PlainUsers.login(brook, user)) {
                String dup = "ok-dup-" + user;
                String fresh = "ok-fresh-" + user;
                List<CreateTopicsRequest.CreatableTopic> topics = new ArrayList<>();
                for (String name : List.of(dup, fresh, dup, "no-dup", "no-dup", "no-other")) {
                    topics.add(new CreateTopicsRequest.CreatableTopic().name(name).numPartitions(1)
                            .replicationFactor((short) 1).assignments(List.of()).configs(List.of()));
                }
                CreateTopicsResponse r = c.call(new CreateTopicsRequest().timeoutMs(10_000).topics(topics), (short) 7);
                Map<String, Short> errors = new LinkedHashMap<>();
                r.topics().forEach(t -> assertThat(errors.put(t.name(), t.errorCode())).as(t.name() + " once").isNull());
                assertThat(errors).containsEntry(dup, Errors.INVALID_REQUEST.code())
                        .containsEntry(fresh, Errors.NONE.code())
                        .containsEntry("no-dup", Errors.INVALID_REQUEST.code())
                        .containsEntry("no-other", user.equals("admin") ? Errors.NONE.code()
                                : Errors.TOPIC_AUTHORIZATION_FAILED.code()).hasSize(4);
                assertThat(r.topics()).filteredOn(t -> t.name().equals(dup)).singleElement()
                        .satisfies(t -> assertThat(t.errorMessage()).isEqualTo("Duplicate topic name."));
                assertThat(topicNames()).contains(fresh).doesNotContain(dup, "no-dup");
            }
        }
    }

    @Test
    void deleteTopicsAnswersARepeatedNameOrIdOnceAndDeletesNothingForIt() throws Exception {
        try (ProtocolClient alice = PlainUsers.login(brook, "alice")) {
            List<DeleteTopicsRequest.DeleteTopicState> states = new ArrayList<>();
            for (String name : List.of("ok-kept", "no-kept", "ok-kept", "no-kept", "no-missing")) {
                states.add(new DeleteTopicsRequest.DeleteTopicState().name(name));
            }
            DeleteTopicsResponse r = alice.call(new DeleteTopicsRequest().timeoutMs(10_000).topics(states), (short) 6);
            Map<String, Short> errors = new LinkedHashMap<>();
            r.responses().forEach(t -> assertThat(errors.put(t.name(), t.errorCode())).as(t.name() + " once").isNull());
            assertThat(errors).containsExactlyInAnyOrderEntriesOf(Map.of(
                    "ok-kept", Errors.INVALID_REQUEST.code(),
                    "no-kept", Errors.INVALID_REQUEST.code(),
                    "no-missing", Errors.TOPIC_AUTHORIZATION_FAILED.code()));

            UUID id = topicId("ok-kept");
            DeleteTopicsResponse byId = alice.call(new DeleteTopicsRequest().timeoutMs(10_000).topics(List.of(
                    new DeleteTopicsRequest.DeleteTopicState().topicId(id),
                    new DeleteTopicsRequest.DeleteTopicState().topicId(id))), (short) 6);
            assertThat(byId.responses()).singleElement().satisfies(t -> {
                assertThat(t.topicId()).isEqualTo(id);
                assertThat(t.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
                assertThat(t.errorMessage()).isEqualTo("Duplicate topic id.");
            });

            DeleteTopicsResponse v5 = alice.call(new DeleteTopicsRequest().timeoutMs(10_000)
                    .topicNames(List.of("ok-kept", "ok-kept")), (short) 5);
            assertThat(v5.responses()).singleElement()
                    .satisfies(t -> assertThat(t.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code()));
        }
        assertThat(topicNames()).contains("ok-kept", "no-kept");
    }

    @Test
    void createPartitionsAnswersARepeatedNameOnceAndGrowsNothingForIt() throws Exception {
        try (ProtocolClient alice = PlainUsers.login(brook, "alice")) {
            List<CreatePartitionsRequest.CreatePartitionsTopic> topics = new ArrayList<>();
            for (String name : List.of("ok-kept", "no-kept", "ok-kept", "no-kept", "no-missing")) {
                topics.add(new CreatePartitionsRequest.CreatePartitionsTopic().name(name).count(3));
            }
            CreatePartitionsResponse r = alice.call(new CreatePartitionsRequest().timeoutMs(10_000).topics(topics),
                    (short) 3);
            Map<String, Short> errors = new LinkedHashMap<>();
            r.results().forEach(t -> assertThat(errors.put(t.name(), t.errorCode())).as(t.name() + " once").isNull());
            assertThat(errors).containsExactlyInAnyOrderEntriesOf(Map.of(
                    "ok-kept", Errors.INVALID_REQUEST.code(),
                    "no-kept", Errors.INVALID_REQUEST.code(),
                    "no-missing", Errors.TOPIC_AUTHORIZATION_FAILED.code()));
        }
        assertThat(partitionCount("ok-kept")).isEqualTo(1);
    }

    /**
     * As Kafka's controller, a request for more than 10,000 partitions in all is refused whole:
     * every topic POLICY_VIOLATION, with Kafka's message, however the partitions are spread (here
     * one topic of 10,001 and a small one). A repeated name is still answered as a duplicate.
     */
    @Test
    void aRequestForMoreThanTenThousandPartitionsIsRefusedWhole() throws Exception {
        try (ProtocolClient admin = PlainUsers.login(brook, "admin")) {
            List<CreateTopicsRequest.CreatableTopic> topics = new ArrayList<>();
            for (String name : List.of("big-one", "small-one", "dup-one", "dup-one")) {
                topics.add(new CreateTopicsRequest.CreatableTopic().name(name)
                        .numPartitions(name.equals("big-one") ? 10_001 : 1).replicationFactor((short) 1)
                        .assignments(List.of()).configs(List.of()));
            }
            CreateTopicsResponse r = admin.call(new CreateTopicsRequest().timeoutMs(10_000).topics(topics), (short) 7);
            assertThat(r.topics()).extracting(t -> t.name() + "=" + t.errorCode() + " " + t.errorMessage())
                    .containsExactlyInAnyOrder(
                            "big-one=" + Errors.POLICY_VIOLATION.code() + " Excessively large number of partitions per request.",
                            "small-one=" + Errors.POLICY_VIOLATION.code() + " Excessively large number of partitions per request.",
                            "dup-one=" + Errors.INVALID_REQUEST.code() + " Duplicate topic name.");
            assertThat(topicNames()).doesNotContain("big-one", "small-one");

            CreatePartitionsResponse grown = admin.call(new CreatePartitionsRequest().timeoutMs(10_000).topics(List.of(
                    new CreatePartitionsRequest.CreatePartitionsTopic().name("ok-kept").count(6_001),
                    new CreatePartitionsRequest.CreatePartitionsTopic().name("no-kept").count(4_002))), (short) 3);
            assertThat(grown.results()).allSatisfy(t -> {
                assertThat(t.errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code());
                assertThat(t.errorMessage()).isEqualTo("Excessively large number of additional partitions per request.");
            });
        }
        assertThat(partitionCount("ok-kept")).isEqualTo(1);
    }
}
