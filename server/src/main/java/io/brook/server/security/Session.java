package io.brook.server.security;

import io.brook.server.config.SecurityProtocol;
import io.brook.wire.protocol.ApiKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.OptionalLong;

/**
 * One connection's security state: the listener it came in on, who it is (the principal) and,
 * on a SASL listener, how far its authentication got. Kafka's order is kept:
 *
 * <pre>
 * SASL listener:  [ApiVersions] -> SaslHandshake -> SaslAuthenticate* -> authenticated
 *                 (a v0 handshake is followed by raw SASL tokens instead of SaslAuthenticate)
 * otherwise:      authenticated from the start (User:ANONYMOUS, or the TLS client certificate's
 *                 subject once the handshake presented one)
 * </pre>
 *
 * Until authenticated only ApiVersions, SaslHandshake and SaslAuthenticate are served
 * ({@link #allowedBeforeAuthentication}); anything else closes the connection, as Kafka does.
 * An authentication lasts at most {@code connections.max.reauth.ms} (when set) and, as in Kafka,
 * no longer than the credential it presented (an OAUTHBEARER token's {@code exp}), even when
 * {@code connections.max.reauth.ms} is 0 ({@link SessionLifetime}; KIP-368). A session that
 * expires may be renewed: the client re-authenticates on the same connection (a SaslHandshake v1
 * with the same mechanism, then SaslAuthenticate, as the same principal; with OAUTHBEARER a
 * token, whose expiry bounds the renewed session) before it {@linkplain #expired expires}, or
 * the connection closes at its next request. A session that never expires cannot re-authenticate,
 * and no session re-authenticates within a second of its last authentication (as in Kafka).
 *
 * <p>Concurrency: the state is written by the connection's SASL requests, which run one at a
 * time, and read by its event loop when it reads the next frame; the fields the event loop reads
 * are volatile. A client sends its next request only after the answer to the previous one,
 * so a well-behaved client never races its own authentication; one that pipelines a request
 * behind its SaslAuthenticate finds itself unauthenticated and is closed.
 */
public final class Session {

    public static final String ANONYMOUS = "User:ANONYMOUS";
    public static final String UNKNOWN_SOFTWARE = "unknown";
    private static final long NEVER = Long.MAX_VALUE;
    /** The shortest time from one authentication to a re-authentication, as in Kafka. */
    static final long MIN_REAUTH_INTERVAL_MS = 1000;

    private final ListenerSecurity listener;
    private volatile boolean authenticated;
    private volatile boolean rawTokens;
    private volatile String principal = ANONYMOUS;
    /** Whether the client logged in with a delegation token. */
    private volatile boolean tokenAuthenticated;
    private SaslNegotiation negotiation;
    private String mechanism;
    private boolean handshakeDone;
    /** When the authentication expires (clock millis, KIP-368), or {@link #NEVER}. */
    private volatile long expiresAtMs = NEVER;
    /** When the last authentication completed (clock millis). */
    private long authenticatedAtMs;
    /** The lifetime of the last completed authentication, told to the client in SaslAuthenticate v1+; 0: none. */
    private long sessionLifetimeMs;
    /** What the client said it is in ApiVersions v3+ (KIP-511); Kafka's "unknown" until then. */
    private volatile String clientSoftwareName = UNKNOWN_SOFTWARE;
    private volatile String clientSoftwareVersion = UNKNOWN_SOFTWARE;

    Session(ListenerSecurity listener) {
        this.listener = listener;
        this.authenticated = !listener.protocol().sasl();
    }

    /** The name of the listener the connection came in on (Metadata answers with its addresses). */
    public String listenerName() {
        return listener.name();
    }

    /** {@code User:<name>}: who the connection acts as. */
    public String principal() {
        return principal;
    }

    /** Records the client software name and version of an ApiVersions request (v3+). */
    public void clientSoftware(String name, String version) {
        this.clientSoftwareName = name;
        this.clientSoftwareVersion = version;
    }

    public String clientSoftwareName() {
        return clientSoftwareName;
    }

    public String clientSoftwareVersion() {
        return clientSoftwareVersion;
    }

    public boolean authenticated() {
        return authenticated;
    }

    /** Whether this connection authenticates with SASL (a SASL_PLAINTEXT or SASL_SSL listener). */
    public boolean usesSasl() {
        return listener.protocol().sasl();
    }

    /** What a connection may send before it authenticated. */
    public static boolean allowedBeforeAuthentication(ApiKey key) {
        return key == ApiKey.API_VERSIONS || key == ApiKey.SASL_HANDSHAKE || key == ApiKey.SASL_AUTHENTICATE;
    }

    /**
     * The TLS handshake finished; {@code peer} is the client's certificate chain (empty when it
     * sent none). On an SSL listener the principal becomes the subject of the first certificate
     * (the distinguished name as RFC 2253 writes it) mapped by {@code ssl.principal.mapping.rules};
     * returns false when no rule applies (the connection must close).
     */
    public boolean tlsHandshakeDone(List<Certificate> peer) {
        if (!listener.protocol().sasl() && !peer.isEmpty() && peer.get(0) instanceof X509Certificate x) {
            String name = listener.principalMapper().map(x.getSubjectX500Principal().getName());
            if (name == null) {
                return false;
            }
            principal = "User:" + name;
        }
        return true;
    }

    /**
     * {@code connection.failed.authentication.delay.ms} (Kafka's default 100): how long a failed
     * authentication waits before its answer and the close, which slows down password guessing
     * without holding a thread.
     */
    public long failedAuthenticationDelayMs() {
        return listener.failedAuthenticationDelayMs();
    }

    /**
     * {@code brook.sasl.authentication.timeout.ms} (Brook's own, default 30 s; 0 = no limit): how
     * long a connection to a SASL listener may stay open without having authenticated.
     */
    public long authenticationTimeoutMs() {
        return listener.authenticationTimeoutMs();
    }

    /**
     * The largest frame this connection may send now, {@code configured} being {@code
     * socket.request.max.bytes}: until a client authenticated on a SASL listener, at most {@code
     * sasl.server.max.receive.size} (Kafka's default 512 KiB, which any SASL exchange fits), so
     * that connections that never log in cannot make the broker buffer requests of 100 MB.
     */
    public int maxFrame(int configured) {
        return authenticated ? configured : Math.min(configured, listener.maxReceiveBeforeAuthentication());
    }

    /** Whether the next frame is a raw SASL token (after a v0 SaslHandshake), not a request. */
    public boolean expectsRawTokens() {
        return rawTokens;
    }

    /** The mechanisms this listener enables, for SaslHandshake's answer. */
    public List<String> enabledMechanisms() {
        return listener.mechanisms();
    }

    /** How a SaslHandshake went. */
    public enum HandshakeResult { OK, UNSUPPORTED_MECHANISM, ILLEGAL_STATE }

    /**
     * SaslHandshake: picks {@code name} for this connection; at {@code version} 0 the tokens that
     * follow come raw.
     */
    public synchronized HandshakeResult handshake(String name, short version) {
        if (!listener.protocol().sasl()) {
            return HandshakeResult.ILLEGAL_STATE;
        }
        if (authenticated) {
            // KIP-368: re-authentication, with the mechanism of the first one, when the session expires
            // and, as in Kafka, at most once a second (a client cannot keep the broker busy with them)
            if (expiresAtMs == NEVER || negotiation != null || version == 0
                    || listener.clock().millis() - authenticatedAtMs < MIN_REAUTH_INTERVAL_MS) {
                return HandshakeResult.ILLEGAL_STATE;
            }
            if (!mechanism.equals(name)) {
                return HandshakeResult.UNSUPPORTED_MECHANISM;
            }
            negotiation = listener.newNegotiation(name);
            return HandshakeResult.OK;
        }
        if (handshakeDone) {
            return HandshakeResult.ILLEGAL_STATE;
        }
        handshakeDone = true;
        SaslNegotiation n = name == null ? null : listener.newNegotiation(name);
        if (n == null) {
            return HandshakeResult.UNSUPPORTED_MECHANISM;
        }
        negotiation = n;
        mechanism = name;
        rawTokens = version == 0;
        return HandshakeResult.OK;
    }

    /** Whether a SaslAuthenticate may come now (after a v1 handshake, before the end). */
    public synchronized boolean awaitingAuthenticate() {
        return negotiation != null && !rawTokens;
    }

    /**
     * Whether this connection may create, renew, expire or describe delegation tokens, Kafka's
     * rule: not on a PLAINTEXT listener, not on an SSL listener without a client certificate, and
     * not when it logged in with a token itself.
     */
    public boolean mayManageTokens() {
        SecurityProtocol p = listener.protocol();
        return !tokenAuthenticated && p != SecurityProtocol.PLAINTEXT
                && !(p == SecurityProtocol.SSL && ANONYMOUS.equals(principal));
    }

    /**
     * Whether the authentication expired ({@code connections.max.reauth.ms} or the credential's
     * expiry, KIP-368): the connection must then re-authenticate before anything else, or close.
     */
    public boolean expired() {
        long at = expiresAtMs;
        return at != NEVER && listener.clock().millis() >= at;
    }

    /**
     * The session lifetime for the answer to the SASL message just evaluated (SaslAuthenticate
     * v1+): how long the authentication that message completed lasts, or 0 when it lasts for ever
     * or the exchange is still under way, as in Kafka.
     */
    public synchronized long sessionLifetimeMs() {
        return negotiation == null && authenticated ? sessionLifetimeMs : 0;
    }

    /**
     * The next client message of the exchange (a SaslAuthenticate's bytes or a raw token); returns
     * the server's answer. Throws when authentication failed; the connection must then close.
     */
    public synchronized byte[] authenticate(byte[] clientMessage) throws AuthenticationFailure {
        if (negotiation == null) {
            throw new AuthenticationFailure("Unexpected SASL message");
        }
        byte[] answer;
        try {
            answer = negotiation.evaluate(clientMessage);
        } catch (AuthenticationFailure e) {
            negotiation = null;
            rawTokens = false;
            if (e.invalidCredentials()) {
                // Kafka's words, which clients show and scripts match
                throw new AuthenticationFailure("Authentication failed during "
                        + (authenticated ? "re-authentication" : "authentication")
                        + " due to invalid credentials with SASL mechanism " + mechanism);
            }
            throw e;
        } catch (RuntimeException e) {
            // a message a mechanism's parser did not expect is a failed authentication like any
            // other (answered after the failure delay, the connection then closed), never an
            // exchange left half-way for the client to try again on
            negotiation = null;
            rawTokens = false;
            throw new AuthenticationFailure("Authentication failed: invalid " + mechanism + " message");
        }
        if (negotiation.isComplete()) {
            String who = negotiation.principal();
            OptionalLong credentialExpiresAtMs = negotiation.credentialExpiresAtMs();
            boolean byToken = negotiation.tokenAuthenticated();
            negotiation = null;
            if (authenticated && !who.equals(principal)) {
                throw new AuthenticationFailure("Cannot change principals during re-authentication from " + principal
                        + ": " + who);
            }
            principal = who;
            tokenAuthenticated = byToken;
            rawTokens = false;
            long now = listener.clock().millis();
            authenticatedAtMs = now;
            OptionalLong lifetime = SessionLifetime.ms(listener.reauthMs(mechanism), credentialExpiresAtMs, now);
            sessionLifetimeMs = lifetime.orElse(0);
            expiresAtMs = lifetime.isEmpty() ? NEVER : now + Math.min(lifetime.getAsLong(), NEVER - 1 - now);
            authenticated = true;
        }
        return answer;
    }

    /**
     * What a client that sends raw tokens (after a v0 handshake) gets when its authentication
     * failed, before the connection closes, or null for nothing: for OAUTHBEARER, RFC 7628's
     * error challenge, as Kafka sends it, so that such a client (kafka-python) reports a failed
     * authentication rather than a broker that went away. PLAIN and SCRAM have no such message.
     */
    public synchronized byte[] rawFailureToken() {
        return "OAUTHBEARER".equals(mechanism)
                ? "{\"status\":\"invalid_token\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8) : null;
    }

    /** The mechanism chosen by the handshake, or null. */
    public synchronized String mechanism() {
        return mechanism;
    }
}
