package io.brook.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.TestKeyStores;
import io.brook.server.config.SecurityProtocol;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading the inter-broker login from the security settings, what it refuses, and its SASL clients. */
class InterBrokerLoginTest {

    private static final String L = "INTERNAL";
    private static final String PREFIX = "listener.name.internal.";

    @TempDir
    static Path dir;
    private static Map<String, String> tlsSettings;

    @BeforeAll
    static void stores() throws Exception {
        Path keyStore = TestKeyStores.create(dir, "node", "CN=localhost", "dns:localhost,ip:127.0.0.1");
        Path trustStore = TestKeyStores.trustStore(dir, "trust", keyStore);
        tlsSettings = Map.of(
                "ssl.keystore.type", "PKCS12",
                "ssl.keystore.location", keyStore.toString(),
                "ssl.keystore.password", TestKeyStores.PASSWORD,
                "ssl.truststore.type", "PKCS12",
                "ssl.truststore.location", trustStore.toString(),
                "ssl.truststore.password", TestKeyStores.PASSWORD);
    }

    private static String jaas(String module, String user, String password) {
        return "org.apache.kafka.common.security." + module + " required username=\"" + user + "\" password=\""
                + password + "\";";
    }

    private static String scram(String user, String password) {
        return jaas("scram.ScramLoginModule", user, password);
    }

    private static Map<String, String> sasl(String mechanism, String enabled) {
        Map<String, String> s = new HashMap<>();
        if (mechanism != null) {
            s.put("sasl.mechanism.inter.broker.protocol", mechanism);
        }
        if (enabled != null) {
            s.put(PREFIX + "sasl.enabled.mechanisms", enabled);
        }
        return s;
    }

    @Test
    void plaintextIsTheConstant() {
        assertThat(InterBrokerLogin.of(Map.of(), L, SecurityProtocol.PLAINTEXT)).isSameAs(InterBrokerLogin.PLAINTEXT);
        assertThat(InterBrokerLogin.PLAINTEXT.tls()).isNull();
        assertThat(InterBrokerLogin.PLAINTEXT.mechanism()).isNull();
        assertThatThrownBy(InterBrokerLogin.PLAINTEXT::newExchange).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void sslUsesTheListenersStoresAndVerifiesTheHostNameByDefault() {
        InterBrokerLogin login = InterBrokerLogin.of(tlsSettings, L, SecurityProtocol.SSL);
        assertThat(login.protocol()).isEqualTo(SecurityProtocol.SSL);
        assertThat(login.tls()).isNotNull();
        assertThat(login.tls().keyManagers()).isNotNull();
        assertThat(login.tls().trustManagers()).isNotNull();
        assertThat(login.verifyHostname()).isTrue();
        assertThat(login.mechanism()).isNull();
        assertThat(login.username()).isNull();
        assertThatThrownBy(login::newExchange).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void endpointIdentification() {
        Map<String, String> s = new HashMap<>(tlsSettings);
        s.put("ssl.endpoint.identification.algorithm", "HTTPS");
        assertThat(InterBrokerLogin.of(s, L, SecurityProtocol.SSL).verifyHostname()).isTrue();
        s.put("ssl.endpoint.identification.algorithm", "");
        assertThat(InterBrokerLogin.of(s, L, SecurityProtocol.SSL).verifyHostname()).isFalse();
        // the listener's own setting wins over the broker's
        s.put("ssl.endpoint.identification.algorithm", "https");
        s.put(PREFIX + "ssl.endpoint.identification.algorithm", " ");
        assertThat(InterBrokerLogin.of(s, L, SecurityProtocol.SSL).verifyHostname()).isFalse();
        s.put(PREFIX + "ssl.endpoint.identification.algorithm", "ldaps");
        assertThatThrownBy(() -> InterBrokerLogin.of(s, L, SecurityProtocol.SSL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'ldaps'")
                .hasMessageContaining(PREFIX + "ssl.endpoint.identification.algorithm")
                .hasMessageContaining("https");
    }

    @Test
    void sslWithoutAKeyStoreIsRefused() {
        assertThatThrownBy(() -> InterBrokerLogin.of(Map.of(), L, SecurityProtocol.SSL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listener " + L);
    }

    @Test
    void saslPlaintextWithPlain() throws Exception {
        Map<String, String> s = sasl("PLAIN", "PLAIN");
        s.put(PREFIX + "plain.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " username=\"broker\" password=\"broker-secret\" user_broker=\"broker-secret\" user_alice=\"a\";");
        InterBrokerLogin login = InterBrokerLogin.of(s, L, SecurityProtocol.SASL_PLAINTEXT);
        assertThat(login.tls()).isNull();
        assertThat(login.verifyHostname()).isFalse();
        assertThat(login.mechanism()).isEqualTo("PLAIN");
        assertThat(login.username()).isEqualTo("broker");
        assertThat(login.password()).isEqualTo("broker-secret");

        SaslClientExchange client = login.newExchange().join();
        byte[] message = client.next(null);
        assertThat(message).isEqualTo("\0broker\0broker-secret".getBytes(StandardCharsets.UTF_8));
        PlainNegotiation server = new PlainNegotiation(Map.of("broker", "broker-secret"));
        assertThat(client.next(server.evaluate(message))).isNull();
        assertThat(server.userName()).isEqualTo("broker");
        assertThatThrownBy(() -> client.next(new byte[0])).isInstanceOf(AuthenticationFailure.class);
    }

    @Test
    void saslSslWithScram() throws Exception {
        Map<String, String> s = new HashMap<>(tlsSettings);
        s.putAll(sasl("scram-sha-512", "PLAIN, SCRAM-SHA-512"));
        s.put(PREFIX + "scram-sha-512.sasl.jaas.config", scram("broker", "pw"));
        s.put("ssl.endpoint.identification.algorithm", "");
        InterBrokerLogin login = InterBrokerLogin.of(s, L, SecurityProtocol.SASL_SSL);
        assertThat(login.protocol()).isEqualTo(SecurityProtocol.SASL_SSL);
        assertThat(login.tls()).isNotNull();
        assertThat(login.verifyHostname()).isFalse();
        assertThat(login.mechanism()).isEqualTo("SCRAM-SHA-512");
        assertThat(login.username()).isEqualTo("broker");

        ScramCredentials credentials = ScramCredentials.inMemory();
        credentials.addIfAbsent("broker", ScramMechanism.SCRAM_SHA_512, "pw", ScramMechanism.MIN_ITERATIONS);
        ScramNegotiation server = new ScramNegotiation(ScramMechanism.SCRAM_SHA_512, credentials);
        SaslClientExchange client = login.newExchange().join();
        assertThat(client).isInstanceOf(ScramClient.class);
        byte[] serverMessage = null;
        byte[] clientMessage;
        while ((clientMessage = client.next(serverMessage)) != null) {
            serverMessage = server.evaluate(clientMessage);
        }
        assertThat(server.isComplete()).isTrue();
        assertThat(server.userName()).isEqualTo("broker");
    }

    @Test
    void jaasPrecedenceMechanismThenListenerThenBroker() {
        Map<String, String> s = sasl("SCRAM-SHA-256", "SCRAM-SHA-256,SCRAM-SHA-512");
        s.put("sasl.jaas.config", scram("from-broker", "p0"));
        assertThat(InterBrokerLogin.of(s, L, SecurityProtocol.SASL_PLAINTEXT).username()).isEqualTo("from-broker");
        s.put(PREFIX + "sasl.jaas.config", scram("from-listener", "p1"));
        assertThat(InterBrokerLogin.of(s, L, SecurityProtocol.SASL_PLAINTEXT).username()).isEqualTo("from-listener");
        // another mechanism's configuration is not this one's
        s.put(PREFIX + "scram-sha-512.sasl.jaas.config", scram("from-512", "p3"));
        assertThat(InterBrokerLogin.of(s, L, SecurityProtocol.SASL_PLAINTEXT).username()).isEqualTo("from-listener");
        s.put(PREFIX + "scram-sha-256.sasl.jaas.config", scram("from-mechanism", "p2"));
        InterBrokerLogin login = InterBrokerLogin.of(s, L, SecurityProtocol.SASL_PLAINTEXT);
        assertThat(login.username()).isEqualTo("from-mechanism");
        assertThat(login.password()).isEqualTo("p2");
        // another listener's configuration is not this one's
        Map<String, String> other = sasl("SCRAM-SHA-256", null);
        other.put("listener.name.other.sasl.enabled.mechanisms", "SCRAM-SHA-256");
        other.put("listener.name.other.scram-sha-256.sasl.jaas.config", scram("x", "y"));
        other.put(PREFIX + "sasl.enabled.mechanisms", "SCRAM-SHA-256");
        assertThatThrownBy(() -> InterBrokerLogin.of(other, L, SecurityProtocol.SASL_PLAINTEXT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("username and password");
    }

    @Test
    void gssapiOrNoMechanismIsRefused() {
        for (String mechanism : new String[] {null, " ", "GSSAPI", "gssapi"}) {
            Map<String, String> s = sasl(mechanism, "GSSAPI,PLAIN");
            s.put("sasl.jaas.config", scram("broker", "pw"));
            assertThatThrownBy(() -> InterBrokerLogin.of(s, L, SecurityProtocol.SASL_PLAINTEXT)).as(mechanism)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("sasl.mechanism.inter.broker.protocol")
                    .hasMessageContaining("GSSAPI")
                    .hasMessageContaining("PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER");
        }
    }

    @Test
    void unknownMechanismIsRefused() {
        Map<String, String> s = sasl("DIGEST-MD5", "DIGEST-MD5");
        assertThatThrownBy(() -> InterBrokerLogin.of(s, L, SecurityProtocol.SASL_PLAINTEXT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'DIGEST-MD5'");
    }

    @Test
    void mechanismMustBeEnabledOnTheListener() {
        Map<String, String> s = sasl("SCRAM-SHA-256", "PLAIN,SCRAM-SHA-512");
        s.put("sasl.jaas.config", scram("broker", "pw"));
        assertThatThrownBy(() -> InterBrokerLogin.of(s, L, SecurityProtocol.SASL_PLAINTEXT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SCRAM-SHA-256 is not among the mechanisms")
                .hasMessageContaining(PREFIX + "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512");
        // Kafka's default for sasl.enabled.mechanisms is GSSAPI alone
        Map<String, String> unset = sasl("PLAIN", null);
        unset.put("sasl.jaas.config", jaas("plain.PlainLoginModule", "broker", "pw"));
        assertThatThrownBy(() -> InterBrokerLogin.of(unset, L, SecurityProtocol.SASL_PLAINTEXT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("GSSAPI");
        // the broker-wide setting counts when the listener has none
        unset.put("sasl.enabled.mechanisms", "PLAIN");
        assertThat(InterBrokerLogin.of(unset, L, SecurityProtocol.SASL_PLAINTEXT).mechanism()).isEqualTo("PLAIN");
    }

    @Test
    void credentialsMustBeGiven() {
        String needs = "needs username and password options: the credentials this broker logs in to the other nodes with";
        Map<String, String> none = sasl("PLAIN", "PLAIN");
        assertThatThrownBy(() -> InterBrokerLogin.of(none, L, SecurityProtocol.SASL_PLAINTEXT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(needs)
                .hasMessageContaining(PREFIX + "plain.sasl.jaas.config");
        // a PLAIN configuration with the users the listener checks but not this broker's own login
        Map<String, String> serverOnly = sasl("PLAIN", "PLAIN");
        serverOnly.put(PREFIX + "plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_broker=\"pw\";");
        assertThatThrownBy(() -> InterBrokerLogin.of(serverOnly, L, SecurityProtocol.SASL_PLAINTEXT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(needs)
                .hasMessageContaining(PREFIX + "plain.sasl.jaas.config");
        Map<String, String> noPassword = sasl("SCRAM-SHA-256", "SCRAM-SHA-256");
        noPassword.put(PREFIX + "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"broker\";");
        assertThatThrownBy(() -> InterBrokerLogin.of(noPassword, L, SecurityProtocol.SASL_PLAINTEXT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(needs)
                .hasMessageContaining(PREFIX + "sasl.jaas.config");
        Map<String, String> noUser = sasl("SCRAM-SHA-256", "SCRAM-SHA-256");
        noUser.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " password=\"pw\";");
        assertThatThrownBy(() -> InterBrokerLogin.of(noUser, L, SecurityProtocol.SASL_PLAINTEXT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(needs);
    }

    @Test
    void malformedJaasIsRefusedWithoutShowingIt() {
        Map<String, String> s = sasl("SCRAM-SHA-256", "SCRAM-SHA-256");
        s.put(PREFIX + "scram-sha-256.sasl.jaas.config", "ScramLoginModule required username=\"broker\""
                + " password=\"hunter2");
        assertThatThrownBy(() -> InterBrokerLogin.of(s, L, SecurityProtocol.SASL_PLAINTEXT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(PREFIX + "scram-sha-256.sasl.jaas.config")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void toStringHidesThePassword() {
        Map<String, String> s = sasl("SCRAM-SHA-256", "SCRAM-SHA-256");
        s.put("sasl.jaas.config", scram("broker", "hunter2"));
        InterBrokerLogin login = InterBrokerLogin.of(s, L, SecurityProtocol.SASL_PLAINTEXT);
        assertThat(login.toString()).contains("SASL_PLAINTEXT", "SCRAM-SHA-256", "broker")
                .doesNotContain("hunter2");
        assertThat(InterBrokerLogin.PLAINTEXT.toString()).contains("PLAINTEXT");
    }

    @Test
    void aSaslLoginNeedsItsCredentials() {
        assertThatThrownBy(() -> new InterBrokerLogin(SecurityProtocol.SASL_PLAINTEXT, null, false, "PLAIN", "u", null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
