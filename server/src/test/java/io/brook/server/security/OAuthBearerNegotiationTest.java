package io.brook.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OAuthBearerNegotiationTest {

    private static final Clock NOW = Clock.fixed(Instant.ofEpochSecond(1_700_000_000L), ZoneOffset.UTC);

    private static String b64(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] message(String token) {
        return ("n,,\u0001auth=Bearer " + token + "\u0001\u0001").getBytes(StandardCharsets.UTF_8);
    }

    private static String unsigned(String claims) {
        return b64("{\"alg\":\"none\"}") + "." + b64(claims) + ".";
    }

    @Test
    void acceptsAnUnexpiredUnsignedTokenAndTakesItsSubject() throws Exception {
        OAuthBearerNegotiation n = new OAuthBearerNegotiation(Map.of(), NOW);
        assertThat(n.evaluate(message(unsigned("{\"sub\":\"alice\",\"exp\":1700000060,\"iat\":1699999990}"))))
                .isEmpty();
        assertThat(n.isComplete()).isTrue();
        assertThat(n.userName()).isEqualTo("alice");
        assertThat(n.credentialExpiresAtMs()).as("the token's exp bounds the session").hasValue(1_700_000_060_000L);
    }

    @Test
    void theExpiryIsTheTokensExpRoundedToTheMillisecondAsKafkasUnsecuredJws() throws Exception {
        OAuthBearerNegotiation n = new OAuthBearerNegotiation(Map.of(), NOW);
        assertThat(n.credentialExpiresAtMs()).as("not before the exchange completes").isEmpty();
        n.evaluate(message(unsigned("{\"sub\":\"alice\",\"exp\":1700000060.2346}")));
        assertThat(n.credentialExpiresAtMs()).hasValue(1_700_000_060_235L);
    }

    @Test
    void refusesExpiredSignedMalformedAndSubjectlessTokens() {
        assertThatThrownBy(() -> new OAuthBearerNegotiation(Map.of(), NOW)
                .evaluate(message(unsigned("{\"sub\":\"alice\",\"exp\":1699999999}"))))
                .hasMessageContaining("expired");
        assertThatThrownBy(() -> new OAuthBearerNegotiation(Map.of(), NOW)
                .evaluate(message(b64("{\"alg\":\"HS256\"}") + "." + b64("{\"sub\":\"a\",\"exp\":1800000000}")
                        + ".c2ln")))
                .hasMessageContaining("alg none");
        assertThatThrownBy(() -> new OAuthBearerNegotiation(Map.of(), NOW)
                .evaluate(message(unsigned("{\"exp\":1800000000}"))))
                .hasMessageContaining("sub");
        assertThatThrownBy(() -> new OAuthBearerNegotiation(Map.of(), NOW)
                .evaluate(message(unsigned("{\"sub\":\"alice\",\"exp\":1e999}"))))
                .as("an exp that reads as infinity").hasMessageContaining("finite");
        assertThatThrownBy(() -> new OAuthBearerNegotiation(Map.of(), NOW).evaluate(message("garbage")))
                .hasMessageContaining("not a JWS");
        assertThatThrownBy(() -> new OAuthBearerNegotiation(Map.of(), NOW)
                .evaluate(message(b64("{\"alg\":\"none\"") + "." + b64("[[[[") + ".")))
                .hasMessageContaining("malformed");
        assertThatThrownBy(() -> new OAuthBearerNegotiation(Map.of(), NOW)
                .evaluate("n,,auth=Bearer x".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(AuthenticationFailure.class);
    }

    /** Client messages cut short or framed wrongly (RFC 7628's GS2 header, then \x01-separated pairs). */
    @Test
    void malformedClientMessagesAreFailedAuthentications() {
        String token = unsigned("{\"sub\":\"alice\",\"exp\":1800000000}");
        for (String m : new String[] {"n,\u0001\u0001", "y,\u0001\u0001", "n,", "n,,", "n,,\u0001", "", "\u0001\u0001",
                "n,alice,\u0001auth=Bearer " + token + "\u0001\u0001", "n,,auth=Bearer " + token + "\u0001\u0001",
                "p=tls-unique,,\u0001auth=Bearer " + token + "\u0001\u0001"}) {
            assertThatThrownBy(() -> new OAuthBearerNegotiation(Map.of(), NOW)
                    .evaluate(m.getBytes(StandardCharsets.UTF_8)))
                    .as("%s", m.replace("\u0001", "^A")).isInstanceOf(AuthenticationFailure.class);
        }
    }

    @Test
    void checksRequiredScopesAndTheClaimNamesConfigured() throws Exception {
        Map<String, String> options = Map.of("unsecuredValidatorRequiredScope", "produce",
                "unsecuredValidatorPrincipalClaimName", "user");
        assertThatThrownBy(() -> new OAuthBearerNegotiation(options, NOW)
                .evaluate(message(unsigned("{\"user\":\"bob\",\"exp\":1800000000,\"scope\":[\"read\"]}"))))
                .hasMessageContaining("produce");
        OAuthBearerNegotiation n = new OAuthBearerNegotiation(options, NOW);
        n.evaluate(message(unsigned("{\"user\":\"bob\",\"exp\":1800000000,\"scope\":\"read produce\"}")));
        assertThat(n.userName()).isEqualTo("bob");
    }
}
