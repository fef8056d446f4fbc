package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ACLs with the stock admin client, producer and consumer over SASL/PLAIN: a producer without
 * WRITE, a consumer without READ on its group, a user without ALTER on the cluster, prefixed
 * ACLs, DENY over ALLOW, a super user, Metadata hiding topics, ACLs surviving a restart, KIP-430's
 * authorized operations of the cluster and of a group, ListGroups showing only describable groups, and
 * SECURITY_DISABLED without an authorizer. The secured broker is described once and started as
 * the embedded Brook or, under run-against-kafka.sh, as the reference Kafka ({@link SecuredBroker}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AclCompatTest {

    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " user_admin=\"admin-secret\" user_alice=\"alice-secret\";";

    private static Map<String, String> brokerConfig() {
        return Map.of(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS,
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users", "User:admin");
    }

    private static java.util.Collection<AclBinding> describe(Admin admin, AclBindingFilter filter) {
        return admin.describeAcls(filter).values().toCompletionStage().toCompletableFuture().join();
    }

    /**
     * Creates ACLs and waits until the broker describes them: Kafka applies an ACL from its metadata
     * log a moment after acknowledging it (Brook at once), and enforces what it describes.
     */
    static void createAndAwait(Admin admin, List<AclBinding> acls) throws Exception {
        admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
        Await.until("the broker describes " + acls, Duration.ofSeconds(30),
                () -> acls.stream().allMatch(acl -> describe(admin, acl.toFilter()).contains(acl)));
    }

    /** A SASL_PLAINTEXT/PLAIN client of {@code user}, whose password is {@code <user>-secret}. */
    static Properties client(String bootstrap, String user) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " username=\"" + user + "\" password=\"" + user + "-secret\";");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return p;
    }

    private static AclBinding allow(ResourceType type, String name, PatternType pattern, String user, AclOperation op) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry("User:" + user, "*", op, AclPermissionType.ALLOW));
    }

    /** Writes one record to partition 0 as {@code user}; throws what the producer saw. */
    static void produce(String bootstrap, String user, String topic) throws Exception {
        Properties p = client(bootstrap, user);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.send(new ProducerRecord<>(topic, "k", "v")).get(30, TimeUnit.SECONDS);
        }
    }

    /** Reads partition 0 from the start as {@code user} in {@code group} and commits; the records read. */
    static int consume(String bootstrap, String user, String topic, String group) {
        Properties p = client(bootstrap, user);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            int n = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (n == 0 && System.nanoTime() < deadline) {
                n += consumer.poll(Duration.ofMillis(200)).count();
            }
            consumer.commitSync();
            return n;
        }
    }

    @Test
    void enforcesTopicGroupAndClusterAclsAsKafkaDoes(@TempDir Path data) throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, brokerConfig())) {
            String addr = b.bootstrapServers("SASL_PLAINTEXT");
            try (Admin admin = Admin.create(client(addr, "admin"))) {
                admin.createTopics(List.of(new NewTopic("orders-eu", 1, (short) 1), new NewTopic("secret", 1,
                        (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
            // a producer without WRITE
            assertThatThrownBy(() -> produce(addr, "alice", "orders-eu"))
                    .hasRootCauseInstanceOf(TopicAuthorizationException.class);
            // a user without ALTER on the cluster cannot grant itself anything
            try (Admin alice = Admin.create(client(addr, "alice"))) {
                assertThatThrownBy(() -> alice.createAcls(List.of(allow(ResourceType.TOPIC, "orders-eu",
                        PatternType.LITERAL, "alice", AclOperation.ALL))).all().get(30, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(ClusterAuthorizationException.class);
            }
            try (Admin admin = Admin.create(client(addr, "admin"))) {
                createAndAwait(admin, List.of(
                        allow(ResourceType.TOPIC, "orders-", PatternType.PREFIXED, "alice", AclOperation.WRITE),
                        allow(ResourceType.TOPIC, "orders-", PatternType.PREFIXED, "alice", AclOperation.READ)));
            }
            produce(addr, "alice", "orders-eu");
            // a consumer without READ on its group
            assertThatThrownBy(() -> consume(addr, "alice", "orders-eu", "alice-group"))
                    .isInstanceOf(GroupAuthorizationException.class);
            try (Admin admin = Admin.create(client(addr, "admin"))) {
                createAndAwait(admin, List.of(allow(ResourceType.GROUP, "alice-group", PatternType.LITERAL, "alice",
                        AclOperation.READ)));
            }
            assertThat(consume(addr, "alice", "orders-eu", "alice-group")).isEqualTo(1);
            // Metadata shows alice only the topics she may describe (READ and WRITE imply DESCRIBE)
            try (Admin alice = Admin.create(client(addr, "alice"))) {
                assertThat(alice.listTopics().names().get(30, TimeUnit.SECONDS)).containsExactly("orders-eu");
                // KIP-430: the operations the ACLs allow her
                assertThat(alice.describeTopics(List.of("orders-eu"), new DescribeTopicsOptions()
                        .includeAuthorizedOperations(true)).allTopicNames().get(30, TimeUnit.SECONDS)
                        .get("orders-eu").authorizedOperations())
                        .containsExactlyInAnyOrder(AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE);
            }
            // DENY wins over ALLOW
            try (Admin admin = Admin.create(client(addr, "admin"))) {
                createAndAwait(admin, List.of(new AclBinding(new ResourcePattern(ResourceType.TOPIC, "orders-eu",
                        PatternType.LITERAL), new AccessControlEntry("User:alice", "*", AclOperation.READ,
                        AclPermissionType.DENY))));
            }
            assertThatThrownBy(() -> consume(addr, "alice", "orders-eu", "alice-group"))
                    .isInstanceOf(TopicAuthorizationException.class);
            // the super user needs no ACL
            produce(addr, "admin", "secret");
            // ACLs are durable; DescribeAcls and DeleteAcls
            b.restart();
            try (Admin admin = Admin.create(client(b.bootstrapServers("SASL_PLAINTEXT"), "admin"))) {
                AclBindingFilter aliceTopics = new AclBindingFilter(new ResourcePatternFilter(ResourceType.TOPIC,
                        null, PatternType.ANY), new AccessControlEntryFilter("User:alice", null, AclOperation.ANY,
                        AclPermissionType.ANY));
                assertThat(admin.describeAcls(aliceTopics).values().get(30, TimeUnit.SECONDS)).hasSize(3);
                AclBindingFilter matchOrders = new AclBindingFilter(new ResourcePatternFilter(ResourceType.TOPIC,
                        "orders-eu", PatternType.MATCH), AccessControlEntryFilter.ANY);
                assertThat(admin.describeAcls(matchOrders).values().get(30, TimeUnit.SECONDS)).hasSize(3);
                assertThat(admin.deleteAcls(List.of(aliceTopics)).all().get(30, TimeUnit.SECONDS)).hasSize(3);
                Await.until("the deleted ACLs are gone", Duration.ofSeconds(30), () -> describe(admin,
                        AclBindingFilter.ANY).size() == 1);
            }
        }
    }

    @Test
    void describeClusterDescribeGroupsAndListGroupsShowWhatTheAclsAllow(@TempDir Path data) throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, brokerConfig())) {
            String addr = b.bootstrapServers("SASL_PLAINTEXT");
            try (Admin admin = Admin.create(client(addr, "admin"))) {
                admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
                for (String group : List.of("g-1", "other")) {
                    admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(0)))
                            .all().get(30, TimeUnit.SECONDS);
                }
                createAndAwait(admin, List.of(
                        allow(ResourceType.GROUP, "g-", PatternType.PREFIXED, "alice", AclOperation.READ),
                        allow(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, "alice",
                                AclOperation.ALTER_CONFIGS)));
            }
            try (Admin alice = Admin.create(client(addr, "alice"))) {
                // KIP-430: none of the cluster's operations without DESCRIBE on it
                assertThat(alice.describeCluster(new DescribeClusterOptions().includeAuthorizedOperations(true))
                        .authorizedOperations().get(30, TimeUnit.SECONDS)).isEmpty();
                // and ListGroups shows her only the groups she may describe
                assertThat(alice.listConsumerGroups().all().get(30, TimeUnit.SECONDS))
                        .extracting(ConsumerGroupListing::groupId).containsExactly("g-1");
            }
            try (Admin admin = Admin.create(client(addr, "admin"))) {
                createAndAwait(admin, List.of(allow(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL,
                        "alice", AclOperation.DESCRIBE)));
            }
            try (Admin alice = Admin.create(client(addr, "alice"))) {
                // ALTER_CONFIGS implies DESCRIBE_CONFIGS; READ implies DESCRIBE
                assertThat(alice.describeCluster(new DescribeClusterOptions().includeAuthorizedOperations(true))
                        .authorizedOperations().get(30, TimeUnit.SECONDS)).containsExactlyInAnyOrder(
                        AclOperation.DESCRIBE, AclOperation.ALTER_CONFIGS, AclOperation.DESCRIBE_CONFIGS);
                assertThat(alice.describeConsumerGroups(List.of("g-1"), new DescribeConsumerGroupsOptions()
                        .includeAuthorizedOperations(true)).all().get(30, TimeUnit.SECONDS).get("g-1")
                        .authorizedOperations()).containsExactlyInAnyOrder(AclOperation.READ, AclOperation.DESCRIBE);
            }
            try (Admin admin = Admin.create(client(addr, "admin"))) {
                assertThat(admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS))
                        .extracting(ConsumerGroupListing::groupId).contains("g-1", "other");
            }
        }
    }

    @Test
    void aclApisAnswerSecurityDisabledWithoutAnAuthorizer() throws Exception {
        // the suite's plain broker: the embedded Brook, or the reference Kafka without an authorizer
        try (BrookCluster b = new BrookCluster()) {
            Properties p = new Properties();
            p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, b.bootstrapServers());
            try (Admin admin = Admin.create(p)) {
                assertThatThrownBy(() -> admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(SecurityDisabledException.class)
                        .cause().hasMessage("No Authorizer is configured on the broker");
                assertThatThrownBy(() -> admin.createAcls(List.of(allow(ResourceType.TOPIC, "t", PatternType.LITERAL,
                        "a", AclOperation.READ))).all().get(30, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(SecurityDisabledException.class)
                        .cause().hasMessage("No Authorizer is configured.");
                assertThatThrownBy(() -> admin.deleteAcls(List.of(AclBindingFilter.ANY)).all().get(30, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(SecurityDisabledException.class)
                        .cause().hasMessage("No Authorizer is configured.");
            }
        }
    }
}
