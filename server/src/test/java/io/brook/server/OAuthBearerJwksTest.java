package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.security.JwksTestTokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stock admin client logging in with OAUTHBEARER (its token read from a file by a test login
 * handler, as Kafka's OAuthBearerLoginCallbackHandler reads a {@code file://} token endpoint) to a
 * listener configured as for Kafka to validate signed tokens against a JWKS file: a token signed
 * by a key of the set is accepted; one for another audience or signed by an unknown key is refused
 * with Kafka's authentication error.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class OAuthBearerJwksTest {

    @TempDir
    Path dir;

    private Properties client(Brook brook, Path tokenFile) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers("SASL_PLAINTEXT"));
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, "OAUTHBEARER");
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
                + " required tokenFile=\"" + tokenFile + "\" sub=\"alice\";");
        p.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS, SignedTokenFileLogin.class.getName());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        return p;
    }

    @Test
    void stockClientsLogInWithSignedTokensAndBadOnesAreRefused() throws Exception {
        Path jwks = dir.resolve("jwks.json");
        Files.writeString(jwks, JwksTestTokens.jwks());
        Path good = dir.resolve("good.jwt");
        Path wrongAudience = dir.resolve("web.jwt");
        Path unknownKey = dir.resolve("unknown.jwt");
        long exp = System.currentTimeMillis() / 1000 + 600;
        Files.writeString(good, JwksTestTokens.rs256("alice", "https://issuer", "kafka", exp));
        Files.writeString(wrongAudience, JwksTestTokens.rs256("alice", "https://issuer", "web", exp));
        Files.writeString(unknownKey, JwksTestTokens.unknownKey("alice", "https://issuer", "kafka", exp));
        try (Brook brook = Brook.builder()
                .config("listeners", "SASL_PLAINTEXT://127.0.0.1:0")
                .config("sasl.enabled.mechanisms", "OAUTHBEARER")
                .config("listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler")
                .config("sasl.oauthbearer.jwks.endpoint.url", jwks.toUri().toString())
                .config("sasl.oauthbearer.expected.issuer", "https://issuer")
                .config("sasl.oauthbearer.expected.audience", "kafka")
                .start()) {
            try (Admin admin = Admin.create(client(brook, good))) {
                assertThat(admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS)).isNotBlank();
            }
            for (Path bad : new Path[] {wrongAudience, unknownKey}) {
                try (Admin admin = Admin.create(client(brook, bad))) {
                    assertThatThrownBy(() -> admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS))
                            .hasCauseInstanceOf(SaslAuthenticationException.class);
                }
            }
        }
    }
}
