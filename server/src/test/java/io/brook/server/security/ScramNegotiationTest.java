package io.brook.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The server side of SCRAM against a client written out here, RFC 5802's computations by hand. */
class ScramNegotiationTest {

    private static final ScramMechanism M = ScramMechanism.SCRAM_SHA_512;

    private static ScramCredentials alice() throws Exception {
        ScramCredentials c = ScramCredentials.inMemory();
        c.addIfAbsent("alice", M, "alice-secret", 4096);
        return c;
    }

    /** The client-final message for {@code finalNonce}, with the proof a client knowing {@code password} computes. */
    static String clientFinal(String clientFirstBare, String serverFirst, String finalNonce, String password) {
        return clientFinal(clientFirstBare, serverFirst, finalNonce, password, "c=biws");
    }

    /** As above, binding {@code binding} ("c=biws" is the gs2-header "n,,"). */
    static String clientFinal(String clientFirstBare, String serverFirst, String finalNonce, String password,
            String binding) {
        String salt = serverFirst.split(",")[1].substring(2);
        int iterations = Integer.parseInt(serverFirst.split(",")[2].substring(2));
        byte[] salted = M.saltedPassword(password, Base64.getDecoder().decode(salt), iterations);
        byte[] clientKey = M.hmac(salted, "Client Key".getBytes(StandardCharsets.US_ASCII));
        String withoutProof = binding + ",r=" + finalNonce;
        byte[] auth = (clientFirstBare + "," + serverFirst + "," + withoutProof).getBytes(StandardCharsets.UTF_8);
        byte[] signature = M.hmac(M.hash(clientKey), auth);
        byte[] proof = new byte[clientKey.length];
        for (int i = 0; i < proof.length; i++) {
            proof[i] = (byte) (clientKey[i] ^ signature[i]);
        }
        return withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String exchange(String password, boolean legacyNonce, String nonceOverride) throws Exception {
        ScramNegotiation n = new ScramNegotiation(M, alice());
        String bare = "n=alice,r=cnonce123";
        String serverFirst = new String(n.evaluate(utf8("n,," + bare)), StandardCharsets.UTF_8);
        String serverNonce = serverFirst.split(",")[0].substring(2);
        assertThat(serverNonce).startsWith("cnonce123").hasSizeGreaterThan("cnonce123".length());
        String finalNonce = nonceOverride != null ? nonceOverride : legacyNonce ? "cnonce123" + serverNonce : serverNonce;
        String serverFinal = new String(n.evaluate(utf8(clientFinal(bare, serverFirst, finalNonce, password))),
                StandardCharsets.UTF_8);
        assertThat(n.isComplete()).isTrue();
        assertThat(n.userName()).isEqualTo("alice");
        return serverFinal;
    }

    @Test
    void authenticatesAndProvesTheServerKnowsTheCredential() throws Exception {
        assertThat(exchange("alice-secret", false, null)).startsWith("v=");
    }

    /** The first message's gs2-header, then the final message's c=, which must be the base64 of that header. */
    private static boolean bindingAccepted(String gs2Header, String binding) throws Exception {
        ScramNegotiation n = new ScramNegotiation(M, alice());
        String bare = "n=alice,r=cnonce123";
        String serverFirst = new String(n.evaluate(utf8(gs2Header + bare)), StandardCharsets.UTF_8);
        String nonce = serverFirst.split(",")[0].substring(2);
        try {
            n.evaluate(utf8(clientFinal(bare, serverFirst, nonce, "alice-secret", binding)));
            return n.isComplete();
        } catch (AuthenticationFailure e) {
            return false;
        }
    }

    @Test
    void theFinalMessageMustBindTheFirstMessagesHeader() throws Exception {
        assertThat(bindingAccepted("n,,", "c=biws")).isTrue();
        assertThat(bindingAccepted("y,,", "c=eSws")).as("y: the client could bind, the server cannot").isTrue();
        assertThat(bindingAccepted("n,a=alice,", "c=" + Base64.getEncoder().encodeToString(utf8("n,a=alice,"))))
                .isTrue();
        assertThat(bindingAccepted("n,,", "c=eSws")).isFalse();
        assertThat(bindingAccepted("n,,", "c=not base64")).isFalse();
        assertThat(bindingAccepted("n,,", "c=")).isFalse();
    }

    @Test
    void aClientNonceMustBePrintable() throws Exception {
        for (String nonce : new String[] {"c\u0001nonce", "c nonce", "c\u00e9nonce"}) {
            assertThatThrownBy(() -> new ScramNegotiation(M, alice()).evaluate(utf8("n,,n=alice,r=" + nonce)))
                    .isInstanceOf(AuthenticationFailure.class);
        }
    }

    @Test
    void acceptsLibrdkafkasLegacyNonceAndNothingLooser() throws Exception {
        assertThat(exchange("alice-secret", true, null)).startsWith("v=");
        assertThatThrownBy(() -> exchange("alice-secret", false, "cnonce123"))
                .isInstanceOf(AuthenticationFailure.class);
        assertThatThrownBy(() -> exchange("alice-secret", false, "cnonce123cnonce123cnonce123"))
                .isInstanceOf(AuthenticationFailure.class);
        assertThatThrownBy(() -> exchange("alice-secret", false, "other"))
                .isInstanceOf(AuthenticationFailure.class);
    }

    /** The server-first message for {@code user}, then the failure of a client-final message with any password. */
    private static String unknownUserFirstThenRefused(ScramMechanism m, String user) throws Exception {
        ScramNegotiation n = new ScramNegotiation(m, alice());
        String bare = "n=" + user + ",r=cnonce123";
        String serverFirst = new String(n.evaluate(utf8("n,," + bare)), StandardCharsets.UTF_8);
        String nonce = serverFirst.split(",")[0].substring(2);
        assertThatThrownBy(() -> n.evaluate(utf8(clientFinal(bare, serverFirst, nonce, "any"))))
                .hasMessageContaining("Invalid user credentials");
        assertThat(n.isComplete()).isFalse();
        return serverFirst;
    }

    @Test
    void refusesAWrongPasswordAndAnUnknownUserAlike() throws Exception {
        assertThatThrownBy(() -> exchange("wrong", false, null)).hasMessageContaining("Invalid user credentials");
        // an unknown user gets a server-first message like a known one, the same made-up salt each time,
        // and is refused only at the proof, with a wrong password's message
        String first = unknownUserFirstThenRefused(M, "bob");
        String again = unknownUserFirstThenRefused(M, "bob");
        assertThat(first).matches("r=cnonce123[^,]+,s=[A-Za-z0-9+/=]+,i=4096");
        for (String user : List.of("bob", "carol", "dave", "erin", "frank")) {
            String s = unknownUserFirstThenRefused(M, user).replaceAll(".*,s=([^,]+),.*", "$1");
            // shaped as the salts of Kafka's tools and admin client: a 130-bit number in base 36
            assertThat(new String(Base64.getDecoder().decode(s), StandardCharsets.US_ASCII)).matches("[0-9a-z]{20,26}");
        }
        assertThat(again.substring(again.indexOf(",s="))).isEqualTo(first.substring(first.indexOf(",s=")));
        assertThat(unknownUserFirstThenRefused(M, "carol")).doesNotContain(first.substring(first.indexOf(",s=")));
        assertThat(unknownUserFirstThenRefused(ScramMechanism.SCRAM_SHA_256, "alice")).as("alice has SHA-512 only")
                .startsWith("r=cnonce123");
    }
}
