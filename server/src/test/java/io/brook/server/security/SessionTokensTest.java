package io.brook.server.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.TestKeyStores;
import io.brook.server.config.Listener;
import io.brook.server.config.SecurityProtocol;
import io.brook.testkit.MutableClock;
import io.brook.wire.protocol.Errors;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which connections may manage delegation tokens ({@link Session#mayManageTokens}, Kafka's rule),
 * and what a session that logged in with a token is: its owner, bounded by the token's expiry.
 */
class SessionTokensTest {

    private static final long T0 = 1_700_000_000_000L;
    private static final long EXPIRY_TIME = 60_000L;
    private static final ScramMechanism M = ScramMechanism.SCRAM_SHA_512;

    @TempDir
    static Path dir;
    private static Path clientStore;
    private static Map<String, String> tls;

    private final MutableClock clock = new MutableClock(T0);
    private ScramCredentials scram;
    private DelegationTokens tokens;

    @BeforeAll
    static void stores() throws Exception {
        Path broker = TestKeyStores.create(dir, "broker", "CN=localhost", "dns:localhost");
        clientStore = TestKeyStores.create(dir, "client", "CN=app,O=example", "dns:app");
        tls = TestKeyStores.serving(broker);
    }

    @BeforeEach
    void setUp() throws Exception {
        scram = ScramCredentials.inMemory();
        scram.addIfAbsent("alice", M, "alice-secret", ScramMechanism.MIN_ITERATIONS);
        tokens = DelegationTokens.open(null, new DelegationTokens.Settings("token-secret", 3_600_000L, EXPIRY_TIME,
                600_000L), clock::millis);
        scram.acceptTokensOf(tokens);
    }

    private Session session(SecurityProtocol protocol, Map<String, String> settings) {
        return ListenerSecurity.create(new Listener(protocol.name(), "127.0.0.1", 0), protocol, settings, scram, clock)
                .newSession();
    }

    private Session sasl(SecurityProtocol protocol) {
        Map<String, String> settings = new java.util.HashMap<>(protocol.tls() ? tls : Map.of());
        settings.put("sasl.enabled.mechanisms", M.mechanismName());
        return session(protocol, settings);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A SCRAM-SHA-512 exchange on {@code s} as {@code user}, with the extensions {@code extensions}. */
    private static void login(Session s, String user, String password, String extensions) throws Exception {
        assertThat(s.handshake(M.mechanismName(), (short) 1)).isEqualTo(Session.HandshakeResult.OK);
        String bare = ScramTokenNegotiationTest.clientFirstBare(user, extensions);
        String serverFirst = new String(s.authenticate(utf8("n,," + bare)), StandardCharsets.UTF_8);
        s.authenticate(utf8(ScramTokenNegotiationTest.clientFinal(M, bare, serverFirst, password).message()));
        assertThat(s.authenticated()).isTrue();
    }

    private DelegationTokens.Created aliceToken() {
        DelegationTokens.Created c = tokens.create("User:alice", "User:alice", List.of(), 0).join();
        assertThat(c.error()).isEqualTo(Errors.NONE);
        return c;
    }

    @Test
    void aPlaintextConnectionMayNotManageTokens() {
        Session s = session(SecurityProtocol.PLAINTEXT, Map.of());
        assertThat(s.authenticated()).isTrue();
        assertThat(s.principal()).isEqualTo(Session.ANONYMOUS);
        assertThat(s.mayManageTokens()).isFalse();
    }

    @Test
    void aPasswordLoginMayManageTokens() throws Exception {
        Session s = sasl(SecurityProtocol.SASL_PLAINTEXT);
        login(s, "alice", "alice-secret", "");
        assertThat(s.principal()).isEqualTo("User:alice");
        assertThat(s.mayManageTokens()).isTrue();
    }

    @Test
    void aPasswordLoginOverTlsMayManageTokensWithoutAClientCertificate() throws Exception {
        Session s = sasl(SecurityProtocol.SASL_SSL);
        assertThat(s.tlsHandshakeDone(List.of())).isTrue();
        login(s, "alice", "alice-secret", "");
        assertThat(s.mayManageTokens()).isTrue();
    }

    @Test
    void aTokenLoginActsAsTheOwnerButMayNotManageTokens() throws Exception {
        DelegationTokens.Created c = aliceToken();
        Session s = sasl(SecurityProtocol.SASL_PLAINTEXT);
        login(s, c.token().tokenId(), Base64.getEncoder().encodeToString(c.hmac()), ",tokenauth=true");
        assertThat(s.principal()).isEqualTo("User:alice");
        assertThat(s.mayManageTokens()).isFalse();

        Session overTls = sasl(SecurityProtocol.SASL_SSL);
        assertThat(overTls.tlsHandshakeDone(List.of())).isTrue();
        login(overTls, c.token().tokenId(), Base64.getEncoder().encodeToString(c.hmac()), ",tokenauth=true");
        assertThat(overTls.mayManageTokens()).isFalse();
    }

    @Test
    void aTokenSessionLastsUntilTheTokenExpires() throws Exception {
        DelegationTokens.Created c = aliceToken();
        clock.advance(10_000);
        Session s = sasl(SecurityProtocol.SASL_PLAINTEXT);
        login(s, c.token().tokenId(), Base64.getEncoder().encodeToString(c.hmac()), ",tokenauth=true");
        assertThat(s.sessionLifetimeMs()).isEqualTo(EXPIRY_TIME - 10_000);
        clock.advance(EXPIRY_TIME - 10_000 - 1);
        assertThat(s.expired()).isFalse();
        clock.advance(1);
        assertThat(s.expired()).isTrue();

        Session byPassword = sasl(SecurityProtocol.SASL_PLAINTEXT);
        login(byPassword, "alice", "alice-secret", "");
        assertThat(byPassword.sessionLifetimeMs()).as("a password sets no bound").isZero();
    }

    @Test
    void anSslConnectionWithoutAClientCertificateMayNotManageTokens() {
        Session s = session(SecurityProtocol.SSL, tls);
        assertThat(s.mayManageTokens()).as("before the handshake").isFalse();
        assertThat(s.tlsHandshakeDone(List.of())).isTrue();
        assertThat(s.principal()).isEqualTo(Session.ANONYMOUS);
        assertThat(s.mayManageTokens()).isFalse();
    }

    @Test
    void anSslConnectionWithAClientCertificateMayManageTokens() throws Exception {
        Session s = session(SecurityProtocol.SSL, tls);
        assertThat(s.tlsHandshakeDone(List.of(TestKeyStores.certificate(clientStore)))).isTrue();
        assertThat(s.principal()).isEqualTo("User:CN=app,O=example");
        assertThat(s.mayManageTokens()).isTrue();
    }
}
