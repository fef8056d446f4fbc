package io.brook.server.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.OptionalLong;

/**
 * The server side of SCRAM (RFC 5802) against the stored credentials: two client messages.
 *
 * <pre>
 * client-first  gs2-header client-first-bare     "n,," "n=user,r=cnonce"
 * server-first  "r=cnonce+snonce,s=salt,i=iterations"
 * client-final  "c=base64(gs2-header),r=cnonce+snonce,p=proof"
 * server-final  "v=base64(HMAC(ServerKey, AuthMessage))"
 * </pre>
 *
 * The proof is checked as the RFC says: ClientKey = proof XOR HMAC(StoredKey, AuthMessage) must
 * hash to StoredKey. The client-final nonce may also take librdkafka's legacy form (see
 * {@link #nonceMatches}). The client nonce must be printable ASCII and the client-final
 * message's {@code c=} must bind the client-first message's gs2-header, as the RFC says. An
 * unknown user, a wrong proof and a nonce other than the one the server sent all fail alike, with
 * Kafka's message naming the mechanism ({@link AuthenticationFailure#ofCredentials}); an unknown user only at
 * the proof, after a made-up server-first message ({@link #decoy}), where Kafka refuses it at the
 * first message and so tells that it does not exist.
 * The one extension Kafka defines, {@code tokenauth=true}, logs in with a delegation token
 * ({@link DelegationTokens}): the user name is the token id, the password the token's HMAC, and
 * the session acts as the token's owner until the token expires; an unknown or expired token
 * fails as an unknown user does. Other extensions are ignored, as in Kafka (kafka-clients sends
 * every option of its JAAS configuration as one).
 */
final class ScramNegotiation implements SaslNegotiation {

    private static final SecureRandom RANDOM = new SecureRandom();
    /** This process's secret behind the made-up salts of unknown users (see {@link #decoy}). */
    private static final byte[] DECOY_KEY = new byte[32];

    static {
        RANDOM.nextBytes(DECOY_KEY);
    }

    private final ScramMechanism mechanism;
    private final ScramCredentials credentials;
    private String user;
    /** The principal the session acts as: the user, or a token's owner. */
    private String principal;
    private boolean byToken;
    private long credentialExpiresAtMs = Long.MAX_VALUE;
    private ScramCredential credential;
    private String clientFirstBare;
    /** The client's gs2-header ("n,," or "y,," with an optional authzid), which its final message binds as c=. */
    private String gs2Header;
    private String serverFirst;
    private String nonce;
    private String clientNonce;
    private boolean complete;
    /** True when the user is unknown: the exchange goes on as for a known one and fails at the proof. */
    private boolean unknownUser;

    ScramNegotiation(ScramMechanism mechanism, ScramCredentials credentials) {
        this.mechanism = mechanism;
        this.credentials = credentials;
    }

    @Override
    public byte[] evaluate(byte[] message) throws AuthenticationFailure {
        String text = new String(message, StandardCharsets.UTF_8);
        if (serverFirst == null) {
            return first(text);
        }
        if (!complete && credential != null) {
            return last(text);
        }
        throw new AuthenticationFailure("Authentication failed: unexpected SCRAM message");
    }

    private byte[] first(String text) throws AuthenticationFailure {
        // gs2-header: "n," or "y," (no channel binding), then an optional "a=authzid", then ","
        if (!(text.startsWith("n,") || text.startsWith("y,"))) {
            throw new AuthenticationFailure("Authentication failed: invalid SCRAM client-first message"
                    + " (channel binding is not supported)");
        }
        int comma = text.indexOf(',', 2);
        if (comma < 0) {
            throw new AuthenticationFailure("Authentication failed: invalid SCRAM client-first message");
        }
        String authzid = text.substring(2, comma);
        gs2Header = text.substring(0, comma + 1);
        clientFirstBare = text.substring(comma + 1);
        String[] attrs = clientFirstBare.split(",");
        if (attrs.length < 2 || !attrs[0].startsWith("n=") || !attrs[1].startsWith("r=") || attrs[1].length() <= 2
                || !printable(attrs[1].substring(2))) {
            throw new AuthenticationFailure("Authentication failed: invalid SCRAM client-first message");
        }
        for (int i = 2; i < attrs.length; i++) {
            // kafka-clients sends every JAAS option besides the user name and password as an
            // extension; like Kafka, Brook reads tokenauth (true in any case) and ignores the others
            if (attrs[i].regionMatches(0, "tokenauth=", 0, 10) && attrs[i].substring(10).equalsIgnoreCase("true")) {
                byToken = true;
            }
        }
        String name = unescape(attrs[0].substring(2));
        if (!authzid.isEmpty() && !(authzid.startsWith("a=") && unescape(authzid.substring(2)).equals(name))) {
            throw new AuthenticationFailure("Authentication failed: Client requested an authorization id that is"
                    + " different from username");
        }
        ScramCredential c;
        if (byToken) {
            DelegationTokens.Login login = credentials.tokenLogin(name, mechanism);
            c = login == null ? null : login.credential();
            principal = login == null ? null : login.owner();
            credentialExpiresAtMs = login == null ? Long.MAX_VALUE : login.expiresAtMs();
        } else {
            c = credentials.get(name, mechanism);
            principal = "User:" + name;
        }
        if (c == null) {
            unknownUser = true;
            c = decoy(name);
        }
        byte[] serverNonce = new byte[24];
        RANDOM.nextBytes(serverNonce);
        user = name;
        credential = c;
        clientNonce = attrs[1].substring(2);
        nonce = clientNonce + Base64.getEncoder().withoutPadding().encodeToString(serverNonce)
                .replace('/', '-').replace('+', '_');
        serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(c.salt()) + ",i=" + c.iterations();
        return serverFirst.getBytes(StandardCharsets.UTF_8);
    }

    private byte[] last(String text) throws AuthenticationFailure {
        int p = text.lastIndexOf(",p=");
        if (!text.startsWith("c=") || p < 0) {
            throw new AuthenticationFailure("Authentication failed: invalid SCRAM client-final message");
        }
        String withoutProof = text.substring(0, p);
        String[] attrs = withoutProof.split(",");
        String binding = "c=" + Base64.getEncoder().encodeToString(gs2Header.getBytes(StandardCharsets.UTF_8));
        if (!attrs[0].equals(binding)) {
            // RFC 5802: c= is the base64 of the client-first message's gs2-header (no channel binding data)
            throw new AuthenticationFailure("Authentication failed: invalid SCRAM channel binding");
        }
        if (attrs.length < 2 || !attrs[1].startsWith("r=") || !nonceMatches(attrs[1].substring(2))) {
            throw AuthenticationFailure.ofCredentials();
        }
        byte[] proof;
        try {
            proof = Base64.getDecoder().decode(text.substring(p + 3));
        } catch (IllegalArgumentException e) {
            throw new AuthenticationFailure("Authentication failed: invalid SCRAM client proof");
        }
        byte[] authMessage = (clientFirstBare + "," + serverFirst + "," + withoutProof).getBytes(StandardCharsets.UTF_8);
        byte[] signature = mechanism.hmac(credential.storedKey(), authMessage);
        if (proof.length != signature.length) {
            throw AuthenticationFailure.ofCredentials();
        }
        byte[] clientKey = new byte[proof.length];
        for (int i = 0; i < proof.length; i++) {
            clientKey[i] = (byte) (proof[i] ^ signature[i]);
        }
        // an unknown user's made-up key is checked as a real one is, so the refusal takes as long
        if (!MessageDigest.isEqual(mechanism.hash(clientKey), credential.storedKey()) || unknownUser) {
            throw AuthenticationFailure.ofCredentials();
        }
        complete = true;
        String serverFinal = "v=" + Base64.getEncoder().encodeToString(mechanism.hmac(credential.serverKey(), authMessage));
        return serverFinal.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The nonce of the client-final message: the server's ({@code cnonce + snonce}), or exactly
     * the legacy form of librdkafka before 2.6.1, which puts its own nonce in front of it once
     * more ({@code cnonce + cnonce + snonce}). Kafka 4 refuses that form, so those clients (kcat
     * of Debian 12 among them) cannot log in to it at all; the whole server nonce must match
     * either way, and the proof is checked over the message as the client sent it.
     */
    private boolean nonceMatches(String given) {
        return given.equals(nonce) || given.equals(clientNonce + nonce);
    }

    /**
     * What an unknown user is answered with, as RFC 5802 (section 5.1) suggests: a salt made up from
     * the user name and this process's secret (the same on every try, so that two tries do not
     * tell it from a real one; shaped as real ones are, {@link ScramMechanism#SALT_BITS}) and the
     * least iteration count. The exchange then fails at the proof, checked against made-up keys
     * as a real user's is against theirs, with the message a wrong password gets and after the
     * same failure delay, instead of at once: whether a user exists is not told.
     */
    private ScramCredential decoy(String name) {
        byte[] mac = mechanism.hmac(DECOY_KEY, ("salt:" + name).getBytes(StandardCharsets.UTF_8));
        java.math.BigInteger bits = new java.math.BigInteger(1, mac).shiftRight(mac.length * 8 - ScramMechanism.SALT_BITS);
        // keys of a real one's length, which no proof matches (never used to accept anything)
        byte[] key = mechanism.hmac(DECOY_KEY, ("key:" + name).getBytes(StandardCharsets.UTF_8));
        return new ScramCredential(ScramMechanism.salt(bits), key, key, ScramMechanism.MIN_ITERATIONS);
    }

    /** RFC 5802's "printable": a nonce is made of ASCII 0x21-0x7E except ','. */
    private static boolean printable(String nonce) {
        for (int i = 0; i < nonce.length(); i++) {
            char ch = nonce.charAt(i);
            if (ch < 0x21 || ch > 0x7E || ch == ',') {
                return false;
            }
        }
        return true;
    }

    /** A SCRAM saslname: "=2C" is ',' and "=3D" is '='. */
    private static String unescape(String name) {
        return name.replace("=2C", ",").replace("=3D", "=");
    }

    @Override
    public boolean isComplete() {
        return complete;
    }

    @Override
    public String userName() {
        return user;
    }

    @Override
    public String principal() {
        return principal;
    }

    @Override
    public boolean tokenAuthenticated() {
        return byToken;
    }

    @Override
    public OptionalLong credentialExpiresAtMs() {
        return byToken ? OptionalLong.of(credentialExpiresAtMs) : OptionalLong.empty();
    }
}
