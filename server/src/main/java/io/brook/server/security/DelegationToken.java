package io.brook.server.security;

import java.util.List;

/**
 * One delegation token (KIP-48) as it is kept: no secret, since its password, the HMAC of its id
 * under {@code delegation.token.secret.key}, is computed again wherever it is needed. Principals
 * are written as Brook writes them everywhere ({@code User:alice}); {@code requester} is who
 * asked for it (KIP-373: an owner other than the requester needs CREATE_TOKENS on that user).
 * Times are epoch milliseconds: a token is usable until the earlier of {@code expiryTimestampMs}
 * (moved by renewals) and {@code maxTimestampMs} (fixed at creation).
 */
public record DelegationToken(String tokenId, String owner, String requester, List<String> renewers,
        long issueTimestampMs, long maxTimestampMs, long expiryTimestampMs) {

    public DelegationToken {
        renewers = List.copyOf(renewers);
    }

    /** Whether {@code principal} owns, asked for or may renew this token (who may describe it without an ACL). */
    public boolean ownerOrRenewer(String principal) {
        return owner.equals(principal) || requester.equals(principal) || renewers.contains(principal);
    }

    /** Whether {@code principal} may renew or expire this token: its owner or one of its renewers. */
    public boolean mayRenew(String principal) {
        return owner.equals(principal) || renewers.contains(principal);
    }

    /** Whether the token can no longer be used at {@code nowMs}. */
    public boolean expiredAt(long nowMs) {
        return maxTimestampMs < nowMs || expiryTimestampMs < nowMs;
    }

    /** The type of a principal written {@code <type>:<name>} ({@code User}). */
    public static String principalTypeOf(String principal) {
        return principal.substring(0, principal.indexOf(':'));
    }

    /** The name of a principal written {@code <type>:<name>}. */
    public static String principalNameOf(String principal) {
        return principal.substring(principal.indexOf(':') + 1);
    }

    /** This token with its expiry moved to {@code expiryMs}. */
    public DelegationToken withExpiry(long expiryMs) {
        return new DelegationToken(tokenId, owner, requester, renewers, issueTimestampMs, maxTimestampMs, expiryMs);
    }
}
