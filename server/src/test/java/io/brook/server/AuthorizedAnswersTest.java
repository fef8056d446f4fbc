package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.wire.message.AlterConfigsRequest;
import io.brook.wire.message.AlterConfigsResponse;
import io.brook.wire.message.SaslAuthenticateRequest;
import io.brook.wire.message.SaslHandshakeRequest;
import io.brook.wire.protocol.Errors;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionReplica;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the answers of DescribeCluster, DescribeGroups and ListGroups show a principal is what its
 * ACLs allow (KIP-430's authorized operations, groups listed), DescribeLogDirs needs DESCRIBE on
 * the cluster and AlterReplicaLogDirs ALTER, and the configs of an internal
 * topic change only with the cluster's permission and never to a policy that deletes its records.
 * Users: admin (super user); alice with DESCRIBE and ALTER_CONFIGS on the cluster, READ on group
 * {@code g} and ALTER_CONFIGS on {@code __consumer_offsets}; bob with DELETE on group {@code g},
 * DESCRIBE on the groups prefixed {@code h-} and ALTER_CONFIGS on {@code __consumer_offsets}.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class AuthorizedAnswersTest {

    private static final String OFFSETS = "__consumer_offsets";
    private static Brook brook;

    @BeforeAll
    static void start() throws Exception {
        brook = PlainUsers.broker("alice", "bob");
        try (Admin admin = Admin.create(client("admin"))) {
            admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            for (String group : List.of("g", "h-1", "x")) {
                admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(0)))
                        .all().get(30, TimeUnit.SECONDS);
            }
            admin.createAcls(List.of(
                    allow("alice", ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, AclOperation.DESCRIBE),
                    allow("alice", ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL,
                            AclOperation.ALTER_CONFIGS),
                    allow("alice", ResourceType.GROUP, "g", PatternType.LITERAL, AclOperation.READ),
                    allow("alice", ResourceType.TOPIC, OFFSETS, PatternType.LITERAL, AclOperation.ALTER_CONFIGS),
                    allow("bob", ResourceType.GROUP, "g", PatternType.LITERAL, AclOperation.DELETE),
                    allow("bob", ResourceType.GROUP, "h-", PatternType.PREFIXED, AclOperation.DESCRIBE),
                    allow("bob", ResourceType.TOPIC, OFFSETS, PatternType.LITERAL, AclOperation.ALTER_CONFIGS)))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        brook.close();
    }

    private static AclBinding allow(String user, ResourceType type, String name, PatternType pattern, AclOperation op) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry("User:" + user, "*", op, AclPermissionType.ALLOW));
    }

    private static Properties client(String user) {
        return PlainUsers.client(brook.bootstrapServers("SASL_PLAINTEXT"), user);
    }

    private static Set<AclOperation> clusterOperations(String user) throws Exception {
        try (Admin a = Admin.create(client(user))) {
            return a.describeCluster(new DescribeClusterOptions().includeAuthorizedOperations(true))
                    .authorizedOperations().get(30, TimeUnit.SECONDS);
        }
    }

    private static Set<AclOperation> groupOperations(String user, String group) throws Exception {
        try (Admin a = Admin.create(client(user))) {
            return a.describeConsumerGroups(List.of(group), new DescribeConsumerGroupsOptions()
                    .includeAuthorizedOperations(true)).all().get(30, TimeUnit.SECONDS).get(group).authorizedOperations();
        }
    }

    private static Set<String> listedGroups(String user) throws Exception {
        try (Admin a = Admin.create(client(user))) {
            Collection<ConsumerGroupListing> groups = a.listConsumerGroups().all().get(30, TimeUnit.SECONDS);
            return groups.stream().map(ConsumerGroupListing::groupId).collect(Collectors.toSet());
        }
    }

    @Test
    void describeClusterReportsTheOperationsTheAclsAllowOnTheCluster() throws Exception {
        assertThat(clusterOperations("admin")).containsExactlyInAnyOrder(AclOperation.CREATE, AclOperation.ALTER,
                AclOperation.DESCRIBE, AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS,
                AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE);
        assertThat(clusterOperations("alice")).as("ALTER_CONFIGS implies DESCRIBE_CONFIGS")
                .containsExactlyInAnyOrder(AclOperation.DESCRIBE, AclOperation.ALTER_CONFIGS,
                        AclOperation.DESCRIBE_CONFIGS);
        assertThat(clusterOperations("bob")).isEmpty();
    }

    @Test
    void describeGroupsReportsTheOperationsTheAclsAllowOnEachGroup() throws Exception {
        assertThat(groupOperations("admin", "g")).containsExactlyInAnyOrder(AclOperation.READ,
                AclOperation.DESCRIBE, AclOperation.DELETE, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS);
        assertThat(groupOperations("alice", "g")).as("READ implies DESCRIBE")
                .containsExactlyInAnyOrder(AclOperation.READ, AclOperation.DESCRIBE);
        assertThat(groupOperations("bob", "g")).containsExactlyInAnyOrder(AclOperation.DELETE, AclOperation.DESCRIBE);
        assertThat(groupOperations("bob", "h-1")).containsExactly(AclOperation.DESCRIBE);
    }

    @Test
    void listGroupsShowsEveryGroupWithClusterDescribeElseTheDescribableOnes() throws Exception {
        assertThat(listedGroups("admin")).contains("g", "h-1", "x");
        assertThat(listedGroups("alice")).as("DESCRIBE on the cluster").contains("g", "h-1", "x");
        assertThat(listedGroups("bob")).containsExactlyInAnyOrder("g", "h-1");
    }

    @Test
    void describeLogDirsNeedsDescribeOnTheCluster() throws Exception {
        try (Admin alice = Admin.create(client("alice"))) {
            int node = alice.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next().id();
            assertThat(alice.describeLogDirs(List.of(node)).allDescriptions().get(30, TimeUnit.SECONDS).get(node))
                    .isNotEmpty();
            try (Admin bob = Admin.create(client("bob"))) {
                assertThatThrownBy(() -> bob.describeLogDirs(List.of(node)).allDescriptions()
                        .get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(ClusterAuthorizationException.class);
            }
        }
    }

    @Test
    void alterReplicaLogDirsNeedsAlterOnTheCluster() throws Exception {
        try (Admin admin = Admin.create(client("admin")); Admin alice = Admin.create(client("alice"))) {
            int node = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next().id();
            String dir = admin.describeLogDirs(List.of(node)).allDescriptions().get(30, TimeUnit.SECONDS).get(node)
                    .keySet().iterator().next();
            TopicPartitionReplica replica = new TopicPartitionReplica("t", 0, node);
            admin.alterReplicaLogDirs(Map.of(replica, dir)).all().get(30, TimeUnit.SECONDS);
            assertThatThrownBy(() -> alice.alterReplicaLogDirs(Map.of(replica, dir)).all().get(30, TimeUnit.SECONDS))
                    .as("DESCRIBE and ALTER_CONFIGS on the cluster are not ALTER")
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(ClusterAuthorizationException.class);
        }
    }

    @Test
    void internalTopicConfigsNeedTheClusterAndKeepTheirCompactPolicy() throws Exception {
        ConfigResource offsets = new ConfigResource(ConfigResource.Type.TOPIC, OFFSETS);
        AlterConfigOp segmentMs = new AlterConfigOp(new ConfigEntry("segment.ms", "3600000"), AlterConfigOp.OpType.SET);
        try (Admin bob = Admin.create(client("bob"))) {
            assertThatThrownBy(() -> bob.incrementalAlterConfigs(Map.of(offsets, List.of(segmentMs))).all()
                    .get(30, TimeUnit.SECONDS)).as("ALTER_CONFIGS on the topic alone")
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(ClusterAuthorizationException.class);
        }
        try (Admin alice = Admin.create(client("alice"))) {
            alice.incrementalAlterConfigs(Map.of(offsets, List.of(segmentMs))).all().get(30, TimeUnit.SECONDS);
        }
        try (Admin admin = Admin.create(client("admin"))) {
            for (String policy : List.of("delete", "compact,delete")) {
                assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(offsets, List.of(new AlterConfigOp(
                        new ConfigEntry("cleanup.policy", policy), AlterConfigOp.OpType.SET)))).all()
                        .get(30, TimeUnit.SECONDS)).as(policy).isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(InvalidConfigurationException.class)
                        .hasMessageContaining("must stay compact");
            }
            assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(offsets, List.of(new AlterConfigOp(
                    new ConfigEntry("cleanup.policy", ""), AlterConfigOp.OpType.DELETE)))).all()
                    .get(30, TimeUnit.SECONDS)).as("back to the broker's default").isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidConfigurationException.class);
            assertThat(wholeSet(Map.of("segment.ms", "1000"))).as("a whole-set change that leaves the policy out")
                    .isEqualTo(Errors.INVALID_CONFIG);
            assertThat(wholeSet(Map.of("cleanup.policy", "compact", "segment.ms", "7200000"))).isEqualTo(Errors.NONE);
            Config now = admin.describeConfigs(List.of(offsets)).all().get(30, TimeUnit.SECONDS).get(offsets);
            assertThat(now.get("cleanup.policy").value()).isEqualTo("compact");
            assertThat(now.get("segment.ms").value()).isEqualTo("7200000");
        }
    }

    /** The whole-set AlterConfigs (key 33, gone from Kafka 4's Admin but still sent by older tools), as admin. */
    private static Errors wholeSet(Map<String, String> configs) throws Exception {
        try (ProtocolClient c = new ProtocolClient(brook.bootstrapServers("SASL_PLAINTEXT"))) {
            c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 1);
            c.call(new SaslAuthenticateRequest().authBytes("\0admin\0admin-secret".getBytes(StandardCharsets.UTF_8)),
                    (short) 2);
            List<AlterConfigsRequest.AlterableConfig> entries = new ArrayList<>();
            configs.forEach((k, v) -> entries.add(new AlterConfigsRequest.AlterableConfig().name(k).value(v)));
            AlterConfigsResponse r = c.call(new AlterConfigsRequest().resources(List.of(
                    new AlterConfigsRequest.AlterConfigsResource().resourceType((byte) 2).resourceName(OFFSETS)
                            .configs(entries))), (short) 2);
            return Errors.forCode(r.responses().get(0).errorCode());
        }
    }
}
