package io.brook.server.cluster.interbroker;

import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.brook.server.security.InterBrokerLogin;
import io.brook.server.security.TlsSettings;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.net.InetSocketAddress;
import javax.net.ssl.SSLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's client of other brokers (docs/cluster.md, section 7): Kafka requests, encoded with
 * the wire module's message classes, sent to another node of the cluster and answered as a
 * {@link CompletableFuture}. What the transaction coordinator's markers, the partition leaders'
 * verification of transactional writes and partition moves send. The broker never uses
 * kafka-clients for this.
 *
 * <p><b>Connections.</b> One connection per target node, opened on first use on the broker's own
 * Netty event loops, to the node's endpoint on {@code inter.broker.listener.name} as the
 * metadata image has it at that moment ({@code endpoints}). Requests carry correlation ids and are
 * matched to their answers by them; at most {@link InterBrokerSettings#maxInFlight()} are
 * unanswered on a connection, the next ones wait in order (at most
 * {@link InterBrokerSettings#maxQueued()}; beyond that a request fails at once). A connection that
 * cannot be opened fails the requests waiting for it, and the next attempt waits a back-off that
 * doubles from {@code reconnectBackoffMs} to {@code reconnectBackoffMaxMs} (reset by a
 * successful connection), as Kafka's network client does. A request unanswered within
 * {@code requestTimeoutMs} (counted from {@link #send}) fails and, when it was sent, its
 * connection is closed, as Kafka does: whatever the other node does with it, no answer is
 * awaited any more. A closed connection fails its requests in flight; the next request opens a
 * new one.
 *
 * <p><b>Failures</b> are {@link InterBrokerException}s (retriable: the request may or may not
 * have been processed); Kafka errors in an answer are the caller's to read.
 *
 * <p><b>Threading.</b> {@link #send} from any thread. Each connection's state is confined to the
 * one event loop it was given; the futures complete on that event loop, so what runs after them
 * must not block.
 *
 * <p><b>Security.</b> On a TLS or SASL inter-broker listener each new connection logs in first,
 * as a Kafka broker does ({@link NodeLogin}); until then nothing else is sent on it.
 */
public final class InterBrokerClient implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(InterBrokerClient.class);
    /** How long {@link #close()} waits for the connections to fail their requests and close. */
    private static final long CLOSE_WAIT_MS = 5_000;

    private final EventLoopGroup loops;
    private final Class<? extends Channel> channelClass;
    private final IntFunction<InetSocketAddress> endpoints;
    private final String clientId;
    private final InterBrokerSettings settings;
    private final InterBrokerLogin login;
    /** The inter-broker listener's TLS settings now: they change with a dynamic update of its stores. */
    private final Supplier<TlsSettings> listenerTls;
    /** The value of {@link #listenerTls} the client context follows. */
    private TlsSettings followed;
    /** The TLS settings the client context was last built from, and that context (null without TLS). */
    private TlsSettings tls;
    private SslContext sslContext;
    private final Map<Integer, NodeConnection> connections = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param loops        the event loops the connections run on (the broker's)
     * @param channelClass the socket channel class of their transport (NIO or epoll)
     * @param endpoints    a node's address on the inter-broker listener now; null when unknown
     * @param clientId     the client id the requests carry ({@code broker-<node id>})
     */
    public InterBrokerClient(EventLoopGroup loops, Class<? extends Channel> channelClass,
            IntFunction<InetSocketAddress> endpoints, String clientId, InterBrokerSettings settings) {
        this(loops, channelClass, endpoints, clientId, settings, InterBrokerLogin.PLAINTEXT);
    }

    /**
     * A client that logs in to the other nodes with {@code login}: TLS when the inter-broker
     * listener has it, then SASL when it has that ({@link NodeLogin}).
     *
     * @throws IllegalArgumentException when the TLS settings do not make a client context
     */
    public InterBrokerClient(EventLoopGroup loops, Class<? extends Channel> channelClass,
            IntFunction<InetSocketAddress> endpoints, String clientId, InterBrokerSettings settings,
            InterBrokerLogin login) {
        this(loops, channelClass, endpoints, clientId, settings, login, login::tls);
    }

    /**
     * A client that logs in with {@code login} and whose TLS follows {@code listenerTls}: the
     * inter-broker listener's settings as they stand, which a dynamic update of its key or trust
     * store ({@code kafka-configs.sh --entity-type brokers}) replaces; the next connection to
     * another node uses them, as Kafka's broker reconfigures its inter-broker channel. Null from
     * {@code listenerTls} keeps the settings in use.
     *
     * @throws IllegalArgumentException when the TLS settings do not make a client context
     */
    public InterBrokerClient(EventLoopGroup loops, Class<? extends Channel> channelClass,
            IntFunction<InetSocketAddress> endpoints, String clientId, InterBrokerSettings settings,
            InterBrokerLogin login, Supplier<TlsSettings> listenerTls) {
        this.login = login;
        this.listenerTls = listenerTls;
        TlsSettings given = login.tls() == null ? null : listenerTls.get();
        this.followed = given;
        this.tls = given == null ? login.tls() : given;
        this.sslContext = tls == null ? null : clientContext(tls);
        this.loops = loops;
        this.channelClass = channelClass;
        this.endpoints = endpoints;
        this.clientId = clientId;
        this.settings = settings;
    }

    /**
     * Sends {@code request} at {@code version} to node {@code nodeId}; the answer is read with
     * {@code reader}. Fails with {@link InterBrokerException} (see the class comment) and with
     * {@link IllegalArgumentException} for a version the wire module cannot write.
     */
    public <R extends ApiMessage> CompletableFuture<R> send(int nodeId, ApiMessage request, short version,
            ResponseReader<R> reader) {
        ApiKey key = request.apiKey();
        if (version < key.oldestVersion() || version > key.latestVersion()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(key + " v" + version
                    + " is outside the versions the wire module writes"));
        }
        CompletableFuture<R> answer = new CompletableFuture<>();
        if (closed) {
            answer.completeExceptionally(new InterBrokerException("The inter-broker client is closed"));
            return answer;
        }
        NodeConnection c = connections.computeIfAbsent(nodeId,
                id -> new NodeConnection(id, loops.next(), channelClass, endpoints, clientId, settings, login,
                        this::currentTls));
        c.send(new PendingRequest<>(request, version, reader, answer));
        return answer;
    }

    /**
     * The client side of the inter-broker listener's TLS: its trust store checks the other
     * nodes' certificates (the JDK's default trust when it has none), its key store is this
     * node's certificate when they ask for one; OpenSSL when {@code brook.ssl.engine} asks for it
     * and it loads, as the listener itself.
     */
    static SslContext clientContext(TlsSettings s) {
        SslContextBuilder b = SslContextBuilder.forClient()
                .sslProvider(s.engine() == TlsSettings.Engine.OPENSSL && OpenSsl.isAvailable() ? SslProvider.OPENSSL
                        : SslProvider.JDK)
                .protocols(s.protocols());
        if (s.keyManagers() != null) {
            b.keyManager(s.keyManagers());
        }
        if (s.trustManagers() != null) {
            b.trustManager(s.trustManagers());
        }
        if (s.cipherSuites() != null) {
            b.ciphers(s.cipherSuites());
        }
        try {
            return b.build();
        } catch (SSLException e) {
            throw new IllegalArgumentException("the inter-broker client's TLS settings do not work: " + e.getMessage(), e);
        }
    }

    /**
     * The TLS context a new connection uses: built anew when a dynamic update replaced the
     * listener's settings or when its key or trust store files changed since (as the listener
     * itself reloads them), else the last one; a changed store that does not load is logged and
     * the last context kept. Null without TLS.
     */
    synchronized SslContext currentTls() {
        if (tls == null) {
            return null;
        }
        try {
            TlsSettings given = listenerTls.get();
            if (given != null && given != followed) {
                followed = given; // a context these settings cannot make is reported once, not per connection
                SslContext next = clientContext(given);
                tls = given;
                sslContext = next;
                LOG.info("Inter-broker: the listener's key or trust store was changed by a dynamic update; new"
                        + " connections to other nodes use it");
                return sslContext;
            }
            TlsSettings next = tls.reloadIfChanged();
            if (next != null) {
                sslContext = clientContext(next);
                tls = next;
                LOG.info("Inter-broker: the key or trust store changed; new connections to other nodes use it");
            }
        } catch (java.security.GeneralSecurityException | java.io.IOException | IllegalArgumentException e) {
            LOG.warn("Inter-broker: the changed key or trust store does not load ({}); connections to other nodes"
                    + " keep the previous one", e.getMessage());
        }
        return sslContext;
    }

    /** The settings in force. */
    public InterBrokerSettings settings() {
        return settings;
    }

    /** Re-authentications of the connections so far (tests). */
    long reauthentications() {
        long n = 0;
        for (NodeConnection c : connections.values()) {
            n += c.reauthentications();
        }
        return n;
    }

    /** Connections open now (tests). */
    int openConnections() {
        int n = 0;
        for (NodeConnection c : connections.values()) {
            n += c.isOpen() ? 1 : 0;
        }
        return n;
    }

    /**
     * Fails every request not answered yet and closes the connections; waits (a few seconds at
     * most) until they are closed. Requests sent afterwards fail at once.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<CompletableFuture<Void>> closing = new ArrayList<>();
        for (NodeConnection c : connections.values()) {
            closing.add(c.close());
        }
        try {
            CompletableFuture.allOf(closing.toArray(new CompletableFuture<?>[0])).get(CLOSE_WAIT_MS,
                    TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("The inter-broker connections did not all close within {} ms", CLOSE_WAIT_MS, e);
        }
    }
}
