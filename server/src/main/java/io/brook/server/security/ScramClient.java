package io.brook.server.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The client side of SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677), without channel
 * binding or an authorization id:
 *
 * <pre>
 * next(null)          client-first  "n,,n=saslname,r=cnonce"
 * next(server-first)  client-final  "c=biws,r=cnonce+snonce,p=base64(ClientKey XOR ClientSignature)"
 * next(server-final)  null, once "v=base64(ServerSignature)" verified
 * </pre>
 *
 * The server must prove it knows the credential too: its nonce has to extend ours, its iteration
 * count be at least {@link ScramMechanism#MIN_ITERATIONS} (a weaker one would make the proof
 * easier to attack), and its final signature match the one computed here (compared in constant
 * time). A server error ({@code e=...}) fails the exchange with the server's text.
 */
final class ScramClient implements SaslClientExchange {

    private static final SecureRandom RANDOM = new SecureRandom();
    /** Base64 of the GS2 header "n,," (no channel binding, no authorization id). */
    private static final String CHANNEL_BINDING = "biws";

    private enum Step { FIRST, FINAL, VERIFY, DONE }

    private final ScramMechanism mechanism;
    private final String username;
    private final String password;
    private final String clientNonce;
    private Step step = Step.FIRST;
    private String clientFirstBare;
    private byte[] serverSignature;

    ScramClient(ScramMechanism mechanism, String username, String password) {
        this(mechanism, username, password, randomNonce());
    }

    /** With the client nonce given (tests). */
    ScramClient(ScramMechanism mechanism, String username, String password, String clientNonce) {
        this.mechanism = mechanism;
        this.username = username;
        this.password = password;
        this.clientNonce = clientNonce;
    }

    @Override
    public byte[] next(byte[] serverMessage) throws AuthenticationFailure {
        switch (step) {
            case FIRST -> {
                clientFirstBare = "n=" + saslName(username) + ",r=" + clientNonce;
                step = Step.FINAL;
                return utf8("n,," + clientFirstBare);
            }
            case FINAL -> {
                byte[] out = clientFinal(text(serverMessage, "server-first"));
                step = Step.VERIFY;
                return out;
            }
            case VERIFY -> {
                verify(text(serverMessage, "server-final"));
                step = Step.DONE;
                return null;
            }
            default -> throw new AuthenticationFailure(mechanism.mechanismName()
                    + " is complete: no further server message expected");
        }
    }

    private byte[] clientFinal(String serverFirst) throws AuthenticationFailure {
        failOnError(serverFirst);
        if (serverFirst.startsWith("m=")) {
            throw failure("the server requires an extension this client does not know");
        }
        String[] attrs = serverFirst.split(",", -1);
        if (attrs.length < 3 || !attrs[0].startsWith("r=") || !attrs[1].startsWith("s=") || !attrs[2].startsWith("i=")) {
            throw failure("invalid server-first message (expected r=...,s=...,i=...)");
        }
        String nonce = attrs[0].substring(2);
        if (!nonce.startsWith(clientNonce) || nonce.length() <= clientNonce.length()) {
            throw failure("the server's nonce does not extend this client's");
        }
        byte[] salt;
        try {
            salt = Base64.getDecoder().decode(attrs[1].substring(2));
        } catch (IllegalArgumentException e) {
            throw failure("invalid salt in the server-first message");
        }
        if (salt.length == 0) {
            throw failure("empty salt in the server-first message");
        }
        int iterations;
        try {
            iterations = Integer.parseInt(attrs[2].substring(2));
        } catch (NumberFormatException e) {
            throw failure("invalid iteration count in the server-first message");
        }
        if (iterations < ScramMechanism.MIN_ITERATIONS) {
            throw failure("the server's iteration count " + iterations + " is below the minimum "
                    + ScramMechanism.MIN_ITERATIONS);
        }
        byte[] salted = mechanism.saltedPassword(password, salt, iterations);
        String withoutProof = "c=" + CHANNEL_BINDING + ",r=" + nonce;
        byte[] authMessage = utf8(clientFirstBare + "," + serverFirst + "," + withoutProof);
        byte[] clientKey = mechanism.hmac(salted, ascii("Client Key"));
        byte[] clientSignature = mechanism.hmac(mechanism.hash(clientKey), authMessage);
        byte[] proof = new byte[clientKey.length];
        for (int i = 0; i < proof.length; i++) {
            proof[i] = (byte) (clientKey[i] ^ clientSignature[i]);
        }
        serverSignature = mechanism.hmac(mechanism.hmac(salted, ascii("Server Key")), authMessage);
        return utf8(withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof));
    }

    private void verify(String serverFinal) throws AuthenticationFailure {
        failOnError(serverFinal);
        if (!serverFinal.startsWith("v=")) {
            throw failure("invalid server-final message (expected v=...)");
        }
        int end = serverFinal.indexOf(',');
        byte[] given;
        try {
            given = Base64.getDecoder().decode(serverFinal.substring(2, end < 0 ? serverFinal.length() : end));
        } catch (IllegalArgumentException e) {
            throw failure("invalid server signature");
        }
        if (!MessageDigest.isEqual(given, serverSignature)) {
            throw failure("the server's signature does not verify: it does not know this user's credential");
        }
    }

    private void failOnError(String message) throws AuthenticationFailure {
        if (message.startsWith("e=")) {
            int end = message.indexOf(',');
            throw failure("the server answered with error '" + message.substring(2, end < 0 ? message.length() : end)
                    + "'");
        }
    }

    private AuthenticationFailure failure(String why) {
        return new AuthenticationFailure(mechanism.mechanismName() + " login failed: " + why);
    }

    private String text(byte[] message, String what) throws AuthenticationFailure {
        if (message == null) {
            throw failure("no " + what + " message");
        }
        return new String(message, StandardCharsets.UTF_8);
    }

    /** A SCRAM saslname: '=' as "=3D" and ',' as "=2C" (RFC 5802, section 5.1). */
    static String saslName(String user) {
        return user.replace("=", "=3D").replace(",", "=2C");
    }

    /** A random nonce of printable characters other than ',' (base64's alphabet). */
    private static String randomNonce() {
        byte[] bytes = new byte[24];
        RANDOM.nextBytes(bytes);
        return Base64.getEncoder().withoutPadding().encodeToString(bytes);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
