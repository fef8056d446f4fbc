package io.brook.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.brook.wire.protocol.Errors;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SCRAM logins with a delegation token (the {@code tokenauth=true} extension): the client side is
 * written out here, since {@link ScramClient} sends no extensions. A token logs in as its owner
 * until it expires; a wrong HMAC, an unknown or expired token fail as a wrong password does; other
 * extensions are ignored, as Kafka ignores them; without {@code tokenauth=true} a token id is just
 * an unknown user name.
 */
class ScramTokenNegotiationTest {

    private static final long T0 = 1_700_000_000_000L;
    private static final long EXPIRY_TIME = 60_000L;
    private static final String NONCE = "fyko+d2lbbFgONRv9qkxdawL";

    private final AtomicLong now = new AtomicLong(T0);
    private DelegationTokens tokens;
    private ScramCredentials credentials;
    /** A token of alice's, asked for by admin. */
    private DelegationTokens.Created token;

    @BeforeEach
    void setUp() throws Exception {
        tokens = DelegationTokens.open(null, new DelegationTokens.Settings("token-secret", 3_600_000L, EXPIRY_TIME,
                600_000L), now::get);
        credentials = ScramCredentials.inMemory();
        for (ScramMechanism m : ScramMechanism.values()) {
            credentials.addIfAbsent("alice", m, "alice-secret", ScramMechanism.MIN_ITERATIONS);
        }
        credentials.acceptTokensOf(tokens);
        token = tokens.create("User:alice", "User:admin", List.of(), 0).join();
        assertThat(token.error()).isEqualTo(Errors.NONE);
    }

    /** The client-final message, and the server signature the server-final message must carry. */
    record ClientFinal(String message, byte[] serverSignature) {
    }

    /** What a client knowing {@code password} sends last (RFC 5802), with the gs2-header "n,," bound. */
    static ClientFinal clientFinal(ScramMechanism m, String clientFirstBare, String serverFirst, String password) {
        String[] attrs = serverFirst.split(",");
        String nonce = attrs[0].substring(2);
        byte[] salt = Base64.getDecoder().decode(attrs[1].substring(2));
        int iterations = Integer.parseInt(attrs[2].substring(2));
        byte[] salted = m.saltedPassword(password, salt, iterations);
        byte[] clientKey = m.hmac(salted, "Client Key".getBytes(StandardCharsets.US_ASCII));
        String withoutProof = "c=biws,r=" + nonce;
        byte[] auth = (clientFirstBare + "," + serverFirst + "," + withoutProof).getBytes(StandardCharsets.UTF_8);
        byte[] signature = m.hmac(m.hash(clientKey), auth);
        byte[] proof = new byte[clientKey.length];
        for (int i = 0; i < proof.length; i++) {
            proof[i] = (byte) (clientKey[i] ^ signature[i]);
        }
        byte[] serverKey = m.hmac(salted, "Server Key".getBytes(StandardCharsets.US_ASCII));
        return new ClientFinal(withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof),
                m.hmac(serverKey, auth));
    }

    /** The client-first-bare message of {@code user}, followed by {@code extensions} (",tokenauth=true" or ""). */
    static String clientFirstBare(String user, String extensions) {
        return "n=" + ScramClient.saslName(user) + ",r=" + NONCE + extensions;
    }

    /** A whole exchange on {@code server}; returns the server-final message, checked against the client's signature. */
    static String exchange(ScramNegotiation server, ScramMechanism m, String user, String password, String extensions)
            throws AuthenticationFailure {
        String bare = clientFirstBare(user, extensions);
        String serverFirst = text(server.evaluate(utf8("n,," + bare)));
        assertThat(serverFirst).matches("r=" + NONCE.replace("+", "\\+") + "[^,]+,s=[A-Za-z0-9+/=]+,i=\\d+");
        ClientFinal last = clientFinal(m, bare, serverFirst, password);
        String serverFinal = text(server.evaluate(utf8(last.message())));
        assertThat(serverFinal).startsWith("v=");
        assertThat(MessageDigest.isEqual(Base64.getDecoder().decode(serverFinal.substring(2)), last.serverSignature()))
                .as("the server proves it knows the credential").isTrue();
        return serverFinal;
    }

    private static String hmacPassword(byte[] hmac) {
        return Base64.getEncoder().encodeToString(hmac);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The failure of a login of alice with a wrong password, which token failures must not be told from. */
    private AuthenticationFailure wrongPassword(ScramMechanism m) {
        AuthenticationFailure f = catchThrowableOfType(AuthenticationFailure.class,
                () -> exchange(new ScramNegotiation(m, credentials), m, "alice", "wrong", ""));
        assertThat(f).isNotNull();
        assertThat(f.invalidCredentials()).isTrue();
        return f;
    }

    private void assertFailsAsAWrongPassword(ScramMechanism m, ScramNegotiation server, String user, String password,
            String extensions) {
        AuthenticationFailure f = catchThrowableOfType(AuthenticationFailure.class,
                () -> exchange(server, m, user, password, extensions));
        assertThat(f).as("the login must fail").isNotNull();
        assertThat(f.invalidCredentials()).isTrue();
        assertThat(f).hasMessage(wrongPassword(m).getMessage());
        assertThat(server.isComplete()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void aTokenLogsInAsItsOwnerUntilItsExpiry(ScramMechanism m) throws Exception {
        ScramNegotiation server = new ScramNegotiation(m, credentials);
        exchange(server, m, token.token().tokenId(), hmacPassword(token.hmac()), ",tokenauth=true");
        assertThat(server.isComplete()).isTrue();
        assertThat(server.principal()).as("the owner, not the requester").isEqualTo("User:alice");
        assertThat(server.tokenAuthenticated()).isTrue();
        assertThat(server.credentialExpiresAtMs()).isEqualTo(OptionalLong.of(T0 + EXPIRY_TIME));
        assertThat(token.token().expiryTimestampMs()).isEqualTo(T0 + EXPIRY_TIME);
    }

    @Test
    void theExpiryOfATokenLoginFollowsItsRenewals() throws Exception {
        ScramMechanism m = ScramMechanism.SCRAM_SHA_256;
        now.set(T0 + 1000);
        assertThat(tokens.renew(token.hmac(), "User:alice", 5000).join().expiryTimestampMs()).isEqualTo(T0 + 6000);
        ScramNegotiation server = new ScramNegotiation(m, credentials);
        exchange(server, m, token.token().tokenId(), hmacPassword(token.hmac()), ",tokenauth=true");
        assertThat(server.credentialExpiresAtMs()).isEqualTo(OptionalLong.of(T0 + 6000));
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void aPasswordLoginIsNotATokenLogin(ScramMechanism m) throws Exception {
        ScramNegotiation server = new ScramNegotiation(m, credentials);
        exchange(server, m, "alice", "alice-secret", "");
        assertThat(server.principal()).isEqualTo("User:alice");
        assertThat(server.tokenAuthenticated()).isFalse();
        assertThat(server.credentialExpiresAtMs()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void aWrongHmacFailsAsAWrongPasswordDoes(ScramMechanism m) throws Exception {
        byte[] wrong = token.hmac().clone();
        wrong[wrong.length - 1] ^= 1;
        assertFailsAsAWrongPassword(m, new ScramNegotiation(m, credentials), token.token().tokenId(),
                hmacPassword(wrong), ",tokenauth=true");
        DelegationTokens.Created other = tokens.create("User:alice", "User:alice", List.of(), 0).join();
        assertFailsAsAWrongPassword(m, new ScramNegotiation(m, credentials), token.token().tokenId(),
                hmacPassword(other.hmac()), ",tokenauth=true");
        assertFailsAsAWrongPassword(m, new ScramNegotiation(m, credentials), token.token().tokenId(),
                "alice-secret", ",tokenauth=true");
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void anUnknownTokenFailsAsAWrongPasswordDoes(ScramMechanism m) throws Exception {
        assertFailsAsAWrongPassword(m, new ScramNegotiation(m, credentials), "no-such-token",
                hmacPassword(token.hmac()), ",tokenauth=true");
    }

    @Test
    void anExpiredTokenFailsAsAWrongPasswordDoes() throws Exception {
        ScramMechanism m = ScramMechanism.SCRAM_SHA_512;
        now.set(T0 + EXPIRY_TIME);
        exchange(new ScramNegotiation(m, credentials), m, token.token().tokenId(), hmacPassword(token.hmac()),
                ",tokenauth=true");
        now.set(T0 + EXPIRY_TIME + 1);
        assertFailsAsAWrongPassword(m, new ScramNegotiation(m, credentials), token.token().tokenId(),
                hmacPassword(token.hmac()), ",tokenauth=true");
    }

    @Test
    void aRemovedTokenFailsAsAWrongPasswordDoes() throws Exception {
        ScramMechanism m = ScramMechanism.SCRAM_SHA_256;
        exchange(new ScramNegotiation(m, credentials), m, token.token().tokenId(), hmacPassword(token.hmac()),
                ",tokenauth=true");
        assertThat(tokens.expire(token.hmac(), "User:alice", -1).join().error()).isEqualTo(Errors.NONE);
        assertFailsAsAWrongPassword(m, new ScramNegotiation(m, credentials), token.token().tokenId(),
                hmacPassword(token.hmac()), ",tokenauth=true");
    }

    @Test
    void withoutTokenStoreNoTokenLogsIn() throws Exception {
        ScramMechanism m = ScramMechanism.SCRAM_SHA_512;
        ScramCredentials withoutTokens = ScramCredentials.inMemory();
        withoutTokens.addIfAbsent("alice", m, "alice-secret", ScramMechanism.MIN_ITERATIONS);
        AuthenticationFailure f = catchThrowableOfType(AuthenticationFailure.class,
                () -> exchange(new ScramNegotiation(m, withoutTokens), m, token.token().tokenId(),
                        hmacPassword(token.hmac()), ",tokenauth=true"));
        assertThat(f).isNotNull();
        assertThat(f.invalidCredentials()).isTrue();
        assertThat(f).hasMessage(wrongPassword(m).getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {",tokenauth=TRUE", ",tokenauth=True", ",tokenauth=true,foo=bar",
        ",foo=bar,tokenauth=true", ",username=\"x\",tokenauth=true"})
    void otherExtensionsBesideTokenauthAreIgnoredAndItsValueIsCaseInsensitive(String extensions) throws Exception {
        ScramMechanism m = ScramMechanism.SCRAM_SHA_256;
        ScramNegotiation server = new ScramNegotiation(m, credentials);
        exchange(server, m, token.token().tokenId(), hmacPassword(token.hmac()), extensions);
        assertThat(server.tokenAuthenticated()).isTrue();
        assertThat(server.principal()).isEqualTo("User:alice");
    }

    @ParameterizedTest
    @ValueSource(strings = {",foo=bar", ",tokenauth=false", ",tokenauth=yes", ",tokenauth", ",tokenauth=",
        ",TOKENAUTH=true", ",xtokenauth=true", ",foo=bar,x=y"})
    void anythingButTokenauthTrueIsAPasswordLogin(String extensions) throws Exception {
        ScramMechanism m = ScramMechanism.SCRAM_SHA_256;
        ScramNegotiation byPassword = new ScramNegotiation(m, credentials);
        exchange(byPassword, m, "alice", "alice-secret", extensions);
        assertThat(byPassword.tokenAuthenticated()).isFalse();
        assertThat(byPassword.credentialExpiresAtMs()).isEmpty();
        assertFailsAsAWrongPassword(m, new ScramNegotiation(m, credentials), token.token().tokenId(),
                hmacPassword(token.hmac()), extensions);
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void withoutTheExtensionATokenIdIsAnUnknownUser(ScramMechanism m) throws Exception {
        ScramNegotiation server = new ScramNegotiation(m, credentials);
        assertFailsAsAWrongPassword(m, server, token.token().tokenId(), hmacPassword(token.hmac()), "");
        assertThat(server.tokenAuthenticated()).isFalse();
    }

    @Test
    void withTheExtensionAUserPasswordDoesNotLogIn() throws Exception {
        ScramMechanism m = ScramMechanism.SCRAM_SHA_512;
        assertFailsAsAWrongPassword(m, new ScramNegotiation(m, credentials), "alice", "alice-secret",
                ",tokenauth=true");
    }
}
