package io.brook.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.config.SecurityProtocol;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading an OAUTHBEARER inter-broker login from the security settings: unsecured tokens from the
 * listener's JAAS configuration, tokens from a token endpoint named as for Kafka's
 * OAuthBearerLoginCallbackHandler, what is refused at start (with the setting named), and
 * toString without the client secret or a token.
 */
class InterBrokerLoginOAuthBearerTest {

    private static final String L = "INTERNAL";
    private static final String PREFIX = "listener.name.internal.";
    private static final String MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required";
    private static final String HANDLER = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler";

    @TempDir
    Path dir;

    private static Map<String, String> oauth(String jaas) {
        Map<String, String> s = new HashMap<>();
        s.put("sasl.mechanism.inter.broker.protocol", "OAUTHBEARER");
        s.put(PREFIX + "sasl.enabled.mechanisms", "SCRAM-SHA-512,OAUTHBEARER");
        if (jaas != null) {
            s.put(PREFIX + "oauthbearer.sasl.jaas.config", MODULE + " " + jaas + ";");
        }
        return s;
    }

    private static Map<String, String> endpoint(String url, String jaas) {
        Map<String, String> s = oauth(jaas);
        s.put(PREFIX + "oauthbearer.sasl.login.callback.handler.class", HANDLER);
        if (url != null) {
            s.put("sasl.oauthbearer.token.endpoint.url", url);
        }
        return s;
    }

    private static InterBrokerLogin of(Map<String, String> s) {
        return InterBrokerLogin.of(s, L, SecurityProtocol.SASL_PLAINTEXT);
    }

    @Test
    void unsecuredTokensFromTheListenersJaasConfiguration() throws Exception {
        InterBrokerLogin login = of(oauth("unsecuredLoginStringClaim_sub=\"broker\" unsecuredLoginExtension_traceId=\"7\""
                + " unsecuredValidatorRequiredScope=\"ignored-by-the-login\""));
        assertThat(login.mechanism()).isEqualTo("OAUTHBEARER");
        assertThat(login.username()).as("the principal, for messages").isEqualTo("broker");
        assertThat(login.password()).isNull();
        assertThat(login.oauthBearer().extensions()).containsExactly(Map.entry("traceId", "7"));
        SaslClientExchange client = login.newExchange().join();
        byte[] first = client.next(null);
        assertThat(new String(first, java.nio.charset.StandardCharsets.UTF_8)).contains("\u0001traceId=7\u0001");
        OAuthBearerNegotiation server = new OAuthBearerNegotiation(Map.of(), Clock.systemUTC());
        assertThat(client.next(server.evaluate(first))).isNull();
        assertThat(server.userName()).isEqualTo("broker");
        assertThat(login.newExchange()).as("completed at once").isDone();
    }

    @Test
    void theMechanismsJaasConfigurationWinsThenTheListenersThenTheBrokers() {
        Map<String, String> s = oauth(null);
        s.put("sasl.jaas.config", MODULE + " unsecuredLoginStringClaim_sub=\"from-broker\";");
        assertThat(of(s).username()).isEqualTo("from-broker");
        s.put(PREFIX + "sasl.jaas.config", MODULE + " unsecuredLoginStringClaim_sub=\"from-listener\";");
        assertThat(of(s).username()).isEqualTo("from-listener");
        s.put(PREFIX + "oauthbearer.sasl.jaas.config", MODULE + " unsecuredLoginStringClaim_sub=\"from-mechanism\";");
        assertThat(of(s).username()).isEqualTo("from-mechanism");
    }

    @Test
    void unsecuredTokensNeedAPrincipal() {
        assertThatThrownBy(() -> of(oauth(null))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(PREFIX + "oauthbearer.sasl.jaas.config")
                .hasMessageContaining("unsecuredLoginStringClaim_sub");
        assertThatThrownBy(() -> of(oauth("unsecuredLoginPrincipalClaimName=\"user\" unsecuredLoginStringClaim_sub=\"b\"")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unsecuredLoginStringClaim_user");
        assertThatThrownBy(() -> of(oauth("unsecuredLoginStringClaim_sub=\"b\" unsecuredLoginExtension_auth=\"x\"")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unsecuredLoginExtension_auth");
        assertThatThrownBy(() -> of(oauth("unsecuredLoginStringClaim_sub=\"b\" unsecuredLoginStringClaim_iat=\"1\"")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("iat");
    }

    @Test
    void oauthBearerMustBeEnabledOnTheListener() {
        Map<String, String> s = oauth("unsecuredLoginStringClaim_sub=\"broker\"");
        s.put(PREFIX + "sasl.enabled.mechanisms", "SCRAM-SHA-512");
        assertThatThrownBy(() -> of(s)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("OAUTHBEARER is not among the mechanisms")
                .hasMessageContaining(PREFIX + "sasl.enabled.mechanisms");
    }

    @Test
    void tokensFromATokenEndpoint() {
        for (String handler : new String[] {HANDLER,
                "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler"}) {
            Map<String, String> s = endpoint("https://idp.example/oauth2/token",
                    "clientId=\"brook-broker\" clientSecret=\"hunter2\" scope=\"kafka\" extension_logicalCluster=\"c1\"");
            s.put(PREFIX + "oauthbearer.sasl.login.callback.handler.class", handler);
            InterBrokerLogin login = InterBrokerLogin.of(s, L, SecurityProtocol.SASL_PLAINTEXT);
            assertThat(login.username()).as("the client id, for messages").isEqualTo("brook-broker");
            assertThat(login.oauthBearer().tokens()).isInstanceOf(OAuthTokenEndpoint.class);
            assertThat(login.oauthBearer().extensions()).containsExactly(Map.entry("logicalCluster", "c1"));
            assertThat(login.toString()).contains("OAUTHBEARER", "brook-broker", "https://idp.example/oauth2/token")
                    .doesNotContain("hunter2");
        }
        // the broker-wide handler setting counts too; unsecured options do not matter then
        Map<String, String> s = endpoint("http://127.0.0.1:1/token", "clientId=\"id\" clientSecret=\"secret\"");
        s.remove(PREFIX + "oauthbearer.sasl.login.callback.handler.class");
        s.put("sasl.login.callback.handler.class", HANDLER);
        assertThat(of(s).username()).isEqualTo("id");
    }

    @Test
    void aFileTokenEndpointNeedsNoClient() throws Exception {
        Path token = dir.resolve("broker.jwt");
        Files.writeString(token, "h.p.s");
        InterBrokerLogin login = of(endpoint(token.toUri().toString(), null));
        assertThat(login.username()).contains(token.toString());
        assertThat(((OAuthTokenEndpoint) login.oauthBearer().tokens()).isFile()).isTrue();
        assertThatThrownBy(() -> of(endpoint(dir.resolve("missing.jwt").toUri().toString(), null)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sasl.oauthbearer.token.endpoint.url")
                .hasMessageContaining("cannot be read");
    }

    @Test
    void whatATokenEndpointCannotWorkWithIsRefused() {
        String client = "clientId=\"id\" clientSecret=\"hunter2\"";
        assertThatThrownBy(() -> of(endpoint(null, client))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sasl.oauthbearer.token.endpoint.url must be set");
        assertThatThrownBy(() -> of(endpoint("ftp://idp/token", client))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'ftp://idp/token'").hasMessageContaining("sasl.oauthbearer.token.endpoint.url");
        assertThatThrownBy(() -> of(endpoint("https://idp/token", "clientId=\"id\"")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clientId and clientSecret")
                .hasMessageContaining(PREFIX + "oauthbearer.sasl.jaas.config");
        assertThatThrownBy(() -> of(endpoint("https://idp/token", null)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clientId and clientSecret");
        Map<String, String> other = endpoint("https://idp/token", client);
        other.put(PREFIX + "oauthbearer.sasl.login.callback.handler.class", "com.example.MyLoginHandler");
        assertThatThrownBy(() -> of(other)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'com.example.MyLoginHandler'")
                .hasMessageContaining(PREFIX + "oauthbearer.sasl.login.callback.handler.class")
                .hasMessageNotContaining("hunter2");
        String[][] bad = {
            {"sasl.login.connect.timeout.ms", "0"}, {"sasl.login.read.timeout.ms", "soon"},
            {"sasl.login.refresh.window.factor", "0.4"}, {"sasl.oauthbearer.header.urlencode", "yes"}};
        for (String[] b : bad) {
            Map<String, String> s = endpoint("https://idp/token", client);
            s.put(PREFIX + "oauthbearer." + b[0], b[1]);
            assertThatThrownBy(() -> of(s)).as(b[0]).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + b[1] + "'").hasMessageContaining(PREFIX + "oauthbearer." + b[0])
                    .hasMessageNotContaining("hunter2");
        }
        Map<String, String> trust = endpoint("https://idp/token", client + " ssl.truststore.location=\"/nowhere.jks\"");
        assertThatThrownBy(() -> of(trust)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the token endpoint").hasMessageNotContaining("hunter2");
    }

    @Test
    void aMalformedJaasConfigurationIsRefusedWithoutShowingIt() {
        Map<String, String> s = endpoint("https://idp/token", null);
        s.put(PREFIX + "oauthbearer.sasl.jaas.config", MODULE + " clientId=\"id\" clientSecret=\"hunter2");
        assertThatThrownBy(() -> of(s)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(PREFIX + "oauthbearer.sasl.jaas.config").hasMessageNotContaining("hunter2");
    }

    @Test
    void toStringShowsNeitherTheSecretNorAToken() {
        InterBrokerLogin login = of(oauth("unsecuredLoginStringClaim_sub=\"broker\""));
        String token = login.oauthBearer().tokens().token().join();
        assertThat(login.toString()).contains("OAUTHBEARER", "unsecured", "broker").doesNotContain(token)
                .doesNotContain(token.substring(0, token.indexOf('.')));
        assertThat(of(endpoint("https://user:pw@idp/token?key=k1", "clientId=\"id\" clientSecret=\"hunter2\""))
                .toString()).contains("https://idp/token").doesNotContain("hunter2", "pw@", "k1");
    }

    @Test
    void anOAuthBearerLoginNeedsItsTokenSource() {
        assertThatThrownBy(() -> new InterBrokerLogin(SecurityProtocol.SASL_SSL, null, false, "OAUTHBEARER", "broker",
                null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("token source");
    }
}
