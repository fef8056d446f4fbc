package io.brook.server.security;

/**
 * A SASL exchange failed: wrong credentials, an unknown user, a malformed message. The message
 * goes to the client (SASL_AUTHENTICATION_FAILED) and to the log, so it never holds a secret.
 */
public final class AuthenticationFailure extends Exception {

    private static final long serialVersionUID = 1L;

    public AuthenticationFailure(String message) {
        super(message, null, false, false);
    }
}
