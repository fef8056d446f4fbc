package io.brook.server.security;

import java.nio.charset.StandardCharsets;

/**
 * The client side of SASL/PLAIN (RFC 4616): one message, {@code NUL username NUL password} in
 * UTF-8 (no authorization id, so the server takes the user name). The server's empty answer ends
 * the exchange.
 */
final class PlainClient implements SaslClientExchange {

    private final String username;
    private final String password;
    private int step;

    PlainClient(String username, String password) {
        this.username = username;
        this.password = password;
    }

    @Override
    public byte[] next(byte[] serverMessage) throws AuthenticationFailure {
        return switch (step++) {
            case 0 -> ("\0" + username + "\0" + password).getBytes(StandardCharsets.UTF_8);
            case 1 -> null;
            default -> throw new AuthenticationFailure("SASL/PLAIN is complete: no further server message expected");
        };
    }
}
