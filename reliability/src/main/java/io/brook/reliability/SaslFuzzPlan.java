package io.brook.reliability;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The SASL fuzzer's connections, each aimed at one stage of a SASL_PLAINTEXT listener's
 * authentication, with every mechanism Brook offers (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512,
 * OAUTHBEARER) and some it does not:
 * <ul>
 *   <li>before authentication: requests of every kind ({@link FrameCorpus}), SaslHandshake and
 *       SaslAuthenticate, mutated (a broker must serve nothing but ApiVersions and the handshake
 *       before a login);
 *   <li>after a valid SaslHandshake v1: mutated SaslAuthenticate requests (v0–2) carrying each
 *       mechanism's first message (PLAIN's credentials, SCRAM's client-first, an OAUTHBEARER
 *       token);
 *   <li>after a valid SaslHandshake v0: mutated raw tokens (a size prefix and the bytes, no Kafka
 *       header), the framing older librdkafka and kafkajs use;
 *   <li>after a valid SCRAM client-first: mutated client-final messages;
 *   <li>after a valid PLAIN login: the wire fuzzer's requests and mutated re-authentications
 *       (KIP-368).
 * </ul>
 * The users and passwords are the scenario's ({@link SaslFuzz}); the valid first messages name
 * the fuzzer's user, so that a mutation that stays valid reaches the next stage. Deterministic
 * for a given {@link Random}.
 */
final class SaslFuzzPlan implements FuzzPlan {
    static final List<String> MECHANISMS = List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER");
    private static final List<String> UNKNOWN_MECHANISMS = List.of("GSSAPI", "SCRAM-SHA-1", "", "plain");

    private final String user;
    private final String password;
    private final List<byte[]> requests;
    private final List<byte[]> unauthenticated = new ArrayList<>();
    private final List<List<byte[]>> handshakes = new ArrayList<>();
    private final List<List<byte[]>> authenticates = new ArrayList<>();
    private final List<List<byte[]>> rawTokens = new ArrayList<>();
    private final List<byte[]> scramFinals = new ArrayList<>();
    private final List<byte[]> authenticated = new ArrayList<>();

    SaslFuzzPlan(String user, String password) {
        this.user = user;
        this.password = password;
        this.requests = FrameCorpus.seeds();
        for (String m : MECHANISMS) {
            List<byte[]> shakes = new ArrayList<>();
            for (short v = 0; v <= 1; v++) {
                shakes.add(handshake(m, v));
            }
            handshakes.add(shakes);
            List<byte[]> tokens = firstMessages(m);
            List<byte[]> frames = new ArrayList<>();
            List<byte[]> raw = new ArrayList<>();
            for (byte[] token : tokens) {
                frames.addAll(authenticateFrames(token));
                raw.add(rawToken(token));
            }
            authenticates.add(frames);
            rawTokens.add(raw);
            unauthenticated.addAll(shakes);
            unauthenticated.addAll(frames);
        }
        for (String m : UNKNOWN_MECHANISMS) {
            unauthenticated.add(handshake(m, (short) 1));
        }
        unauthenticated.addAll(requests);
        for (String final_ : scramFinalMessages()) {
            scramFinals.addAll(authenticateFrames(utf8(final_)));
        }
        authenticated.addAll(requests);
        authenticated.addAll(handshakes.get(0));
        authenticated.addAll(authenticates.get(0));
    }

    @Override
    public Connection next(Random random) {
        int dice = random.nextInt(100);
        int m = random.nextInt(MECHANISMS.size());
        if (dice < 20) {
            return new Connection(List.of(), unauthenticated);
        } else if (dice < 55) {
            return new Connection(List.of(handshakes.get(m).get(1)), authenticates.get(m));
        } else if (dice < 75) {
            return new Connection(List.of(handshakes.get(m).get(0)), rawTokens.get(m));
        } else if (dice < 90) {
            int scram = 1 + random.nextInt(2);
            return new Connection(List.of(handshakes.get(scram).get(1),
                    authenticateFrames(utf8(scramClientFirst(user, "fuzznonce" + random.nextInt(1000)))).get(2)), scramFinals);
        }
        return new Connection(List.of(handshakes.get(0).get(1), authenticateFrames(plain("", user, password)).get(2)),
                authenticated);
    }

    private static byte[] handshake(String mechanism, short version) {
        return KafkaWire.frame(new SaslHandshakeRequestData().setMechanism(mechanism), version, 1);
    }

    /** SaslAuthenticate v0, v1 and v2 carrying {@code token}. */
    private static List<byte[]> authenticateFrames(byte[] token) {
        List<byte[]> out = new ArrayList<>();
        for (short v = ApiKeys.SASL_AUTHENTICATE.oldestVersion(); v <= ApiKeys.SASL_AUTHENTICATE.latestVersion(); v++) {
            out.add(KafkaWire.frame(new SaslAuthenticateRequestData().setAuthBytes(token), v, 2));
        }
        return out;
    }

    /** A token as it follows a v0 handshake: its size, then its bytes. */
    private static byte[] rawToken(byte[] token) {
        return ByteBuffer.allocate(4 + token.length).putInt(token.length).put(token).array();
    }

    /** Each mechanism's first client messages: valid ones for the fuzzer's user, and wrong ones. */
    private List<byte[]> firstMessages(String mechanism) {
        List<byte[]> out = new ArrayList<>();
        switch (mechanism) {
            case "PLAIN" -> {
                out.add(plain("", user, password));
                out.add(plain(user, user, password));
                out.add(plain("", user, "wrong-" + password));
                out.add(plain("someone-else", user, password));
                out.add(plain("", "", ""));
            }
            case "OAUTHBEARER" -> {
                out.add(utf8(oauthBearer(unsecuredJwt("{\"sub\":\"" + user + "\",\"exp\":4102444800,\"iat\":1700000000}"))));
                out.add(utf8(oauthBearer(unsecuredJwt("{\"sub\":\"" + user + "\",\"exp\":1,\"iat\":0}"))));
                out.add(utf8(oauthBearer(unsecuredJwt("{\"sub\":" + "[".repeat(40) + "}"))));
                out.add(utf8("n,,\u0001auth=Bearer \u0001\u0001"));
                out.add(utf8("n,a=" + user + ",\u0001auth=Bearer x.y.z\u0001ext=v\u0001\u0001"));
            }
            default -> { // SCRAM
                out.add(utf8(scramClientFirst(user, "fuzznonce")));
                out.add(utf8("n,a=" + user + ",n=" + user + ",r=abc,tokenauth=true"));
                out.add(utf8("p=tls-unique,,n=" + user + ",r=abc"));
                out.add(utf8("n,,n=nobody,r=abc"));
                out.add(utf8("n,,n==2C=3D=,r="));
            }
        }
        return out;
    }

    /** SCRAM client-final messages; none can carry the server's nonce, so each ends the exchange. */
    private static List<String> scramFinalMessages() {
        String proof = Base64.getEncoder().encodeToString(new byte[32]);
        return List.of("c=biws,r=fuzznonce0000,p=" + proof, "c=biws,r=fuzznonce,p=" + proof, "c=eSws,r=x,p=AAAA",
                "c=biws,r=fuzznonce,p=not-base64", "c=biws,p=" + proof, "c=biws,r=fuzznonce,x=1,p=" + proof, "");
    }

    private static String scramClientFirst(String user, String nonce) {
        return "n,,n=" + user + ",r=" + nonce;
    }

    private static byte[] plain(String authorizationId, String user, String password) {
        return utf8(authorizationId + "\u0000" + user + "\u0000" + password);
    }

    private static String oauthBearer(String token) {
        return "n,,\u0001auth=Bearer " + token + "\u0001\u0001";
    }

    private static String unsecuredJwt(String claims) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        return b64.encodeToString(utf8("{\"alg\":\"none\"}")) + "." + b64.encodeToString(utf8(claims)) + ".";
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
