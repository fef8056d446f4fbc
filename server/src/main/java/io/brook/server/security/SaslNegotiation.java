package io.brook.server.security;

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
}
