package io.brook.server.security;

/**
 * The client side of a SASL mechanism, one exchange: each call takes the server's last message
 * and gives the next one to send, until the server's final message has been checked. Used by one
 * thread at a time.
 */
public interface SaslClientExchange {

    /**
     * The next message to send given the server's last one (null for the first call); null when the
     * exchange is complete (after the server's final message was checked). Throws
     * AuthenticationFailure when the server's message is wrong (e.g. a SCRAM server signature that
     * does not verify, a nonce that does not start with ours, an iteration count below
     * {@link ScramMechanism#MIN_ITERATIONS}, a server error {@code e=...}).
     */
    byte[] next(byte[] serverMessage) throws AuthenticationFailure;
}
