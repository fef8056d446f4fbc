package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateDelegationTokenOptions;
import org.apache.kafka.clients.admin.DescribeDelegationTokenOptions;
import org.apache.kafka.clients.admin.ExpireDelegationTokenOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RenewDelegationTokenOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.DelegationTokenAuthorizationException;
import org.apache.kafka.common.errors.DelegationTokenDisabledException;
import org.apache.kafka.common.errors.DelegationTokenNotFoundException;
import org.apache.kafka.common.errors.DelegationTokenOwnerMismatchException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.UnsupportedByAuthenticationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.token.delegation.DelegationToken;
import org.apache.kafka.common.security.token.delegation.TokenInformation;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.tools.DelegationTokenCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delegation tokens (KIP-48, KIP-373) with the stock admin client, producer and
 * {@code kafka-delegation-tokens.sh}: a token logs in over SCRAM (either mechanism, the
 * {@code tokenauth} extension) as its owner, with the owner's ACLs; renewers renew, owners and
 * renewers expire, describing shows a token only to its owner, requester and renewers or to who
 * has DESCRIBE_TOKENS on its owner; a token for someone else needs CREATE_TOKENS on them; tokens
 * are durable; a token-authenticated or PLAINTEXT connection may not manage tokens; without
 * {@code delegation.token.secret.key} tokens are disabled. Against the embedded Brook or, under
 * run-against-kafka.sh, the reference Kafka ({@link SecuredBroker}).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DelegationTokenCompatTest {

    private static final String[] USERS = {"SCRAM-SHA-512=[name=admin,password=admin-secret]",
            "SCRAM-SHA-512=[name=alice,password=alice-secret]", "SCRAM-SHA-512=[name=bob,password=bob-secret]",
            "SCRAM-SHA-512=[name=carol,password=carol-secret]"};

    @TempDir
    Path data;

    private static Map<String, String> config(boolean tokens) {
        Map<String, String> c = new HashMap<>(Map.of(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512",
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users", "User:admin"));
        if (tokens) {
            c.put("delegation.token.secret.key", "a-secret-every-broker-shares");
        }
        return c;
    }

    private static Properties user(String addr, String mechanism, String name, String password, boolean token) {
        Properties p = new Properties();
        p.put("bootstrap.servers", addr);
        p.put("security.protocol", "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, mechanism);
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"" + name + "\" password=\"" + password + "\"" + (token ? " tokenauth=\"true\"" : "") + ";");
        p.put("default.api.timeout.ms", 15_000);
        p.put("request.timeout.ms", 10_000);
        return p;
    }

    private static Admin admin(String addr, String name) {
        return Admin.create(user(addr, "SCRAM-SHA-512", name, name + "-secret", false));
    }

    private static Admin tokenAdmin(String addr, String mechanism, DelegationToken token) {
        return Admin.create(user(addr, mechanism, token.tokenInfo().tokenId(), token.hmacAsBase64String(), true));
    }

    private static KafkaPrincipal principal(String name) {
        return new KafkaPrincipal(KafkaPrincipal.USER_TYPE, name);
    }

    /**
     * Creates a token and waits until {@code admin}'s broker serves it: Kafka answers once its
     * controller committed the token and applies it on the broker a moment later (Brook answers
     * once it is applied).
     */
    private static DelegationToken create(Admin admin, CreateDelegationTokenOptions options) throws Exception {
        DelegationToken token = admin.createDelegationToken(options).delegationToken().get(30, TimeUnit.SECONDS);
        awaitServed(admin, token.tokenInfo().tokenId());
        return token;
    }

    private static void awaitServed(Admin admin, String tokenId) {
        Await.until("the broker serves token " + tokenId, Duration.ofSeconds(30),
                () -> describedIdsUnchecked(admin).contains(tokenId));
    }

    private static List<String> describedIds(Admin admin) throws Exception {
        return admin.describeDelegationToken().delegationTokens().get(30, TimeUnit.SECONDS).stream()
                .map(t -> t.tokenInfo().tokenId()).toList();
    }

    private static List<String> describedIdsUnchecked(Admin admin) {
        try {
            return describedIds(admin);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void allow(Admin admin, ResourceType type, String name, String user, AclOperation op)
            throws Exception {
        AclBinding acl = new AclBinding(new ResourcePattern(type, name, PatternType.LITERAL),
                new AccessControlEntry("User:" + user, "*", op, AclPermissionType.ALLOW));
        AclCompatTest.createAndAwait(admin, List.of(acl));
    }

    @Test
    void aTokenLogsInWithEitherScramMechanismAsItsOwner() throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, config(true), USERS)) {
            String addr = b.bootstrapServers("SASL_PLAINTEXT");
            DelegationToken token;
            try (Admin admin = admin(addr, "admin"); Admin alice = admin(addr, "alice")) {
                admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
                allow(admin, ResourceType.TOPIC, "orders", "alice", AclOperation.WRITE);
                token = create(alice, new CreateDelegationTokenOptions());
            }
            TokenInformation info = token.tokenInfo();
            assertThat(info.owner()).isEqualTo(principal("alice"));
            assertThat(info.tokenRequester()).isEqualTo(principal("alice"));
            assertThat(info.expiryTimestamp()).isGreaterThan(info.issueTimestamp()).isLessThanOrEqualTo(info.maxTimestamp());
            assertThat(token.hmac()).hasSize(64); // HMAC-SHA512

            for (String mechanism : List.of("SCRAM-SHA-256", "SCRAM-SHA-512")) {
                Properties p = user(addr, mechanism, info.tokenId(), token.hmacAsBase64String(), true);
                p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
                p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
                p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
                p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
                    assertThat(producer.send(new ProducerRecord<>("orders", "k", mechanism)).get(30, TimeUnit.SECONDS)
                            .topic()).as("the token writes with alice's ACL").isEqualTo("orders");
                }
            }
            try (Admin byToken = tokenAdmin(addr, "SCRAM-SHA-256", token)) {
                assertThatThrownBy(() -> create(byToken, new CreateDelegationTokenOptions()))
                        .as("a token cannot make tokens").hasCauseInstanceOf(UnsupportedByAuthenticationException.class);
                assertThatThrownBy(() -> describedIds(byToken))
                        .hasCauseInstanceOf(UnsupportedByAuthenticationException.class);
            }
            Properties wrong = user(addr, "SCRAM-SHA-512", info.tokenId(), "bm90LXRoZS1obWFj", true);
            try (Admin a = Admin.create(wrong)) {
                assertThatThrownBy(() -> a.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(SaslAuthenticationException.class);
            }
            // the token id is no user name: without the extension, the login fails
            try (Admin a = Admin.create(user(addr, "SCRAM-SHA-512", info.tokenId(), token.hmacAsBase64String(),
                    false))) {
                assertThatThrownBy(() -> a.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(SaslAuthenticationException.class);
            }
        }
    }

    @Test
    void renewersRenewOwnersExpireAndDescribeShowsTokensToThoseAllowed() throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, config(true), USERS)) {
            String addr = b.bootstrapServers("SASL_PLAINTEXT");
            try (Admin admin = admin(addr, "admin"); Admin alice = admin(addr, "alice"); Admin bob = admin(addr, "bob");
                    Admin carol = admin(addr, "carol")) {
                DelegationToken token = create(alice, new CreateDelegationTokenOptions()
                        .renewers(List.of(principal("bob"))).maxLifetimeMs(3_600_000));
                TokenInformation info = token.tokenInfo();
                assertThat(info.maxTimestamp() - info.issueTimestamp()).isEqualTo(3_600_000);
                assertThat(info.renewers()).containsExactly(principal("bob"));

                long renewed = bob.renewDelegationToken(token.hmac(), new RenewDelegationTokenOptions()
                        .renewTimePeriodMs(60_000)).expiryTimestamp().get(30, TimeUnit.SECONDS);
                assertThat(renewed).isBetween(info.issueTimestamp() + 60_000, info.maxTimestamp());
                assertThatThrownBy(() -> carol.renewDelegationToken(token.hmac()).expiryTimestamp()
                        .get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(DelegationTokenOwnerMismatchException.class);

                assertThat(describedIds(alice)).containsExactly(info.tokenId());
                assertThat(describedIds(bob)).as("a renewer").containsExactly(info.tokenId());
                assertThat(describedIds(admin)).as("a super user").containsExactly(info.tokenId());
                assertThat(describedIds(carol)).isEmpty();
                allow(admin, ResourceType.USER, "User:alice", "carol", AclOperation.DESCRIBE_TOKENS);
                Await.until("carol sees alice's tokens", Duration.ofSeconds(30),
                        () -> describedIdsUnchecked(carol).equals(List.of(info.tokenId())));
                List<DelegationToken> seen = carol.describeDelegationToken().delegationTokens()
                        .get(30, TimeUnit.SECONDS);
                assertThat(seen.get(0).tokenInfo().expiryTimestamp()).isEqualTo(renewed);
                assertThat(seen.get(0).hmac()).isEqualTo(token.hmac());
                assertThat(alice.describeDelegationToken(new DescribeDelegationTokenOptions()
                        .owners(List.of(principal("bob")))).delegationTokens().get(30, TimeUnit.SECONDS))
                        .as("bob renews it, so it is among bob's").hasSize(1);
                assertThat(alice.describeDelegationToken(new DescribeDelegationTokenOptions()
                        .owners(List.of(principal("carol")))).delegationTokens().get(30, TimeUnit.SECONDS)).isEmpty();

                assertThatThrownBy(() -> carol.expireDelegationToken(token.hmac()).expiryTimestamp()
                        .get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(DelegationTokenOwnerMismatchException.class);
                alice.expireDelegationToken(token.hmac(), new ExpireDelegationTokenOptions().expiryTimePeriodMs(-1))
                        .expiryTimestamp().get(30, TimeUnit.SECONDS);
                assertThat(describedIds(admin)).isEmpty();
                assertThatThrownBy(() -> bob.renewDelegationToken(token.hmac()).expiryTimestamp()
                        .get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(DelegationTokenNotFoundException.class);
                try (Admin byToken = tokenAdmin(addr, "SCRAM-SHA-512", token)) {
                    assertThatThrownBy(() -> byToken.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                            .as("an expired token no longer logs in")
                            .hasCauseInstanceOf(SaslAuthenticationException.class);
                }
            }
        }
    }

    @Test
    void aTokenForSomeoneElseNeedsCreateTokensOnThem() throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, config(true), USERS)) {
            String addr = b.bootstrapServers("SASL_PLAINTEXT");
            try (Admin admin = admin(addr, "admin"); Admin bob = admin(addr, "bob")) {
                CreateDelegationTokenOptions forAlice = new CreateDelegationTokenOptions().owner(principal("alice"));
                assertThatThrownBy(() -> create(bob, forAlice))
                        .hasCauseInstanceOf(DelegationTokenAuthorizationException.class);
                allow(admin, ResourceType.USER, "User:alice", "bob", AclOperation.CREATE_TOKENS);
                DelegationToken token = create(bob, forAlice);
                assertThat(token.tokenInfo().owner()).isEqualTo(principal("alice"));
                assertThat(token.tokenInfo().tokenRequester()).isEqualTo(principal("bob"));
                assertThat(describedIds(bob)).as("the requester sees it").containsExactly(token.tokenInfo().tokenId());
                try (Admin byToken = tokenAdmin(addr, "SCRAM-SHA-512", token)) {
                    assertThat(byToken.describeCluster().nodes().get(30, TimeUnit.SECONDS)).hasSize(1);
                }
            }
        }
    }

    @Test
    void tokensAreDurableAndPlaintextConnectionsMayNotManageThem() throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, config(true), USERS)) {
            DelegationToken token;
            try (Admin alice = admin(b.bootstrapServers("SASL_PLAINTEXT"), "alice")) {
                token = create(alice, new CreateDelegationTokenOptions());
            }
            try (Admin plain = Admin.create(Map.of("bootstrap.servers", b.bootstrapServers("PLAINTEXT"),
                    "default.api.timeout.ms", 15_000, "request.timeout.ms", 10_000))) {
                assertThatThrownBy(() -> create(plain, new CreateDelegationTokenOptions()))
                        .hasCauseInstanceOf(UnsupportedByAuthenticationException.class);
                assertThatThrownBy(() -> describedIds(plain))
                        .hasCauseInstanceOf(UnsupportedByAuthenticationException.class);
            }
            b.restart();
            String addr = b.bootstrapServers("SASL_PLAINTEXT");
            try (Admin byToken = tokenAdmin(addr, "SCRAM-SHA-256", token)) {
                assertThat(byToken.describeCluster().nodes().get(30, TimeUnit.SECONDS)).hasSize(1);
            }
            try (Admin admin = admin(addr, "admin")) {
                assertThat(describedIds(admin)).containsExactly(token.tokenInfo().tokenId());
            }
        }
    }

    @Test
    void withoutASecretKeyTokensAreDisabled() throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, config(false), USERS);
                Admin alice = admin(b.bootstrapServers("SASL_PLAINTEXT"), "alice")) {
            assertThatThrownBy(() -> create(alice, new CreateDelegationTokenOptions()))
                    .hasCauseInstanceOf(DelegationTokenDisabledException.class);
            assertThatThrownBy(() -> describedIds(alice)).hasCauseInstanceOf(DelegationTokenDisabledException.class);
            assertThatThrownBy(() -> alice.renewDelegationToken(new byte[64]).expiryTimestamp()
                    .get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(DelegationTokenDisabledException.class);
        }
    }

    @Test
    void kafkaDelegationTokensToolCreatesDescribesRenewsAndExpires() throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, config(true), USERS)) {
            String addr = b.bootstrapServers("SASL_PLAINTEXT");
            Path alice = data.resolve("alice.properties");
            Properties p = user(addr, "SCRAM-SHA-512", "alice", "alice-secret", false);
            p.remove("bootstrap.servers");
            p.remove("default.api.timeout.ms");
            p.remove("request.timeout.ms");
            try (var out = Files.newOutputStream(alice)) {
                p.store(out, null);
            }
            Tools.Result created = tool(addr, alice, "--create", "--max-life-time-period", "-1",
                    "--renewer-principal", "User:bob");
            Matcher m = Pattern.compile("(?m)^(\\S{10,})\\s+(\\S{40,})\\s+User:alice").matcher(created.out());
            assertThat(m.find()).as(created.out()).isTrue();
            String tokenId = m.group(1);
            String hmac = m.group(2);
            try (Admin a = admin(addr, "alice")) {
                awaitServed(a, tokenId);
            }
            // the tool asks for the current user's tokens with an empty list of owners, which Kafka
            // answers with none; Brook answers as for no list: every token the requester may see
            Tools.Result described = tool(addr, alice, "--describe");
            if (b.kafka()) {
                assertThat(described.out()).contains("Total number of tokens : 0");
            } else {
                assertThat(described.out()).contains("Total number of tokens : 1", tokenId, hmac, "User:bob");
            }
            assertThat(tool(addr, alice, "--describe", "--owner-principal", "User:alice").out())
                    .contains("Total number of tokens : 1", tokenId, hmac, "User:bob");
            assertThat(tool(addr, alice, "--renew", "--renew-time-period", "-1", "--hmac", hmac).out())
                    .contains("Completed renew operation");
            assertThat(tool(addr, alice, "--expire", "--expiry-time-period", "-1", "--hmac", hmac).out())
                    .contains("Completed expire operation");
            assertThat(tool(addr, alice, "--describe", "--owner-principal", "User:alice").out())
                    .contains("Total number of tokens : 0").doesNotContain(tokenId);
        }
    }

    private static Tools.Result tool(String addr, Path commandConfig, String... args) throws Exception {
        return Tools.kafkaToolSucceeds(DelegationTokenCommand.class, addr, commandConfig, args);
    }
}
