package io.brook.server.security;

import java.util.OptionalLong;

/**
 * How long an authentication lasts (KIP-368), computed as Kafka's broker computes it when a SASL
 * exchange completes: the smaller of {@code connections.max.reauth.ms} (when above 0) and the time
 * left until the credential the client presented expires (OAUTHBEARER's token {@code exp}), never
 * below 0. Without either bound the session never expires.
 *
 * <p>So a token bounds its session even when {@code connections.max.reauth.ms} is 0 (its default),
 * as in Kafka. A token already past its {@code exp} (a validator accepts it within its clock skew)
 * gives 0: the client is told 0, which it reads as "no expiry", and the connection closes at its
 * next request unless that is a re-authentication, as in Kafka.
 */
final class SessionLifetime {

    private SessionLifetime() {
    }

    /**
     * The lifetime in milliseconds of a session authenticated at {@code nowMs}, or empty when it
     * never expires.
     *
     * @param maxReauthMs {@code connections.max.reauth.ms}; 0 or less sets no bound
     * @param credentialExpiresAtMs when the credential expires (epoch milliseconds), or empty when
     *     it does not (a password)
     */
    static OptionalLong ms(long maxReauthMs, OptionalLong credentialExpiresAtMs, long nowMs) {
        if (credentialExpiresAtMs.isEmpty()) {
            return maxReauthMs > 0 ? OptionalLong.of(maxReauthMs) : OptionalLong.empty();
        }
        long expiresAt = credentialExpiresAtMs.getAsLong();
        long left = expiresAt <= nowMs ? 0 : expiresAt - nowMs;
        return OptionalLong.of(maxReauthMs > 0 ? Math.min(left, maxReauthMs) : left);
    }
}
