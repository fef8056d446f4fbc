package io.brook.server.security;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * SASL/OAUTHBEARER (RFC 7628) with Kafka's default broker-side validator, the unsecured one
 * (for development: it checks the token's form and claims, not a signature). The one client
 * message is {@code gs2-header ^A auth=Bearer <token> ^A [key=value ^A]* ^A}; the token is an
 * unsecured JWS ({@code header.claims.}, header {@code "alg":"none"}). As Kafka's
 * OAuthBearerUnsecuredJws and its validator:
 *
 * <ul>
 * <li>the principal is the claim named by {@code unsecuredValidatorPrincipalClaimName}
 *     (default {@code sub}), a non-empty string;
 * <li>{@code exp} (seconds) is required and must not have passed, and {@code iat}, when given,
 *     must not be in the future, each within {@code unsecuredValidatorAllowableClockSkewMs};
 * <li>the scopes in {@code unsecuredValidatorScopeClaimName} (default {@code scope}) must hold
 *     every one of {@code unsecuredValidatorRequiredScope}.
 * </ul>
 *
 * Those options come from the listener's {@code oauthbearer.sasl.jaas.config}. With a
 * {@link JwksTokenValidator} (the listener names Kafka's OAuthBearerValidatorCallbackHandler),
 * tokens are signed JWTs checked by it instead. Either way the token's {@code exp} is the
 * {@linkplain #credentialExpiresAtMs credential's expiry}, which bounds the session as in Kafka
 * (KIP-368, {@link SessionLifetime}); the unsecured token's is rounded to the millisecond as
 * Kafka's OAuthBearerUnsecuredJws rounds it.
 */
final class OAuthBearerNegotiation implements SaslNegotiation {

    private final Map<String, String> options;
    private final Clock clock;
    private final JwksTokenValidator jwks;
    private String user;
    private long expiresAtMs;

    OAuthBearerNegotiation(Map<String, String> options, Clock clock) {
        this(options, clock, null);
    }

    OAuthBearerNegotiation(Map<String, String> options, Clock clock, JwksTokenValidator jwks) {
        this.options = options;
        this.clock = clock;
        this.jwks = jwks;
    }

    @Override
    public byte[] evaluate(byte[] message) throws AuthenticationFailure {
        if (user != null) {
            throw new AuthenticationFailure("Authentication failed: OAUTHBEARER takes one message");
        }
        // RFC 7628: "n," or "y,", an optional "a=<authzid>", ",", then \x01, key=value\x01 pairs, \x01
        String text = new String(message, StandardCharsets.UTF_8);
        int comma = text.indexOf(',', 2);
        if (!(text.startsWith("n,") || text.startsWith("y,")) || comma < 0 || text.length() < comma + 3
                || text.charAt(comma + 1) != '\u0001' || !text.endsWith("\u0001\u0001")) {
            throw new AuthenticationFailure("Authentication failed: invalid OAUTHBEARER client message");
        }
        String authzid = text.substring(2, comma);
        if (!authzid.isEmpty() && !authzid.startsWith("a=")) {
            throw new AuthenticationFailure("Authentication failed: invalid OAUTHBEARER client message");
        }
        String token = null;
        for (String kv : text.substring(comma + 2, text.length() - 1).split("\u0001")) {
            if (kv.startsWith("auth=")) {
                String auth = kv.substring(5);
                if (!auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
                    throw new AuthenticationFailure("Authentication failed: expected a Bearer token");
                }
                token = auth.substring(7).trim();
            }
        }
        if (token == null || token.isEmpty()) {
            throw new AuthenticationFailure("Authentication failed: no token");
        }
        BearerToken valid = jwks != null ? jwks.validate(token) : validate(token);
        if (!authzid.isEmpty() && !authzid.equals("a=" + valid.principal())) {
            throw new AuthenticationFailure("Authentication failed: Client requested an authorization id that is"
                    + " different from the token's principal");
        }
        expiresAtMs = valid.expiresAtMs();
        user = valid.principal();
        return new byte[0];
    }

    private BearerToken validate(String token) throws AuthenticationFailure {
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3) {
            throw new AuthenticationFailure("Authentication failed: the token is not a JWS (header.claims.signature)");
        }
        Map<String, Object> header;
        Map<String, Object> claims;
        try {
            header = FlatJson.parseObject(decode(parts[0]));
            claims = FlatJson.parseObject(decode(parts[1]));
        } catch (IllegalArgumentException e) {
            throw new AuthenticationFailure("Authentication failed: malformed token: " + e.getMessage());
        }
        if (!"none".equals(header.get("alg")) || !parts[2].isEmpty()) {
            throw new AuthenticationFailure("Authentication failed: the unsecured validator accepts only unsigned"
                    + " tokens (alg none)");
        }
        long skew = parseLong(options.getOrDefault("unsecuredValidatorAllowableClockSkewMs", "0"));
        long now = clock.millis();
        if (!(claims.get("exp") instanceof Double exp) || !Double.isFinite(exp)) {
            // (a JSON number like 1e999 reads as infinity: a session that would never expire)
            throw new AuthenticationFailure("Authentication failed: the token has no exp claim (a finite number)");
        }
        if (now - skew >= (long) (exp * 1000)) {
            throw new AuthenticationFailure("Authentication failed: the token expired");
        }
        if (claims.get("iat") instanceof Double iat && (long) (iat * 1000) > now + skew) {
            throw new AuthenticationFailure("Authentication failed: the token was issued in the future");
        }
        String principalClaim = options.getOrDefault("unsecuredValidatorPrincipalClaimName", "sub");
        if (!(claims.get(principalClaim) instanceof String principal) || principal.isBlank()) {
            throw new AuthenticationFailure("Authentication failed: the token has no " + principalClaim + " claim");
        }
        String required = options.getOrDefault("unsecuredValidatorRequiredScope", "");
        if (!required.isBlank()) {
            Object scope = claims.get(options.getOrDefault("unsecuredValidatorScopeClaimName", "scope"));
            List<?> granted = scope instanceof List<?> l ? l : scope instanceof String s ? List.of(s.split(" ")) : List.of();
            for (String need : required.split(",")) {
                if (!need.isBlank() && !granted.contains(need.trim())) {
                    throw new AuthenticationFailure("Authentication failed: the token lacks the scope " + need.trim());
                }
            }
        }
        return new BearerToken(principal, Math.round(exp * 1000));
    }

    private static String decode(String part) {
        return new String(Base64.getUrlDecoder().decode(part), StandardCharsets.UTF_8);
    }

    private static long parseLong(String v) throws AuthenticationFailure {
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new AuthenticationFailure("Authentication failed: broker misconfigured");
        }
    }

    @Override
    public boolean isComplete() {
        return user != null;
    }

    @Override
    public String userName() {
        return user;
    }

    @Override
    public OptionalLong credentialExpiresAtMs() {
        return user == null ? OptionalLong.empty() : OptionalLong.of(expiresAtMs);
    }
}
