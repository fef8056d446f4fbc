package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The stock kafka-clients releases of {@link OldKafkaClientsCompatTest} (2.8, 3.7, 3.9 beside 4.4)
 * over Brook's secured listeners, each in a class loader of its own ({@link OldClients}): the same
 * admin, idempotent produce, group consume, commit, seek and delete round as a user who may do all
 * that only through prefixed ACLs (an authorizer, no super user), logged in three ways:
 *
 * <ul>
 *   <li>SASL_SSL with SCRAM-SHA-512 (user {@code alice});
 *   <li>SSL with a client certificate ({@code CN=bob}, mapped to {@code bob} by {@code
 *       ssl.principal.mapping.rules});
 *   <li>SASL_PLAINTEXT with an unsecured OAUTHBEARER token whose subject is {@code carol}.
 * </ul>
 *
 * The SCRAM user also creates a delegation token and describes it (CreateDelegationToken and
 * DescribeDelegationToken v2 from 2.8, v3 from the others). Each user also tries the round on a
 * topic outside its ACLs and gets Kafka's
 * TOPIC_AUTHORIZATION_FAILED. The broker is described once ({@link SecuredBroker}): the embedded
 * Brook, or the reference Kafka under run-against-kafka.sh.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class OldKafkaClientsSecurityCompatTest {

    private static final int COUNT = 20;
    private static final String PW = TestCertificates.PASSWORD;
    /** The prefix of every topic and group the three users may use. */
    private static final String PREFIX = "old-secure-";

    @TempDir
    static Path dir;
    private static SecuredBroker broker;
    private static Map<String, String> scram;
    private static Map<String, String> mtls;
    private static Map<String, String> oauth;

    @BeforeAll
    static void start() throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        Path brokerKeys = certs.keyStore("broker", "localhost");
        Path bobKeys = certs.keyStore("bob", "bob");
        Path trustBroker = certs.trustStore("trust-broker", brokerKeys);
        Path trustBob = certs.trustStore("trust-bob", bobKeys);
        broker = SecuredBroker.start(Files.createDirectories(dir.resolve("broker")), Map.ofEntries(
                Map.entry("listeners", "SASL_SSL://127.0.0.1:0,SSL://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0"),
                Map.entry("ssl.keystore.type", "PKCS12"),
                Map.entry("ssl.keystore.location", brokerKeys.toString()),
                Map.entry("ssl.keystore.password", PW),
                Map.entry("listener.name.ssl.ssl.client.auth", "required"),
                Map.entry("listener.name.ssl.ssl.truststore.type", "PKCS12"),
                Map.entry("listener.name.ssl.ssl.truststore.location", trustBob.toString()),
                Map.entry("listener.name.ssl.ssl.truststore.password", PW),
                Map.entry("ssl.principal.mapping.rules", "RULE:^CN=(.*?)$/$1/,DEFAULT"),
                Map.entry("sasl.enabled.mechanisms", "SCRAM-SHA-512,OAUTHBEARER"),
                Map.entry("listener.name.sasl_ssl.sasl.enabled.mechanisms", "SCRAM-SHA-512"),
                Map.entry("listener.name.sasl_plaintext.sasl.enabled.mechanisms", "OAUTHBEARER"),
                Map.entry("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"),
                Map.entry("super.users", "User:admin"),
                Map.entry("delegation.token.secret.key", "old-clients-token-secret"),
                Map.entry("group.initial.rebalance.delay.ms", "0")),
                "SCRAM-SHA-512=[name=admin,password=admin-secret]", "SCRAM-SHA-512=[name=alice,password=alice-secret]");

        Map<String, String> tls = Map.of("client.ssl.truststore.type", "PKCS12",
                "client.ssl.truststore.location", trustBroker.toString(), "client.ssl.truststore.password", PW);
        scram = new HashMap<>(tls);
        scram.putAll(Map.of("client.security.protocol", "SASL_SSL", "client.sasl.mechanism", "SCRAM-SHA-512",
                "client.sasl.jaas.config", jaas("org.apache.kafka.common.security.scram.ScramLoginModule",
                        "username=\"alice\" password=\"alice-secret\"")));
        mtls = new HashMap<>(tls);
        mtls.putAll(Map.of("client.security.protocol", "SSL", "client.ssl.keystore.type", "PKCS12",
                "client.ssl.keystore.location", bobKeys.toString(), "client.ssl.keystore.password", PW,
                "client.ssl.key.password", PW));
        oauth = Map.of("client.security.protocol", "SASL_PLAINTEXT", "client.sasl.mechanism", "OAUTHBEARER",
                "client.sasl.jaas.config", jaas("org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule",
                        "unsecuredLoginStringClaim_sub=\"carol\""));

        Properties admin = new Properties();
        admin.put("bootstrap.servers", broker.bootstrapServers("SASL_SSL"));
        scram.forEach((k, v) -> admin.put(k.substring("client.".length()), v));
        admin.put("sasl.jaas.config", jaas("org.apache.kafka.common.security.scram.ScramLoginModule",
                "username=\"admin\" password=\"admin-secret\""));
        try (Admin a = Admin.create(admin)) {
            List<AclBinding> acls = Stream.of("User:alice", "User:bob", "User:carol")
                    .flatMap(user -> Stream.of(ResourceType.TOPIC, ResourceType.GROUP)
                            .map(type -> new AclBinding(new ResourcePattern(type, PREFIX, PatternType.PREFIXED),
                                    new AccessControlEntry(user, "*", AclOperation.ALL, AclPermissionType.ALLOW))))
                    .toList();
            a.createAcls(acls).all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static String jaas(String module, String options) {
        return module + " required " + options + ";";
    }

    static Stream<Arguments> releasesAndLogins() {
        return Stream.concat(Stream.of(OldClients.CURRENT), OldClients.OLDER.stream())
                .flatMap(version -> Stream.of("SCRAM-SHA-512", "mTLS", "OAUTHBEARER")
                        .map(login -> Arguments.of(version, login)));
    }

    @ParameterizedTest(name = "kafka-clients {0}, {1}")
    @MethodSource("releasesAndLogins")
    void roundUnderPrefixedAclsAndARefusalOutsideThem(String version, String login) throws Exception {
        Map<String, String> security = switch (login) {
            case "SCRAM-SHA-512" -> scram;
            case "mTLS" -> mtls;
            default -> oauth;
        };
        String listener = switch (login) {
            case "SCRAM-SHA-512" -> "SASL_SSL";
            case "mTLS" -> "SSL";
            default -> "SASL_PLAINTEXT";
        };
        Map<String, String> in = new HashMap<>(security);
        in.put("bootstrap", broker.bootstrapServers(listener));
        in.put("count", String.valueOf(COUNT));
        String name = Groups.unique(PREFIX + version);
        in.put("topic", name);
        in.put("group", name);
        in.put("clientId", name);

        boolean tokens = login.equals("SCRAM-SHA-512"); // tokens are for SASL logins other than by token
        in.put("tokens", String.valueOf(tokens));

        Map<String, String> out = OldClients.runScenario(version, in, JACKSON);

        if (!version.equals(OldClients.CURRENT)) {
            assertThat(out.get("clientVersion")).isEqualTo(version);
        }
        OldClients.assertCompleteRound(out, COUNT);
        if (tokens) {
            // 2.8 creates and describes tokens at v2, whose answers have no requester fields; 3.3 and later at v3
            assertThat(out).containsEntry("tokenOwner", "User:alice").containsEntry("tokensDescribed", "1");
        }

        String outside = Groups.unique("not-" + PREFIX + version);
        in.put("topic", outside);
        assertThatThrownBy(() -> OldClients.runScenario(version, in, JACKSON))
                .hasMessageContaining("TopicAuthorizationException");
    }

    /** Kafka's unsecured OAUTHBEARER tokens are parsed with Jackson, which kafka-clients does not bundle. */
    private static final String[] JACKSON = {"com.fasterxml.jackson.databind.ObjectMapper",
        "com.fasterxml.jackson.core.JsonFactory", "com.fasterxml.jackson.annotation.JsonProperty"};
}
