package io.brook.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The client side of SCRAM against Brook's server side, and against server messages that must be refused. */
class ScramClientTest {

    private static final String NONCE = "client-nonce-0123456789";

    private static ScramCredentials credentials(String user, String password) throws Exception {
        ScramCredentials c = ScramCredentials.inMemory();
        for (ScramMechanism m : ScramMechanism.values()) {
            c.addIfAbsent(user, m, password, ScramMechanism.MIN_ITERATIONS);
        }
        return c;
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void logsInToBrooksServerSide(ScramMechanism m) throws Exception {
        String user = "broker=1,node";
        ScramNegotiation server = new ScramNegotiation(m, credentials(user, "s3cret"));
        ScramClient client = new ScramClient(m, user, "s3cret");

        byte[] clientFirst = client.next(null);
        assertThat(text(clientFirst)).startsWith("n,,n=broker=3D1=2Cnode,r=");
        byte[] clientFinal = client.next(server.evaluate(clientFirst));
        assertThat(text(clientFinal)).startsWith("c=biws,r=");
        byte[] serverFinal = server.evaluate(clientFinal);
        assertThat(server.isComplete()).isTrue();
        assertThat(server.userName()).isEqualTo(user);
        assertThat(client.next(serverFinal)).isNull();
        assertThatThrownBy(() -> client.next(serverFinal)).isInstanceOf(AuthenticationFailure.class);
    }

    @Test
    void randomNoncesDiffer() throws Exception {
        ScramMechanism m = ScramMechanism.SCRAM_SHA_256;
        String a = text(new ScramClient(m, "u", "p").next(null));
        String b = text(new ScramClient(m, "u", "p").next(null));
        assertThat(a).isNotEqualTo(b);
        assertThat(a.substring(a.indexOf(",r=") + 3)).hasSizeGreaterThanOrEqualTo(24).doesNotContain(",");
    }

    @Test
    void wrongPasswordFailsOnTheServer() throws Exception {
        ScramMechanism m = ScramMechanism.SCRAM_SHA_512;
        ScramNegotiation server = new ScramNegotiation(m, credentials("broker", "right"));
        ScramClient client = new ScramClient(m, "broker", "wrong");
        byte[] clientFinal = client.next(server.evaluate(client.next(null)));
        assertThatThrownBy(() -> server.evaluate(clientFinal)).isInstanceOf(AuthenticationFailure.class)
                .hasMessageContaining("Invalid user credentials");
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void forgedServerFinalFailsOnTheClient(ScramMechanism m) throws Exception {
        ScramNegotiation server = new ScramNegotiation(m, credentials("broker", "pw"));
        ScramClient client = new ScramClient(m, "broker", "pw");
        byte[] serverFinal = server.evaluate(client.next(server.evaluate(client.next(null))));
        byte[] signature = Base64.getDecoder().decode(text(serverFinal).substring(2));
        signature[0] ^= 1;
        byte[] forged = utf8("v=" + Base64.getEncoder().encodeToString(signature));
        assertThatThrownBy(() -> client.next(forged)).isInstanceOf(AuthenticationFailure.class)
                .hasMessageContaining("signature does not verify");
    }

    @Test
    void serverWithoutTheCredentialCannotSignTheExchange() throws Exception {
        ScramMechanism m = ScramMechanism.SCRAM_SHA_256;
        ScramClient client = new ScramClient(m, "broker", "pw", NONCE);
        client.next(null);
        client.next(utf8("r=" + NONCE + "xyz,s=" + Base64.getEncoder().encodeToString(new byte[16]) + ",i=4096"));
        assertThatThrownBy(() -> client.next(utf8("v=" + Base64.getEncoder().encodeToString(new byte[32]))))
                .isInstanceOf(AuthenticationFailure.class).hasMessageContaining("signature does not verify");
    }

    @Test
    void serverNonceMustExtendTheClients() throws Exception {
        String salt = Base64.getEncoder().encodeToString(new byte[16]);
        for (String nonce : new String[] {"other-nonce-abc", NONCE, NONCE.substring(1) + "abc"}) {
            ScramClient client = new ScramClient(ScramMechanism.SCRAM_SHA_256, "broker", "pw", NONCE);
            assertThat(text(client.next(null))).isEqualTo("n,,n=broker,r=" + NONCE);
            assertThatThrownBy(() -> client.next(utf8("r=" + nonce + ",s=" + salt + ",i=4096")))
                    .isInstanceOf(AuthenticationFailure.class).hasMessageContaining("nonce");
        }
    }

    @Test
    void iterationCountBelowTheMinimumIsRefused() throws Exception {
        ScramClient client = new ScramClient(ScramMechanism.SCRAM_SHA_512, "broker", "pw", NONCE);
        client.next(null);
        String salt = Base64.getEncoder().encodeToString(new byte[16]);
        assertThatThrownBy(() -> client.next(utf8("r=" + NONCE + "srv,s=" + salt + ",i=4095")))
                .isInstanceOf(AuthenticationFailure.class).hasMessageContaining("4095").hasMessageContaining("4096");
    }

    @Test
    void malformedServerFirstIsRefused() throws Exception {
        for (String bad : new String[] {"", "garbage", "r=" + NONCE + "srv,i=4096", "r=" + NONCE + "srv,s=!!,i=4096",
                "r=" + NONCE + "srv,s=AAAA,i=many", "m=ext,r=" + NONCE + "srv,s=AAAA,i=4096"}) {
            ScramClient client = new ScramClient(ScramMechanism.SCRAM_SHA_256, "broker", "pw", NONCE);
            client.next(null);
            assertThatThrownBy(() -> client.next(utf8(bad))).as(bad).isInstanceOf(AuthenticationFailure.class);
        }
    }

    @Test
    void serverErrorsFailWithTheirText() throws Exception {
        ScramClient first = new ScramClient(ScramMechanism.SCRAM_SHA_256, "broker", "pw", NONCE);
        first.next(null);
        assertThatThrownBy(() -> first.next(utf8("e=unknown-user"))).isInstanceOf(AuthenticationFailure.class)
                .hasMessageContaining("unknown-user");

        ScramMechanism m = ScramMechanism.SCRAM_SHA_256;
        ScramNegotiation server = new ScramNegotiation(m, credentials("broker", "pw"));
        ScramClient last = new ScramClient(m, "broker", "pw");
        last.next(server.evaluate(last.next(null)));
        assertThatThrownBy(() -> last.next(utf8("e=invalid-proof"))).isInstanceOf(AuthenticationFailure.class)
                .hasMessageContaining("invalid-proof");
    }

    @Test
    void saslNameEscapesEqualsAndComma() {
        assertThat(ScramClient.saslName("a=b,c")).isEqualTo("a=3Db=2Cc");
        assertThat(ScramClient.saslName("=,")).isEqualTo("=3D=2C");
        assertThat(ScramClient.saslName("plain")).isEqualTo("plain");
    }
}
