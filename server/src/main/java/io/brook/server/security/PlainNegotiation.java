package io.brook.server.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;

/**
 * SASL/PLAIN (RFC 4616) checked against the {@code user_<name>="<password>"} options of the
 * listener's {@code plain.sasl.jaas.config}, as Kafka's PlainServerCallbackHandler does. The one
 * client message is {@code [authzid] NUL authcid NUL passwd}; an authorization id other than the
 * user name is refused.
 */
final class PlainNegotiation implements SaslNegotiation {

    private final Map<String, String> users;
    private String user;

    PlainNegotiation(Map<String, String> users) {
        this.users = users;
    }

    @Override
    public byte[] evaluate(byte[] message) throws AuthenticationFailure {
        if (user != null) {
            throw new AuthenticationFailure("Authentication failed: PLAIN takes one message");
        }
        String text = new String(message, StandardCharsets.UTF_8);
        int first = text.indexOf('\0');
        int second = first < 0 ? -1 : text.indexOf('\0', first + 1);
        if (first < 0 || second < 0 || text.indexOf('\0', second + 1) >= 0) {
            throw new AuthenticationFailure("Invalid SASL/PLAIN response: expected 3 tokens");
        }
        String authzid = text.substring(0, first);
        String name = text.substring(first + 1, second);
        String password = text.substring(second + 1);
        if (name.isEmpty()) {
            throw new AuthenticationFailure("Authentication failed: username not specified");
        }
        if (password.isEmpty()) {
            throw new AuthenticationFailure("Authentication failed: password not specified");
        }
        String expected = users.get(name);
        byte[] given = password.getBytes(StandardCharsets.UTF_8);
        byte[] wanted = (expected == null ? "" : expected).getBytes(StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(given, wanted) || expected == null) {
            throw new AuthenticationFailure("Authentication failed: Invalid username or password");
        }
        if (!authzid.isEmpty() && !authzid.equals(name)) {
            throw new AuthenticationFailure("Authentication failed: Client requested an authorization id that is"
                    + " different from username");
        }
        user = name;
        return new byte[0];
    }

    @Override
    public boolean isComplete() {
        return user != null;
    }

    @Override
    public String userName() {
        return user;
    }
}
