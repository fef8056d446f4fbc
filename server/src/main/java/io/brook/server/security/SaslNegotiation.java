package io.brook.server.security;

import java.util.OptionalLong;

/**
 * The server side of one SASL exchange (one mechanism, one connection): takes each client
 * message, answers with the next server message, until {@link #isComplete}. Used by one thread
 * at a time (the connection's requests run one after another).
 */
interface SaslNegotiation {

    /** The server's answer to {@code clientMessage}; throws when authentication fails. */
    byte[] evaluate(byte[] clientMessage) throws AuthenticationFailure;

    boolean isComplete();

    /** The authenticated user name, once complete. */
    String userName();

    /**
     * The principal the connection acts as, once complete: {@code User:<userName>}, or the owner
     * of the delegation token it logged in with.
     */
    default String principal() {
        return "User:" + userName();
    }

    /** Whether the exchange logged in with a delegation token (such a session may not manage tokens). */
    default boolean tokenAuthenticated() {
        return false;
    }

    /**
     * Once complete, when the credential the client presented expires (epoch milliseconds), which
     * bounds the session (KIP-368); empty for credentials that do not expire (passwords).
     */
    default OptionalLong credentialExpiresAtMs() {
        return OptionalLong.empty();
    }
}
