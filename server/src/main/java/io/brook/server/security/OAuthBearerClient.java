package io.brook.server.security;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The client side of SASL/OAUTHBEARER (RFC 7628) as Kafka's clients speak it. The one client
 * message is {@code n,,^Aauth=Bearer <token>^A[key=value^A]*^A} ({@code ^A} is the byte 0x01; no
 * authorization id, so the server takes the token's principal), the key=value pairs being the
 * SASL extensions. The server's empty answer ends the exchange. A server that refuses the token
 * answers with a JSON error instead (RFC 7628 section 3.2.2, what Kafka's broker sends); the
 * client then sends a single {@code ^A}, as the RFC asks, and the server fails the exchange
 * (SASL_AUTHENTICATION_FAILED). A server that answers that byte with anything but a failure
 * fails the exchange here, with the error it sent.
 */
final class OAuthBearerClient implements SaslClientExchange {

    private static final char SEPARATOR = '\u0001';
    /** How much of the server's JSON error a failure shows. */
    private static final int MAX_ERROR_CHARS = 500;

    private final String token;
    private final Map<String, String> extensions;
    private boolean sent;
    private boolean complete;
    private String serverError;

    /** {@code extensions} are valid ({@link OAuthBearerLogin#extensions}), in the order they are sent. */
    OAuthBearerClient(String token, Map<String, String> extensions) {
        this.token = token;
        this.extensions = extensions;
    }

    @Override
    public byte[] next(byte[] serverMessage) throws AuthenticationFailure {
        if (complete) {
            throw new AuthenticationFailure("SASL/OAUTHBEARER is complete: no further server message expected");
        }
        if (!sent) {
            sent = true;
            return firstMessage();
        }
        if (serverError != null) {
            complete = true;
            throw new AuthenticationFailure("the server refused the token: " + serverError);
        }
        if (serverMessage == null || serverMessage.length == 0) {
            complete = true;
            return null;
        }
        String error = new String(serverMessage, StandardCharsets.UTF_8);
        serverError = error.length() > MAX_ERROR_CHARS ? error.substring(0, MAX_ERROR_CHARS) + "..." : error;
        return new byte[] {SEPARATOR};
    }

    private byte[] firstMessage() {
        StringBuilder m = new StringBuilder("n,,").append(SEPARATOR).append("auth=Bearer ").append(token)
                .append(SEPARATOR);
        for (Map.Entry<String, String> e : extensions.entrySet()) {
            m.append(e.getKey()).append('=').append(e.getValue()).append(SEPARATOR);
        }
        return m.append(SEPARATOR).toString().getBytes(StandardCharsets.UTF_8);
    }
}
