package io.brook.compat;

import static io.brook.compat.AclCompatTest.client;
import static io.brook.compat.AclCompatTest.createAndAwait;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterUserScramCredentialsResult;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The authorization rules of Kafka's handlers beyond one operation per topic, seen by the stock
 * clients: the admin client's batched coordinator lookups fail only the groups refused; a producer
 * that may describe a missing topic but not create it fails at once; CreateTopics shows a new
 * topic's configs only to who may describe them (KIP-525); DELETE on the cluster deletes any
 * topic; whole-request refusals carry their error and its text to the admin client. Against the embedded Brook or, under run-against-kafka.sh, the reference Kafka
 * ({@link SecuredBroker}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AuthorizationRulesCompatTest {

    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " user_admin=\"admin-secret\" user_alice=\"alice-secret\" user_carol=\"carol-secret\""
            + " user_dave=\"dave-secret\";";

    private static AclBinding allow(ResourceType type, String name, PatternType pattern, String user, AclOperation op) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry("User:" + user, "*", op, AclPermissionType.ALLOW));
    }

    /** A SASL_PLAINTEXT listener with the PLAIN users of {@link #JAAS}, ACLs on, admin a super user, and {@code key}. */
    private static Map<String, String> withAcls(String key, String value) {
        return Map.of(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS,
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users", "User:admin",
                key, value);
    }

    private static java.util.Set<String> topics(Admin admin) {
        try {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void kafkasAuthorizationRulesAsTheStockClientsSeeThem(@TempDir Path data) throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, withAcls("auto.create.topics.enable", "true"))) {
            String addr = b.bootstrapServers("SASL_PLAINTEXT");
            try (Admin admin = Admin.create(client(addr, "admin"))) {
                admin.createTopics(List.of(new NewTopic("t", 1, (short) 1), new NewTopic("doomed", 1, (short) 1)))
                        .all().get(30, TimeUnit.SECONDS);
                for (String group : List.of("g-1", "other")) {
                    admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(0)))
                            .all().get(30, TimeUnit.SECONDS);
                }
                createAndAwait(admin, List.of(
                        allow(ResourceType.GROUP, "g-", PatternType.PREFIXED, "alice", AclOperation.READ),
                        allow(ResourceType.TOPIC, "de-", PatternType.PREFIXED, "alice", AclOperation.DESCRIBE),
                        allow(ResourceType.TOPIC, "de-", PatternType.PREFIXED, "alice", AclOperation.WRITE),
                        allow(ResourceType.TOPIC, "cr-", PatternType.PREFIXED, "carol", AclOperation.CREATE),
                        allow(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, "dave", AclOperation.DELETE)));
            }
            try (Admin alice = Admin.create(client(addr, "alice"))) {
                DescribeConsumerGroupsResult groups = alice.describeConsumerGroups(List.of("g-1", "other"));
                assertThat(groups.describedGroups().get("g-1").get(30, TimeUnit.SECONDS).groupId()).isEqualTo("g-1");
                assertThatThrownBy(() -> groups.describedGroups().get("other").get(30, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(GroupAuthorizationException.class);
            }
            // may describe and write de-missing, may not create it: refused at once, not left waiting for metadata
            assertThatThrownBy(() -> AclCompatTest.produce(addr, "alice", "de-missing"))
                    .hasRootCauseInstanceOf(TopicAuthorizationException.class);
            try (Admin carol = Admin.create(client(addr, "carol"))) {
                CreateTopicsResult created = carol.createTopics(List.of(new NewTopic("cr-new", 2, (short) 1)));
                created.all().get(30, TimeUnit.SECONDS);
                assertThatThrownBy(() -> created.config("cr-new").get(30, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(TopicAuthorizationException.class);
            }
            try (Admin dave = Admin.create(client(addr, "dave"))) {
                dave.deleteTopics(List.of("doomed")).all().get(30, TimeUnit.SECONDS);
            }
            try (Admin admin = Admin.create(client(addr, "admin"))) {
                // Kafka's metadata shows a deletion a moment after it was acknowledged
                Await.until("doomed gone", Duration.ofSeconds(30), () -> !topics(admin).contains("doomed"));
                assertThat(topics(admin)).contains("cr-new", "t").doesNotContain("de-missing");
            }
        }
    }

    /**
     * Whole-request refusals as the admin client reports them: a SCRAM change refused for each user
     * it names (its response has no top-level error), and the error's own text rather than an
     * empty message. An ACL for a principal with an empty name is stored, as by Kafka.
     */
    @Test
    void refusalsReachTheAdminClientWithTheirErrorAndText(@TempDir Path data) throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, withAcls("auto.create.topics.enable", "false"))) {
            String addr = b.bootstrapServers("SASL_PLAINTEXT");
            AclBinding emptyName = allow(ResourceType.TOPIC, "t", PatternType.LITERAL, "", AclOperation.READ);
            try (Admin admin = Admin.create(client(addr, "admin"))) {
                admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
                createAndAwait(admin, List.of(emptyName));
            }
            try (Admin alice = Admin.create(client(addr, "alice"))) {
                AlterUserScramCredentialsResult scram = alice.alterUserScramCredentials(List.of(
                        new UserScramCredentialUpsertion("alice",
                                new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), "new-secret"),
                        new UserScramCredentialDeletion("carol", ScramMechanism.SCRAM_SHA_512)));
                for (String user : List.of("alice", "carol")) {
                    assertThatThrownBy(() -> scram.values().get(user).get(30, TimeUnit.SECONDS))
                            .hasCauseInstanceOf(ClusterAuthorizationException.class);
                }
                ConfigResource t = new ConfigResource(ConfigResource.Type.TOPIC, "t");
                assertThatThrownBy(() -> alice.incrementalAlterConfigs(Map.of(t, List.of(new AlterConfigOp(
                        new ConfigEntry("retention.ms", "1000"), AlterConfigOp.OpType.SET)))).all()
                        .get(30, TimeUnit.SECONDS))
                        .cause().isInstanceOf(TopicAuthorizationException.class)
                        .satisfies(x -> assertThat(x.getMessage()).isNotBlank());
                assertThatThrownBy(() -> alice.describeClientQuotas(ClientQuotaFilter.all()).entities()
                        .get(30, TimeUnit.SECONDS))
                        .cause().isInstanceOf(ClusterAuthorizationException.class)
                        .satisfies(x -> assertThat(x.getMessage()).isNotBlank());
            }
        }
    }
}
