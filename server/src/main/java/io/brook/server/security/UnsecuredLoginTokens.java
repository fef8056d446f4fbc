package io.brook.server.security;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Unsecured OAUTHBEARER tokens for this broker's own logins (development only: anyone can make
 * one), made as Kafka's default login callback handler makes them from the options of the
 * OAuthBearerLoginModule's JAAS configuration:
 *
 * <ul>
 * <li>the token is {@code base64url(header).base64url(claims).} (no padding, an empty
 *     signature), the header {@code {"alg":"none"}};
 * <li>the claims are {@code exp} and {@code iat} first, computed (neither may be configured):
 *     {@code iat} is now in seconds with the milliseconds as a fraction, {@code exp} is {@code iat}
 *     plus {@code unsecuredLoginLifetimeSeconds} (default 3600); then, in the order configured,
 *     {@code unsecuredLoginStringClaim_<name>} (a string), {@code unsecuredLoginNumberClaim_<name>}
 *     (a number, written as a Java double as Kafka writes it) and
 *     {@code unsecuredLoginListClaim_<name>} (a list of strings: the value's first character is the
 *     delimiter, the rest is split at each delimiter);
 * <li>the principal is the string claim named by {@code unsecuredLoginPrincipalClaimName}
 *     (default {@code sub}), which must be set and not blank;
 * <li>{@code unsecuredLoginScopeClaimName} (default {@code scope}) names the claim Kafka reads the
 *     token's scopes from; it does not change the token.
 * </ul>
 *
 * Each login gets a fresh token. Kafka escapes only quotes and backslashes in the claims' JSON;
 * here every string is escaped as JSON requires.
 */
final class UnsecuredLoginTokens implements OAuthBearerLogin.TokenSource {

    static final String STRING_CLAIM = "unsecuredLoginStringClaim_";
    static final String NUMBER_CLAIM = "unsecuredLoginNumberClaim_";
    static final String LIST_CLAIM = "unsecuredLoginListClaim_";
    static final String PRINCIPAL_CLAIM_NAME = "unsecuredLoginPrincipalClaimName";
    static final String LIFETIME_SECONDS = "unsecuredLoginLifetimeSeconds";
    static final String EXTENSION = "unsecuredLoginExtension_";
    private static final String HEADER = encode("{\"alg\":\"none\"}");

    private final Clock clock;
    private final long lifetimeSeconds;
    private final String principal;
    /** The configured claims as JSON members ({@code "name":value}), in order. */
    private final List<String> claims;

    private UnsecuredLoginTokens(Clock clock, long lifetimeSeconds, String principal, List<String> claims) {
        this.clock = clock;
        this.lifetimeSeconds = lifetimeSeconds;
        this.principal = principal;
        this.claims = claims;
    }

    /**
     * The tokens {@code options} describe; {@code source} names the setting they come from, for
     * the IllegalArgumentException that says what cannot work.
     */
    static UnsecuredLoginTokens of(Map<String, String> options, String source, Clock clock) {
        String principalClaim = options.get(PRINCIPAL_CLAIM_NAME);
        principalClaim = principalClaim == null || principalClaim.isBlank() ? "sub" : principalClaim.trim();
        String principal = options.get(STRING_CLAIM + principalClaim);
        if (principal == null || principal.isBlank()) {
            throw new IllegalArgumentException(source + " needs the option " + STRING_CLAIM + principalClaim
                    + ": the principal of the unsecured tokens this broker logs in to the other nodes with (or"
                    + " sasl.login.callback.handler.class must name Kafka's OAuthBearerLoginCallbackHandler, for"
                    + " tokens from a token endpoint)");
        }
        String lifetime = options.getOrDefault(LIFETIME_SECONDS, "3600").trim();
        long lifetimeSeconds;
        try {
            lifetimeSeconds = Long.parseLong(lifetime);
        } catch (NumberFormatException e) {
            lifetimeSeconds = 0;
        }
        if (lifetimeSeconds <= 0) {
            throw new IllegalArgumentException("Invalid value '" + lifetime + "' for the option " + LIFETIME_SECONDS
                    + " of " + source + ": must be a number of seconds, 1 or more");
        }
        List<String> claims = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (Map.Entry<String, String> e : options.entrySet()) {
            String option = e.getKey();
            String prefix = option.startsWith(STRING_CLAIM) ? STRING_CLAIM : option.startsWith(NUMBER_CLAIM)
                    ? NUMBER_CLAIM : option.startsWith(LIST_CLAIM) ? LIST_CLAIM : null;
            if (prefix == null || option.length() == prefix.length()) {
                continue;
            }
            String name = option.substring(prefix.length());
            if (name.equals("iat") || name.equals("exp")) {
                throw new IllegalArgumentException("The option " + option + " of " + source + " cannot be set: the "
                        + name + " claim is computed");
            }
            if (!names.add(name)) {
                throw new IllegalArgumentException("The claim " + name + " is set more than once in " + source);
            }
            String value = e.getValue();
            String json = switch (prefix) {
                case STRING_CLAIM -> quote(value);
                case NUMBER_CLAIM -> number(value, option, source);
                default -> list(value);
            };
            claims.add(quote(name) + ":" + json);
        }
        return new UnsecuredLoginTokens(clock, lifetimeSeconds, principal, List.copyOf(claims));
    }

    private static String number(String value, String option, String source) {
        try {
            double d = Double.parseDouble(value.trim());
            if (Double.isFinite(d)) {
                return Double.toString(d);
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("Invalid value '" + value + "' for the option " + option + " of " + source
                + ": must be a number");
    }

    private static String list(String value) {
        if (value.length() <= 1) {
            return "[]";
        }
        String delimiter = value.substring(0, 1);
        List<String> items = new ArrayList<>();
        String rest = value.substring(1);
        int from = 0;
        while (true) {
            int at = rest.indexOf(delimiter, from);
            items.add(quote(at < 0 ? rest.substring(from) : rest.substring(from, at)));
            if (at < 0) {
                break;
            }
            from = at + 1;
        }
        return "[" + String.join(",", items) + "]";
    }

    /** The principal the tokens name. */
    String principal() {
        return principal;
    }

    /** A fresh token, issued now. */
    String newToken() {
        double iat = clock.millis() / 1000.0;
        StringBuilder json = new StringBuilder("{\"exp\":").append(iat + lifetimeSeconds).append(",\"iat\":")
                .append(iat);
        for (String claim : claims) {
            json.append(',').append(claim);
        }
        return HEADER + "." + encode(json.append('}').toString()) + ".";
    }

    @Override
    public CompletableFuture<String> token() {
        return CompletableFuture.completedFuture(newToken());
    }

    @Override
    public String describe() {
        return "unsecured tokens of " + principal + " (" + lifetimeSeconds + " s)";
    }

    private static String encode(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code s} as a JSON string. */
    static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
