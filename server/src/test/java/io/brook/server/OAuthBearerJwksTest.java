package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.security.JwksTestTokens;
import io.brook.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
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
 * with Kafka's authentication error. A client whose tokens live a few seconds re-authenticates on
 * its connections with fresh ones before they expire (KIP-368), as the broker's SaslAuthenticate
 * answers tell it to.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class OAuthBearerJwksTest {

    @TempDir
    Path dir;

    private Brook jwksBroker(Path jwks) {
        return Brook.builder()
                .config("listeners", "SASL_PLAINTEXT://127.0.0.1:0")
                .config("sasl.enabled.mechanisms", "OAUTHBEARER")
                .config("listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler")
                .config("sasl.oauthbearer.jwks.endpoint.url", jwks.toUri().toString())
                .config("sasl.oauthbearer.expected.issuer", "https://issuer")
                .config("sasl.oauthbearer.expected.audience", "kafka")
                .start();
    }

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
        try (Brook brook = jwksBroker(jwks)) {
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

    private static double total(Admin admin, String metric) {
        double sum = 0;
        for (Map.Entry<MetricName, ? extends Metric> e : admin.metrics().entrySet()) {
            if (e.getKey().name().equals(metric)) {
                sum += ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        return sum;
    }

    @Test
    void aClientReauthenticatesWithFreshTokensBeforeEachExpires() throws Exception {
        Path jwks = dir.resolve("jwks.json");
        Files.writeString(jwks, JwksTestTokens.jwks());
        ShortLivedTokenLogin.LOGINS.set(0);
        try (Brook brook = jwksBroker(jwks)) {
            Properties p = client(brook, dir.resolve("unused.jwt"));
            p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
                    + " required sub=\"alice\" lifetimeSeconds=\"3\";");
            p.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS, ShortLivedTokenLogin.class.getName());
            // the admin client asks for metadata this often, and re-authenticates when it sends
            p.put(AdminClientConfig.METADATA_MAX_AGE_CONFIG, 100);
            try (Admin admin = Admin.create(p)) {
                assertThat(admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS)).isNotBlank();
                // connections.max.reauth.ms is unset: only the tokens' expiry asks for these
                Await.until("two re-authentications and two fresh tokens", Duration.ofSeconds(30),
                        () -> total(admin, "successful-reauthentication-total") >= 2
                                && ShortLivedTokenLogin.LOGINS.get() >= 3);
                assertThat(total(admin, "failed-reauthentication-total")).isZero();
                assertThat(total(admin, "failed-authentication-total")).isZero();
                assertThat(admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS)).isNotBlank();
            }
        }
    }
}
