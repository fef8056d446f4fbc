package io.brook.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The client side of OAUTHBEARER and the unsecured tokens a broker logs in with: the token's shape
 * and claims as Kafka's default login callback handler makes them, its lifetime, the extensions
 * in the client message, Brook's server accepting it, and the failure path (the server's JSON
 * error answered with a single 0x01).
 */
class OAuthBearerClientTest {

    private static final long NOW_MS = 1_700_000_000_123L;
    private static final String SOURCE = "listener.name.internal.oauthbearer.sasl.jaas.config";

    private static Map<String, String> options(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static String decode(String part) {
        return new String(Base64.getUrlDecoder().decode(part), StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void theUnsecuredTokenHasKafkasShape() {
        UnsecuredLoginTokens tokens = UnsecuredLoginTokens.of(options(
                "unsecuredLoginStringClaim_sub", "broker",
                "unsecuredLoginNumberClaim_level", "42",
                "unsecuredLoginListClaim_scope", "|cluster|\"quoted\"",
                "unsecuredLoginStringClaim_team", "a\\b",
                "unsecuredValidatorRequiredScope", "cluster"), SOURCE, new MutableClock(NOW_MS));
        String token = tokens.newToken();
        String[] parts = token.split("\\.", -1);
        assertThat(parts).hasSize(3);
        assertThat(parts[2]).as("no signature").isEmpty();
        assertThat(token).as("base64url without padding").doesNotContain("=", "+", "/");
        assertThat(decode(parts[0])).isEqualTo("{\"alg\":\"none\"}");
        // exp and iat first, in seconds with the milliseconds as a fraction, written as Java doubles (as Kafka)
        assertThat(decode(parts[1])).isEqualTo("{\"exp\":1.700003600123E9,\"iat\":1.700000000123E9,\"sub\":\"broker\","
                + "\"level\":42.0,\"scope\":[\"cluster\",\"\\\"quoted\\\"\"],\"team\":\"a\\\\b\"}");
        Map<String, Object> claims = FlatJson.parseObject(decode(parts[1]));
        assertThat(claims.get("scope")).isEqualTo(List.of("cluster", "\"quoted\""));
        assertThat(claims.get("team")).isEqualTo("a\\b");
        assertThat(tokens.principal()).isEqualTo("broker");
        assertThat(tokens.describe()).contains("broker").doesNotContain(token);
    }

    @Test
    void lifetimePrincipalClaimAndListDelimiters() {
        MutableClock clock = new MutableClock(NOW_MS);
        UnsecuredLoginTokens tokens = UnsecuredLoginTokens.of(options(
                "unsecuredLoginPrincipalClaimName", "user",
                "unsecuredLoginStringClaim_user", "node-1",
                "unsecuredLoginLifetimeSeconds", "60",
                "unsecuredLoginListClaim_roles", ",a,,b",
                "unsecuredLoginListClaim_none", ","), SOURCE, clock);
        Map<String, Object> claims = FlatJson.parseObject(decode(tokens.newToken().split("\\.")[1]));
        assertThat(claims.get("exp")).isEqualTo(1_700_000_060.123);
        assertThat(claims.get("user")).isEqualTo("node-1");
        assertThat(claims).doesNotContainKey("sub");
        assertThat(claims.get("roles")).isEqualTo(List.of("a", "", "b"));
        assertThat(claims.get("none")).isEqualTo(List.of());
        assertThat(tokens.principal()).isEqualTo("node-1");
        // a fresh token for each login
        clock.advance(5_000);
        assertThat(FlatJson.parseObject(decode(tokens.newToken().split("\\.")[1])).get("iat"))
                .isEqualTo(1_700_000_005.123);
    }

    @Test
    void brooksUnsecuredValidatorAcceptsTheToken() throws Exception {
        UnsecuredLoginTokens tokens = UnsecuredLoginTokens.of(options("unsecuredLoginStringClaim_sub", "broker",
                "unsecuredLoginListClaim_scope", " cluster"), SOURCE, new MutableClock(NOW_MS));
        OAuthBearerClient client = new OAuthBearerClient(tokens.newToken(), Map.of());
        OAuthBearerNegotiation server = new OAuthBearerNegotiation(
                Map.of("unsecuredValidatorRequiredScope", "cluster"), new MutableClock(NOW_MS + 1_000));
        byte[] answer = server.evaluate(client.next(null));
        assertThat(server.userName()).isEqualTo("broker");
        assertThat(server.credentialExpiresAtMs()).hasValue(NOW_MS + 3_600_000);
        assertThat(client.next(answer)).as("an empty answer ends the exchange").isNull();
        assertThatThrownBy(() -> client.next(new byte[0])).isInstanceOf(AuthenticationFailure.class)
                .hasMessageContaining("complete");
    }

    @Test
    void theClientMessageCarriesTheExtensionsInOrder() throws Exception {
        Map<String, String> extensions = OAuthBearerLogin.extensions(options("unsecuredLoginExtension_traceId", "123",
                "unsecuredLoginStringClaim_sub", "broker", "unsecuredLoginExtension_region", "eu west"),
                UnsecuredLoginTokens.EXTENSION, SOURCE);
        assertThat(extensions).containsExactly(Map.entry("traceId", "123"), Map.entry("region", "eu west"));
        OAuthBearerClient client = new OAuthBearerClient("h.p.", extensions);
        assertThat(text(client.next(null)))
                .isEqualTo("n,,\u0001auth=Bearer h.p.\u0001traceId=123\u0001region=eu west\u0001\u0001");
        assertThat(text(new OAuthBearerClient("h.p.", Map.of()).next(null)))
                .isEqualTo("n,,\u0001auth=Bearer h.p.\u0001\u0001");
        // the server reads the token out of a message with extensions
        UnsecuredLoginTokens tokens = UnsecuredLoginTokens.of(options("unsecuredLoginStringClaim_sub", "broker"),
                SOURCE, Clock.systemUTC());
        OAuthBearerNegotiation server = new OAuthBearerNegotiation(Map.of(), Clock.systemUTC());
        server.evaluate(new OAuthBearerClient(tokens.newToken(), extensions).next(null));
        assertThat(server.userName()).isEqualTo("broker");
    }

    @Test
    void aServerErrorIsAnsweredWithOneControlAAndFailsTheExchange() throws Exception {
        OAuthBearerClient client = new OAuthBearerClient("h.p.", Map.of());
        client.next(null);
        String error = "{\"status\":\"invalid_token\"}";
        assertThat(client.next(error.getBytes(StandardCharsets.UTF_8))).containsExactly(1);
        // the server fails the exchange then; should it answer instead, the exchange fails here
        assertThatThrownBy(() -> client.next(new byte[0])).isInstanceOf(AuthenticationFailure.class)
                .hasMessageContaining("refused the token").hasMessageContaining("invalid_token");
        assertThatThrownBy(() -> client.next(new byte[0])).isInstanceOf(AuthenticationFailure.class)
                .hasMessageContaining("complete");
    }

    @Test
    void unsecuredOptionsThatCannotWorkAreRefused() {
        assertThatThrownBy(() -> UnsecuredLoginTokens.of(options(), SOURCE, Clock.systemUTC()))
                .hasMessageContaining(SOURCE).hasMessageContaining("unsecuredLoginStringClaim_sub");
        assertThatThrownBy(() -> UnsecuredLoginTokens.of(options("unsecuredLoginStringClaim_sub", " "), SOURCE,
                Clock.systemUTC())).hasMessageContaining("unsecuredLoginStringClaim_sub");
        assertThatThrownBy(() -> UnsecuredLoginTokens.of(options("unsecuredLoginPrincipalClaimName", "user",
                "unsecuredLoginStringClaim_sub", "broker"), SOURCE, Clock.systemUTC()))
                .hasMessageContaining("unsecuredLoginStringClaim_user");
        assertThatThrownBy(() -> UnsecuredLoginTokens.of(options("unsecuredLoginStringClaim_sub", "broker",
                "unsecuredLoginNumberClaim_exp", "1"), SOURCE, Clock.systemUTC()))
                .hasMessageContaining("unsecuredLoginNumberClaim_exp").hasMessageContaining("computed");
        assertThatThrownBy(() -> UnsecuredLoginTokens.of(options("unsecuredLoginStringClaim_sub", "broker",
                "unsecuredLoginNumberClaim_level", "high"), SOURCE, Clock.systemUTC()))
                .hasMessageContaining("'high'").hasMessageContaining("unsecuredLoginNumberClaim_level");
        assertThatThrownBy(() -> UnsecuredLoginTokens.of(options("unsecuredLoginStringClaim_sub", "broker",
                "unsecuredLoginLifetimeSeconds", "0"), SOURCE, Clock.systemUTC()))
                .hasMessageContaining("unsecuredLoginLifetimeSeconds");
        assertThatThrownBy(() -> UnsecuredLoginTokens.of(options("unsecuredLoginStringClaim_sub", "broker",
                "unsecuredLoginListClaim_sub", "|x"), SOURCE, Clock.systemUTC()))
                .hasMessageContaining("more than once");
        for (String[] bad : new String[][] {{"unsecuredLoginExtension_auth", "x"}, {"unsecuredLoginExtension_a1", "x"},
                {"unsecuredLoginExtension_", "x"}, {"unsecuredLoginExtension_ok", ""},
                {"unsecuredLoginExtension_ok", "caf\u00e9"}}) {
            assertThatThrownBy(() -> OAuthBearerLogin.extensions(options(bad[0], bad[1]),
                    UnsecuredLoginTokens.EXTENSION, SOURCE)).as(bad[0] + "=" + bad[1])
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(bad[0])
                    .hasMessageContaining(SOURCE);
        }
    }
}
