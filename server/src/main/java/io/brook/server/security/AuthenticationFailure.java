package io.brook.server.security;

/**
 * A SASL exchange failed: wrong credentials, an unknown user, a malformed message. The message
 * goes to the client (SASL_AUTHENTICATION_FAILED) and to the log, so it never holds a secret.
 * A failure {@linkplain #invalidCredentials() of the credentials} is answered with Kafka's own
 * words by {@link Session}, which knows the mechanism and whether it was a re-authentication.
 */
public final class AuthenticationFailure extends Exception {

    private static final long serialVersionUID = 1L;

    private final boolean invalidCredentials;

    public AuthenticationFailure(String message) {
        this(message, false);
    }

    private AuthenticationFailure(String message, boolean invalidCredentials) {
        super(message, null, false, false);
        this.invalidCredentials = invalidCredentials;
    }

    /** Wrong credentials: an unknown user, a wrong proof, a nonce other than the server's. */
    static AuthenticationFailure ofCredentials() {
        return new AuthenticationFailure("Authentication failed: Invalid user credentials", true);
    }

    /** Whether the credentials were wrong (rather than the exchange malformed). */
    boolean invalidCredentials() {
        return invalidCredentials;
    }
}
