package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.controller.ControllerError;
import io.brook.server.cluster.FakeQuorum;
import io.brook.server.security.ScramCredentials;
import io.brook.server.security.quota.ClientQuotaStore;
import io.brook.server.security.quota.QuotaEntity;
import io.brook.server.security.quota.QuotaKey;
import io.brook.testkit.Await;
import io.brook.wire.message.AlterClientQuotasRequest;
import io.brook.wire.message.AlterClientQuotasRequest.EntityData;
import io.brook.wire.message.AlterClientQuotasRequest.EntryData;
import io.brook.wire.message.AlterClientQuotasRequest.OpData;
import io.brook.wire.message.AlterClientQuotasResponse;
import io.brook.wire.message.AlterUserScramCredentialsRequest;
import io.brook.wire.message.AlterUserScramCredentialsRequest.ScramCredentialUpsertion;
import io.brook.wire.message.AlterUserScramCredentialsResponse;
import io.brook.wire.message.CreateAclsRequest;
import io.brook.wire.message.CreateAclsRequest.AclCreation;
import io.brook.wire.message.CreateAclsResponse;
import io.brook.wire.message.CreateAclsResponse.AclCreationResult;
import io.brook.wire.protocol.Errors;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateDelegationTokenOptions;
import org.apache.kafka.clients.admin.ExpireDelegationTokenOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RenewDelegationTokenOptions;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.token.delegation.DelegationToken;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ACLs, SCRAM credentials, delegation tokens, client quotas and groups' own settings in cluster
 * mode are records of the metadata log (nodes over an in-memory quorum, stock clients over SASL_PLAINTEXT with
 * SCRAM-SHA-512): a change made through one node holds on every node, the bootstrap users of one
 * node's configuration log in on all, and the settings a node kept in its own files before are
 * written to the cluster once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterSecurityTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dirs;

    private final FakeQuorum quorum = new FakeQuorum();
    private final List<Brook> nodes = new ArrayList<>();
    private final int[] voterPorts = {InJvmCluster.freePort(), InJvmCluster.freePort(), InJvmCluster.freePort()};

    /** Starts node {@code id} (1-based); only node 1 names the bootstrap user admin. */
    private Brook start(int id) {
        String voters = "1@127.0.0.1:" + voterPorts[0] + ",2@127.0.0.1:" + voterPorts[1] + ",3@127.0.0.1:"
                + voterPorts[2];
        Map<String, String> c = new HashMap<>();
        c.put("process.roles", "broker,controller");
        c.put("node.id", Integer.toString(id));
        c.put("cluster.id", "fake-cluster");
        c.put("controller.quorum.voters", voters);
        c.put("controller.listener.names", "CONTROLLER");
        c.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:"
                + voterPorts[id - 1]);
        c.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
        c.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        // ANONYMOUS: the raw requests of the PLAINTEXT listener are an administrator's
        c.put("super.users", "User:admin;User:ANONYMOUS");
        // the same key on every node: each computes a token's HMAC itself
        c.put("delegation.token.secret.key", "cluster-token-secret");
        if (id == 1) {
            c.put("brook.sasl.scram.bootstrap.credentials", "SCRAM-SHA-512=[name=admin,password=admin-secret]");
        }
        Brook b = Brook.builder().dataDir(dirs.resolve("node" + id)).config(c).clusterMembers(quorum.members()).start();
        nodes.add(b);
        return b;
    }

    @AfterEach
    void stop() {
        nodes.forEach(Brook::close);
    }

    private static Properties scram(Brook node, String user, String password) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, node.bootstrapServers("SASL_PLAINTEXT"));
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512");
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"" + user + "\" password=\"" + password + "\";");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return p;
    }

    /** Whether {@code user} logs in on {@code node} (an admin call that needs nothing but a login). */
    private static boolean logsIn(Brook node, String user, String password) {
        return logsIn(scram(node, user, password));
    }

    /** Whether a client configured by {@code client} logs in. */
    private static boolean logsIn(Properties client) {
        try (Admin a = Admin.create(client)) {
            a.describeCluster().clusterId().get(15, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SaslAuthenticationException) {
                return false;
            }
            throw new AssertionError(e);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private Admin admin(Brook node) {
        Await.until("admin logs in on " + node.bootstrapServers("SASL_PLAINTEXT"), WAIT,
                () -> logsIn(node, "admin", "admin-secret"));
        return Admin.create(scram(node, "admin", "admin-secret"));
    }

    @Test
    void theBootstrapUsersOfOneNodeLogInOnEveryNode() {
        start(1);
        Brook second = start(2);
        // written to the log once node 1 registered; node 2 never had it in its configuration
        Await.until("admin logs in on node 2", WAIT, () -> logsIn(second, "admin", "admin-secret"));
        assertThat(logsIn(second, "admin", "wrong")).isFalse();
    }

    @Test
    void aUserMadeOrDeletedThroughOneNodeIsMadeOrDeletedOnEvery() throws Exception {
        Brook first = start(1);
        Brook second = start(2);
        try (Admin onFirst = admin(first); Admin onSecond = admin(second)) {
            onFirst.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("bob",
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), "bob-secret")))
                    .all().get(30, TimeUnit.SECONDS);
            // read back at once from the node asked, and from the other
            assertThat(onFirst.describeUserScramCredentials(List.of("bob")).all().get(30, TimeUnit.SECONDS))
                    .containsKey("bob");
            assertThat(onSecond.describeUserScramCredentials(List.of("bob")).all().get(30, TimeUnit.SECONDS)
                    .get("bob").credentialInfos()).extracting(ScramCredentialInfo::iterations).containsExactly(8192);
            assertThat(logsIn(second, "bob", "bob-secret")).isTrue();

            onSecond.alterUserScramCredentials(List.of(new UserScramCredentialDeletion("bob",
                    ScramMechanism.SCRAM_SHA_512))).all().get(30, TimeUnit.SECONDS);
            assertThat(logsIn(first, "bob", "bob-secret")).as("deleted through node 2").isFalse();
        }
    }

    @Test
    void aclsMadeThroughOneNodeAreEnforcedByEvery() throws Exception {
        Brook first = start(1);
        Brook second = start(2);
        try (Admin onFirst = admin(first); Admin onSecond = admin(second)) {
            onFirst.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("bob",
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "bob-secret")))
                    .all().get(30, TimeUnit.SECONDS);
            onFirst.createTopics(List.of(new NewTopic("orders", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            assertThatThrownBy(() -> send(second, "orders")).hasCauseInstanceOf(TopicAuthorizationException.class);

            AclBinding write = new AclBinding(new ResourcePattern(ResourceType.TOPIC, "orders", PatternType.LITERAL),
                    new AccessControlEntry("User:bob", "*", AclOperation.WRITE, AclPermissionType.ALLOW));
            onFirst.createAcls(List.of(write)).all().get(30, TimeUnit.SECONDS);
            assertThat(onSecond.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS))
                    .containsExactly(write);
            send(second, "orders");

            Collection<AclBinding> deleted = onSecond.deleteAcls(List.of(AclBindingFilter.ANY)).all()
                    .get(30, TimeUnit.SECONDS);
            assertThat(deleted).containsExactly(write);
            assertThat(onFirst.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS)).isEmpty();
            assertThatThrownBy(() -> send(first, "orders")).hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void moreAclsThanOneLogEntryTakesAreWrittenAndDeletedInSeveral() throws Exception {
        Brook first = start(1);
        Brook second = start(2);
        // as many as one request may change
        List<AclBinding> many = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            many.add(new AclBinding(new ResourcePattern(ResourceType.TOPIC, "t" + i, PatternType.LITERAL),
                    new AccessControlEntry("User:bob", "*", AclOperation.READ, AclPermissionType.ALLOW)));
        }
        try (Admin onFirst = admin(first); Admin onSecond = admin(second)) {
            onFirst.createAcls(many).all().get(60, TimeUnit.SECONDS);
            assertThat(onSecond.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS)).hasSize(10_000);
            assertThat(onSecond.deleteAcls(List.of(AclBindingFilter.ANY)).all().get(60, TimeUnit.SECONDS))
                    .hasSize(10_000);
            assertThat(onFirst.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS)).isEmpty();
        }
    }

    @Test
    void aRequestChangingMoreThanTenThousandAclsIsRefusedWholeWithPolicyViolation() throws Exception {
        Brook first = start(1);
        Brook second = start(2);
        List<AclBinding> many = new ArrayList<>();
        for (int i = 0; i < 10_001; i++) {
            many.add(new AclBinding(new ResourcePattern(ResourceType.TOPIC, "t" + i, PatternType.LITERAL),
                    new AccessControlEntry("User:bob", "*", AclOperation.READ, AclPermissionType.ALLOW)));
        }
        try (Admin onFirst = admin(first); Admin onSecond = admin(second)) {
            assertThatThrownBy(() -> onFirst.createAcls(many).all().get(60, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(PolicyViolationException.class)
                    .hasMessageContaining("excessively large batch operation");
            assertThat(onSecond.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS)).isEmpty();

            onFirst.createAcls(many.subList(0, 10_000)).all().get(60, TimeUnit.SECONDS);
            onFirst.createAcls(many.subList(10_000, 10_001)).all().get(60, TimeUnit.SECONDS);
            assertThatThrownBy(() -> onSecond.deleteAcls(List.of(AclBindingFilter.ANY)).all().get(60,
                    TimeUnit.SECONDS)).hasCauseInstanceOf(PolicyViolationException.class)
                    .hasMessageContaining("10001");
            assertThat(onFirst.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS))
                    .hasSize(10_001);
        }
    }

    @Test
    void aChangeNoControllerTakesAnswersEachEntryNotControllerAndChangesNothing() throws Exception {
        Brook first = start(1);
        quorum.refuseSecurityWrites(ControllerError.NOT_CONTROLLER);
        short notController = Errors.NOT_CONTROLLER.code();
        try (ProtocolClient c = new ProtocolClient(first.bootstrapServers("PLAINTEXT"))) {
            CreateAclsResponse acls = c.call(new CreateAclsRequest().creations(List.of(new AclCreation()
                    .resourceType((byte) 2).resourceName("t").resourcePatternType((byte) 3).principal("User:bob")
                    .host("*").operation((byte) 3).permissionType((byte) 3))), (short) 3);
            assertThat(acls.results()).extracting(AclCreationResult::errorCode).containsExactly(notController);
            AlterClientQuotasResponse quotas = c.call(new AlterClientQuotasRequest().entries(List.of(new EntryData()
                    .entity(List.of(new EntityData().entityType("user").entityName("bob")))
                    .ops(List.of(new OpData().key("producer_byte_rate").value(1024.0))))), (short) 1);
            assertThat(quotas.entries().get(0).errorCode()).isEqualTo(notController);
            AlterUserScramCredentialsResponse users = c.call(new AlterUserScramCredentialsRequest()
                    .upsertions(List.of(new ScramCredentialUpsertion().name("bob").mechanism((byte) 2)
                            .iterations(4096).salt(new byte[16]).saltedPassword(new byte[64]))), (short) 0);
            assertThat(users.results().get(0).errorCode()).isEqualTo(notController);
        }
        quorum.refuseSecurityWrites(null);
        try (Admin onFirst = admin(first)) {
            assertThat(onFirst.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS)).isEmpty();
            assertThat(onFirst.describeClientQuotas(ClientQuotaFilter.all()).entities().get(30, TimeUnit.SECONDS))
                    .isEmpty();
            assertThat(onFirst.describeUserScramCredentials().all().get(30, TimeUnit.SECONDS))
                    .as("bob has no credential").doesNotContainKey("bob");
        }
    }

    /** Whether a client logs in on {@code node} with {@code token} (SCRAM with the token extension). */
    private static boolean tokenLogsIn(Brook node, DelegationToken token) {
        Properties p = scram(node, token.tokenInfo().tokenId(), token.hmacAsBase64String());
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"" + token.tokenInfo().tokenId() + "\" password=\"" + token.hmacAsBase64String()
                + "\" tokenauth=\"true\";");
        return logsIn(p);
    }

    /** The expiry of the token {@code tokenId} as described through {@code admin}, or -1 when it is not listed. */
    private static long describedExpiry(Admin admin, String tokenId) {
        try {
            return admin.describeDelegationToken().delegationTokens().get(30, TimeUnit.SECONDS).stream()
                    .filter(t -> t.tokenInfo().tokenId().equals(tokenId))
                    .mapToLong(t -> t.tokenInfo().expiryTimestamp()).findFirst().orElse(-1);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aTokenMadeThroughOneNodeLogsInOnEveryAndItsRenewalAndExpiryReachEvery() throws Exception {
        Brook first = start(1);
        Brook second = start(2);
        try (Admin onFirst = admin(first); Admin onSecond = admin(second)) {
            DelegationToken token = onFirst.createDelegationToken(new CreateDelegationTokenOptions())
                    .delegationToken().get(30, TimeUnit.SECONDS);
            String id = token.tokenInfo().tokenId();
            assertThat(token.tokenInfo().owner().toString()).isEqualTo("User:admin");
            assertThat(describedExpiry(onFirst, id)).as("read back from the node asked")
                    .isEqualTo(token.tokenInfo().expiryTimestamp());
            Await.until("node 2 lists the token", WAIT,
                    () -> describedExpiry(onSecond, id) == token.tokenInfo().expiryTimestamp());
            assertThat(tokenLogsIn(second, token)).as("node 2 computes the same HMAC").isTrue();

            // renewed through node 2 for an hour (the token was made for a day): node 1 has the new expiry
            long renewed = onSecond.renewDelegationToken(token.hmac(),
                    new RenewDelegationTokenOptions().renewTimePeriodMs(3_600_000L)).expiryTimestamp()
                    .get(30, TimeUnit.SECONDS);
            assertThat(renewed).isLessThan(token.tokenInfo().expiryTimestamp());
            Await.until("node 1 has the renewal", WAIT, () -> describedExpiry(onFirst, id) == renewed);

            // expired at once through node 1: gone from node 2, where it logs in no more
            onFirst.expireDelegationToken(token.hmac(), new ExpireDelegationTokenOptions().expiryTimePeriodMs(-1))
                    .expiryTimestamp().get(30, TimeUnit.SECONDS);
            assertThat(describedExpiry(onFirst, id)).isEqualTo(-1);
            Await.until("node 2 dropped the token", WAIT, () -> describedExpiry(onSecond, id) == -1);
            assertThat(tokenLogsIn(second, token)).as("expired through node 1").isFalse();
            assertThat(tokenLogsIn(first, token)).isFalse();
        }
    }

    private static void send(Brook node, String topic) throws Exception {
        Properties p = scram(node, "bob", "bob-secret");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 15_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.send(new ProducerRecord<>(topic, "k", "v")).get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void quotasSetThroughOneNodeAreEveryNodes() throws Exception {
        Brook first = start(1);
        Brook second = start(2);
        try (Admin onFirst = admin(first); Admin onSecond = admin(second)) {
            ClientQuotaEntity bob = new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "bob"));
            onFirst.alterClientQuotas(List.of(new ClientQuotaAlteration(bob,
                    List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1024.0)))))
                    .all().get(30, TimeUnit.SECONDS);
            assertThat(onSecond.describeClientQuotas(ClientQuotaFilter.all()).entities().get(30, TimeUnit.SECONDS))
                    .isEqualTo(Map.of(bob, Map.of("producer_byte_rate", 1024.0)));
            onSecond.alterClientQuotas(List.of(new ClientQuotaAlteration(bob,
                    List.of(new ClientQuotaAlteration.Op("producer_byte_rate", null)))))
                    .all().get(30, TimeUnit.SECONDS);
            assertThat(onFirst.describeClientQuotas(ClientQuotaFilter.all()).entities().get(30, TimeUnit.SECONDS))
                    .isEmpty();
        }
    }

    /** Group {@code group}'s {@code consumer.session.timeout.ms} as described through {@code admin}. */
    private static ConfigEntry sessionTimeoutOf(Admin admin, String group) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        try {
            return admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource)
                    .get("consumer.session.timeout.ms");
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aGroupsOwnSettingMadeOrDeletedThroughOneNodeHoldsOnEvery() throws Exception {
        Brook first = start(1);
        Brook second = start(2);
        ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, "orders-app");
        try (Admin onFirst = admin(first); Admin onSecond = admin(second)) {
            assertThat(sessionTimeoutOf(onSecond, "orders-app").source())
                    .isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
            onFirst.incrementalAlterConfigs(Map.of(group, List.of(new AlterConfigOp(
                    new ConfigEntry("consumer.session.timeout.ms", "50000"), AlterConfigOp.OpType.SET))))
                    .all().get(30, TimeUnit.SECONDS);
            ConfigEntry asked = sessionTimeoutOf(onFirst, "orders-app");
            assertThat(asked.value()).as("read back at once from the node asked").isEqualTo("50000");
            assertThat(asked.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG);
            Await.until("node 2 has the group's session timeout", WAIT, () -> {
                ConfigEntry e = sessionTimeoutOf(onSecond, "orders-app");
                return e.value().equals("50000") && e.source() == ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG;
            });

            onSecond.incrementalAlterConfigs(Map.of(group, List.of(new AlterConfigOp(
                    new ConfigEntry("consumer.session.timeout.ms", null), AlterConfigOp.OpType.DELETE))))
                    .all().get(30, TimeUnit.SECONDS);
            Await.until("node 1 is back to the broker's default", WAIT, () -> {
                ConfigEntry e = sessionTimeoutOf(onFirst, "orders-app");
                return e.value().equals("45000") && e.source() == ConfigEntry.ConfigSource.DEFAULT_CONFIG;
            });
        }
    }

    @Test
    void settingsANodeKeptInItsOwnFilesAreWrittenToTheClusterOnce() throws Exception {
        start(1);
        // node 2 ran a version that kept its security settings in its own metadata directory
        Path meta = dirs.resolve("node2").resolve("meta");
        Files.createDirectories(meta);
        Base64.Encoder b64 = Base64.getEncoder();
        Files.writeString(meta.resolve("acls"), "# ACLs\n2 3 3 3 " + b64.encodeToString(bytes("orders")) + " "
                + b64.encodeToString(bytes("User:carol")) + " " + b64.encodeToString(bytes("*")) + "\n");
        ScramCredentials.open(meta).addIfAbsent("carol", io.brook.server.security.ScramMechanism.SCRAM_SHA_512, "carol-secret", 4096);
        ClientQuotaStore.open(meta).apply(List.of(new ClientQuotaStore.Change(
                new QuotaEntity(QuotaEntity.Name.of("carol"), null, null), QuotaKey.CONSUMER_BYTE_RATE, 2048.0))).join();
        Brook second = start(2);
        Brook first = nodes.get(0);

        Await.until("carol logs in on node 1", WAIT, () -> logsIn(first, "carol", "carol-secret"));
        try (Admin onFirst = admin(first)) {
            assertThat(onFirst.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS))
                    .containsExactly(new AclBinding(new ResourcePattern(ResourceType.TOPIC, "orders",
                            PatternType.LITERAL), new AccessControlEntry("User:carol", "*", AclOperation.READ,
                            AclPermissionType.ALLOW)));
            assertThat(onFirst.describeClientQuotas(ClientQuotaFilter.all()).entities().get(30, TimeUnit.SECONDS))
                    .isEqualTo(Map.of(new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "carol")),
                            Map.of("consumer_byte_rate", 2048.0)));
            Await.until("node 2's files renamed", WAIT, () -> !Files.exists(meta.resolve("acls")));
            assertThat(meta.resolve("acls.in-cluster-metadata")).exists();
            assertThat(meta.resolve("scram-credentials.in-cluster-metadata")).exists();
            assertThat(meta.resolve("client-quotas.in-cluster-metadata")).exists();

            // deleted in the cluster, and not written again when node 2 starts again
            onFirst.deleteAcls(List.of(AclBindingFilter.ANY)).all().get(30, TimeUnit.SECONDS);
            second.restart();
            Await.until("admin logs in on node 2 again", WAIT, () -> logsIn(second, "admin", "admin-secret"));
            assertThat(onFirst.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS)).isEmpty();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
