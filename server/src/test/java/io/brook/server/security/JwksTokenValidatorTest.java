package io.brook.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.Await;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Base64;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Signed tokens checked against a JWKS file as Kafka's OAuthBearerValidatorCallbackHandler checks
 * them: RS256 and ES256 accepted; expired, future, wrong issuer or audience, unsigned, unknown
 * key, tampered and wrongly signed tokens refused; a key added to the file found after a refresh.
 * Keys are generated here.
 */
@Timeout(30)
class JwksTokenValidatorTest {

    static final long NOW_S = 1_700_000_000L;
    private static final Clock NOW = Clock.fixed(Instant.ofEpochSecond(NOW_S), ZoneOffset.UTC);

    static final KeyPair RSA = generate("RSA", null);
    static final KeyPair EC = generate("EC", "secp256r1");
    private static final KeyPair OTHER_RSA = generate("RSA", null);

    @TempDir
    Path dir;

    static KeyPair generate(String type, String curve) {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance(type);
            if (curve != null) {
                g.initialize(new ECGenParameterSpec(curve));
            } else {
                g.initialize(2048);
            }
            return g.generateKeyPair();
        } catch (java.security.GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }

    private static String b64(byte[] b) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private static String b64(BigInteger n) {
        byte[] b = n.toByteArray();
        return b64(b[0] == 0 ? Arrays.copyOfRange(b, 1, b.length) : b);
    }

    private static String fixed(BigInteger n, int length) {
        byte[] b = n.toByteArray();
        byte[] out = new byte[length];
        int copy = Math.min(b.length, length);
        System.arraycopy(b, b.length - copy, out, length - copy, copy);
        return b64(out);
    }

    static String rsaJwk(String kid, KeyPair k) {
        RSAPublicKey p = (RSAPublicKey) k.getPublic();
        return "{\"kty\":\"RSA\",\"use\":\"sig\",\"kid\":\"" + kid + "\",\"n\":\"" + b64(p.getModulus())
                + "\",\"e\":\"" + b64(p.getPublicExponent()) + "\"}";
    }

    static String ecJwk(String kid, KeyPair k) {
        ECPublicKey p = (ECPublicKey) k.getPublic();
        return "{\"kty\":\"EC\",\"crv\":\"P-256\",\"kid\":\"" + kid + "\",\"x\":\""
                + fixed(p.getW().getAffineX(), 32) + "\",\"y\":\"" + fixed(p.getW().getAffineY(), 32) + "\"}";
    }

    static String jwks(String... keys) {
        return "{\"keys\":[" + String.join(",", keys) + "]}";
    }

    /** A token signed with {@code key} ({@code alg} RS256 or ES256; null signs nothing, as alg none). */
    static String token(String alg, String kid, PrivateKey key, String claims) throws Exception {
        String header = "{\"alg\":\"" + alg + "\"" + (kid == null ? "" : ",\"kid\":\"" + kid + "\"") + ",\"typ\":\"JWT\"}";
        String input = b64(header.getBytes(StandardCharsets.UTF_8)) + "." + b64(claims.getBytes(StandardCharsets.UTF_8));
        if (key == null) {
            return input + ".";
        }
        Signature s = Signature.getInstance(alg.startsWith("RS") ? "SHA256withRSA" : "SHA256withECDSAinP1363Format");
        s.initSign(key);
        s.update(input.getBytes(StandardCharsets.US_ASCII));
        return input + "." + b64(s.sign());
    }

    static String claims(String sub, String iss, String aud, long exp) {
        return "{\"sub\":\"" + sub + "\",\"iss\":\"" + iss + "\",\"aud\":\"" + aud + "\",\"iat\":" + (exp - 3600)
                + ",\"exp\":" + exp + ",\"scope\":\"kafka\"}";
    }

    private JwksTokenValidator validator(String json, Clock clock) throws Exception {
        Path file = dir.resolve("jwks.json");
        Files.writeString(file, json);
        return new JwksTokenValidator(file.toUri().toString(), clock, 30_000, "https://issuer", Set.of("kafka"), "sub",
                "scope", 3_600_000, 0);
    }

    @Test
    void acceptsRs256AndEs256TokensOfTheExpectedIssuerAndAudience() throws Exception {
        JwksTokenValidator v = validator(jwks(rsaJwk("r1", RSA), ecJwk("e1", EC)), NOW);
        String good = claims("alice", "https://issuer", "kafka", NOW_S + 600);
        assertThat(v.validate(token("RS256", "r1", RSA.getPrivate(), good)).principal()).isEqualTo("alice");
        assertThat(v.validate(token("ES256", "e1", EC.getPrivate(), good)).principal()).isEqualTo("alice");
        assertThat(v.validate(token("ES256", null, EC.getPrivate(), good)).principal())
                .as("the only EC key, without kid").isEqualTo("alice");
        String withinSkew = claims("bob", "https://issuer", "kafka", NOW_S - 10);
        assertThat(v.validate(token("RS256", "r1", RSA.getPrivate(), withinSkew)).principal()).isEqualTo("bob");
    }

    @Test
    void aKeySetLongerThanTheBoundStopsTheStartUnread() {
        String big = jwks(rsaJwk("r1", RSA)).replaceFirst("\\{", "{\"pad\":\"" + "x".repeat(BoundedBody.MAX_BYTES) + "\",");
        assertThatThrownBy(() -> validator(big, NOW)).hasMessageContaining("more than the " + BoundedBody.MAX_BYTES
                + " accepted");
    }

    @Test
    void theExpiryIsTheWholeSecondsOfExpAsJose4jReadsThem() throws Exception {
        JwksTokenValidator v = validator(jwks(rsaJwk("r1", RSA)), NOW);
        assertThat(v.validate(token("RS256", "r1", RSA.getPrivate(), claims("alice", "https://issuer", "kafka",
                NOW_S + 600))).expiresAtMs()).isEqualTo((NOW_S + 600) * 1000);
        String fractional = "{\"sub\":\"alice\",\"iss\":\"https://issuer\",\"aud\":\"kafka\",\"iat\":" + NOW_S
                + ",\"exp\":" + (NOW_S + 600) + ".75}";
        assertThat(v.validate(token("RS256", "r1", RSA.getPrivate(), fractional)).expiresAtMs())
                .isEqualTo((NOW_S + 600) * 1000);
    }

    @Test
    void refusesBadTokens() throws Exception {
        JwksTokenValidator v = validator(jwks(rsaJwk("r1", RSA), ecJwk("e1", EC)), NOW);
        String good = claims("alice", "https://issuer", "kafka", NOW_S + 600);
        assertRefused(v, token("RS256", "r1", RSA.getPrivate(), claims("alice", "https://issuer", "kafka", NOW_S - 31)),
                "expired");
        assertRefused(v, token("RS256", "r1", RSA.getPrivate(), claims("alice", "https://other", "kafka", NOW_S + 600)),
                "issuer");
        assertRefused(v, token("RS256", "r1", RSA.getPrivate(), claims("alice", "https://issuer", "web", NOW_S + 600)),
                "audience");
        assertRefused(v, token("none", null, null, good), "algorithm");
        assertRefused(v, token("RS256", "r1", null, good), "not signed");
        assertRefused(v, token("RS256", "r9", RSA.getPrivate(), good), "kid r9");
        assertRefused(v, token("RS256", "r1", OTHER_RSA.getPrivate(), good), "invalid signature");
        String signed = token("RS256", "r1", RSA.getPrivate(), good);
        String[] parts = signed.split("\\.");
        String tampered = parts[0] + "." + b64(claims("admin", "https://issuer", "kafka", NOW_S + 600)
                .getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
        assertRefused(v, tampered, "invalid signature");
        assertRefused(v, token("RS256", "r1", RSA.getPrivate(), "{\"sub\":\"alice\",\"iss\":\"https://issuer\","
                + "\"aud\":\"kafka\",\"exp\":" + (NOW_S + 600) + "}"), "iat");
        assertRefused(v, token("RS256", "r1", RSA.getPrivate(), "{\"iss\":\"https://issuer\",\"aud\":\"kafka\","
                + "\"iat\":" + NOW_S + ",\"exp\":" + (NOW_S + 600) + "}"), "sub");
        assertRefused(v, "not-a-token", "JWS");
    }

    private static void assertRefused(JwksTokenValidator v, String token, String why) {
        assertThatThrownBy(() -> v.validate(token)).isInstanceOf(AuthenticationFailure.class).hasMessageContaining(why);
    }

    @Test
    void aKeyAddedToTheSetIsFoundAfterTheUnknownKidTriggersARefresh() throws Exception {
        JwksTokenValidator v = validator(jwks(rsaJwk("r1", RSA)), NOW);
        String t = token("RS256", "r2", OTHER_RSA.getPrivate(), claims("carol", "https://issuer", "kafka", NOW_S + 600));
        Files.writeString(dir.resolve("jwks.json"), jwks(rsaJwk("r1", RSA), rsaJwk("r2", OTHER_RSA)));
        assertRefused(v, t, "kid r2");
        Await.until("the refreshed key set holds r2", Duration.ofSeconds(10), () -> {
            try {
                return "carol".equals(v.validate(t).principal());
            } catch (AuthenticationFailure e) {
                return false;
            }
        });
    }

    @Test
    void anUnreadableKeySetStopsTheBrokerFromStarting() {
        assertThatThrownBy(() -> new JwksTokenValidator(dir.resolve("missing.json").toUri().toString(), NOW, 0, null,
                Set.of(), "sub", "scope", 1000, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sasl.oauthbearer.jwks.endpoint.url");
        assertThatThrownBy(() -> new JwksTokenValidator("ftp://example/jwks", NOW, 0, null, Set.of(), "sub", "scope",
                1000, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
