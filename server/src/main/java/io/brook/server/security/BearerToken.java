package io.brook.server.security;

/**
 * An OAUTHBEARER token a validator accepted: the principal it names and when it expires (its
 * {@code exp} in epoch milliseconds), which bounds the session it authenticates (KIP-368).
 */
record BearerToken(String principal, long expiresAtMs) {
}
