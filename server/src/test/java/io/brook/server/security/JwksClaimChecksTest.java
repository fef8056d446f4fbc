package io.brook.server.security;

import static io.brook.server.security.JwksTokenValidatorTest.NOW_S;
import static io.brook.server.security.JwksTokenValidatorTest.RSA;
import static io.brook.server.security.JwksTokenValidatorTest.claims;
import static io.brook.server.security.JwksTokenValidatorTest.jwks;
import static io.brook.server.security.JwksTokenValidatorTest.rsaJwk;
import static io.brook.server.security.JwksTokenValidatorTest.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A listener that validates tokens against a JWKS checks each token's issuer and audience, and
 * starts without either only when told by name that it may accept any ({@code
 * sasl.oauthbearer.allow.unverified.issuer} / {@code .audience}), as Kafka 4.4 does.
 */
class JwksClaimChecksTest {

    private static final String HANDLER = "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";
    private static final Clock NOW = Clock.fixed(Instant.ofEpochSecond(NOW_S), ZoneOffset.UTC);

    @TempDir
    Path dir;
    private final Map<String, String> raw = new HashMap<>();

    @BeforeEach
    void keySet() throws Exception {
        Path file = dir.resolve("jwks.json");
        Files.writeString(file, jwks(rsaJwk("r1", RSA)));
        raw.put("listener.name.sasl_ssl.oauthbearer.sasl.server.callback.handler.class", HANDLER);
        raw.put("sasl.oauthbearer.jwks.endpoint.url", file.toUri().toString());
    }

    private JwksTokenValidator validator() {
        return JwksTokenValidator.fromSettings(new ListenerSettings(raw, "SASL_SSL"), "SASL_SSL", NOW, Map.of());
    }

    private static String signed(String iss, String aud) throws Exception {
        return token("RS256", "r1", RSA.getPrivate(), claims("alice", iss, aud, NOW_S + 600));
    }

    @Test
    void aListenerWithoutAnExpectedAudienceDoesNotStart() {
        raw.put("sasl.oauthbearer.expected.issuer", "https://issuer");
        assertThatThrownBy(this::validator).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Listener SASL_SSL")
                .hasMessageContaining("sasl.oauthbearer.expected.audience")
                .hasMessageContaining("sasl.oauthbearer.allow.unverified.audience=true");
    }

    @Test
    void aListenerWithoutAnExpectedIssuerDoesNotStart() {
        raw.put("sasl.oauthbearer.expected.audience", "kafka");
        assertThatThrownBy(this::validator).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sasl.oauthbearer.expected.issuer")
                .hasMessageContaining("sasl.oauthbearer.allow.unverified.issuer=true");
    }

    @Test
    void theOptOutsAcceptAnyIssuerAndAudienceOrNone() throws Exception {
        raw.put("sasl.oauthbearer.allow.unverified.issuer", "true");
        raw.put("sasl.oauthbearer.allow.unverified.audience", "TRUE");
        JwksTokenValidator v = validator();
        assertThat(v.validate(signed("https://elsewhere", "web")).principal()).isEqualTo("alice");
        String bare = token("RS256", "r1", RSA.getPrivate(),
                "{\"sub\":\"bob\",\"iat\":" + NOW_S + ",\"exp\":" + (NOW_S + 600) + "}");
        assertThat(v.validate(bare).principal()).isEqualTo("bob");
    }

    @Test
    void anOptOutDoesNotLoosenACheckThatIsConfigured() throws Exception {
        raw.put("sasl.oauthbearer.expected.issuer", "https://issuer");
        raw.put("sasl.oauthbearer.expected.audience", "kafka");
        raw.put("sasl.oauthbearer.allow.unverified.issuer", "true");
        raw.put("sasl.oauthbearer.allow.unverified.audience", "true");
        JwksTokenValidator v = validator();
        assertThat(v.validate(signed("https://issuer", "kafka")).principal()).isEqualTo("alice");
        assertThatThrownBy(() -> v.validate(signed("https://issuer", "web"))).isInstanceOf(AuthenticationFailure.class)
                .hasMessageContaining("audience");
        assertThatThrownBy(() -> v.validate(signed("https://elsewhere", "kafka")))
                .isInstanceOf(AuthenticationFailure.class).hasMessageContaining("issuer");
    }

    @Test
    void anOptOutMustBeABoolean() {
        raw.put("sasl.oauthbearer.expected.issuer", "https://issuer");
        raw.put("sasl.oauthbearer.allow.unverified.audience", "yes");
        assertThatThrownBy(this::validator).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'yes'").hasMessageContaining("sasl.oauthbearer.allow.unverified.audience");
    }
}
