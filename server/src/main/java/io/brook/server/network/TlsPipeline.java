package io.brook.server.network;

import io.brook.server.security.Session;
import io.brook.server.security.TlsSettings;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.stream.ChunkedWriteHandler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS part of a TLS listener's pipeline:
 *
 * <pre>
 * ConnectionLimit -> SslHandler -> ChunkedWriteHandler -> FileSliceChunker -> RequestFrameDecoder -> ...
 *                    (encrypts,    (writes file slices    (file regions become
 *                     decrypts)     chunk by chunk as      file slices read in
 *                                   the socket drains)     chunks)
 * </pre>
 *
 * Records cannot leave with {@code sendfile} when they must be encrypted: each file region of a
 * Fetch answer is read in chunks of {@value FileSliceChunker#CHUNK} bytes, one {@code pread}
 * each into a pooled direct buffer that the engine encrypts from; the next chunk is read only
 * when the socket took the previous ones, so a large answer never sits in memory whole. With
 * OpenSSL the engine seals a whole chunk (sixteen TLS records) per call rather than one record per
 * call, which took about a tenth off the broker's CPU per GB read by consumers over TLS.
 *
 * <p>The {@link SslContext} is built from the listener's {@link TlsSettings} with the engine
 * {@code brook.ssl.engine} names: OpenSSL (BoringSSL, linked into Netty's tcnative jar) encrypts
 * straight from and into the pooled direct buffers; the JDK's engine writes its records into heap
 * buffers, which the transport then copies to direct memory for the socket, and its ciphers are
 * slower (see docs/security.md for the figures). When OpenSSL is asked for but its native library
 * cannot be loaded on this machine, the listener logs why once and uses the JDK's engine.
 *
 * <p>Before each new connection the listener's settings are looked at: when a dynamic update
 * ({@code kafka-configs.sh --alter --entity-type brokers}, already validated and persisted) gave
 * the listener new settings, a context is built from them; otherwise the key and trust store
 * files in use are checked for a change (one {@code stat} each) and a changed store is read
 * again. Either way the new context serves the connections from then on, while connections
 * already open keep theirs; whichever happened last wins. A store that cannot be read keeps the
 * old context and is logged.
 */
final class TlsPipeline {

    private static final Logger LOG = LoggerFactory.getLogger(TlsPipeline.class);

    private final String listener;
    private final SslProvider provider;
    /** The listener's settings as configured or changed at run time: a new value is taken at the next connection. */
    private final Supplier<TlsSettings> source;
    /** The value of {@link #source} the context follows. */
    private volatile TlsSettings configured;
    /** The settings the context was built from: {@link #configured} or a reload of its files. */
    private volatile TlsSettings settings;
    private volatile SslContext context;
    private volatile String lastReloadFailure;

    TlsPipeline(String listener, Supplier<TlsSettings> source) {
        TlsSettings settings = source.get();
        this.listener = listener;
        this.source = source;
        this.configured = settings;
        this.settings = settings;
        this.provider = provider(settings.engine(), OpenSsl.isAvailable());
        if (provider == SslProvider.OPENSSL) {
            LOG.info("Listener {}: TLS by OpenSSL ({})", listener, OpenSsl.versionString());
        } else if (settings.engine() == TlsSettings.Engine.OPENSSL) {
            Throwable why = OpenSsl.unavailabilityCause();
            LOG.warn("Listener {}: {}=openssl but OpenSSL (netty-tcnative) cannot be loaded here ({}); TLS by the"
                    + " JDK's engine instead", listener, TlsSettings.ENGINE_CONFIG,
                    why == null ? "no reason given" : why.toString());
        } else {
            LOG.info("Listener {}: TLS by the JDK's engine ({}=jdk)", listener, TlsSettings.ENGINE_CONFIG);
        }
        try {
            this.context = build(settings, provider);
        } catch (SSLException e) {
            throw new IllegalArgumentException("Invalid TLS configuration of listener " + listener + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * Builds the context {@code s} gives on this machine's engine, to check settings before a
     * dynamic update takes them; throws what building it on a listener would.
     */
    static void check(TlsSettings s) throws SSLException {
        build(s, provider(s.engine(), OpenSsl.isAvailable()));
    }

    /** The engine that serves a request for {@code requested}: OpenSSL only when asked for and loadable. */
    static SslProvider provider(TlsSettings.Engine requested, boolean openSslAvailable) {
        return requested == TlsSettings.Engine.OPENSSL && openSslAvailable ? SslProvider.OPENSSL : SslProvider.JDK;
    }

    /** The engine this listener's connections use. */
    SslProvider provider() {
        return provider;
    }

    static SslContext build(TlsSettings s, SslProvider provider) throws SSLException {
        SslContextBuilder b = SslContextBuilder.forServer(s.keyManagers())
                .sslProvider(provider)
                .protocols(s.protocols())
                .clientAuth(switch (s.clientAuth()) {
                    case NONE -> ClientAuth.NONE;
                    case REQUESTED -> ClientAuth.OPTIONAL;
                    case REQUIRED -> ClientAuth.REQUIRE;
                });
        if (s.trustManagers() != null) {
            if (provider == SslProvider.OPENSSL) {
                b.trustManager(ClientCertificateTrust.of(s.trustManagers()));
            } else {
                b.trustManager(s.trustManagers());
            }
        }
        if (s.cipherSuites() != null) {
            b.ciphers(provider == SslProvider.OPENSSL ? availableInOpenSsl(s.cipherSuites()) : s.cipherSuites());
        } else {
            // without ssl.cipher.suites, the JDK's default suites, as Kafka offers them (Netty's
            // own default is a shorter list), less those BoringSSL lacks
            List<String> jdk = JdkDefaultSuites.LIST;
            b.ciphers(provider == SslProvider.OPENSSL
                    ? jdk.stream().filter(OpenSsl::isCipherSuiteAvailable).toList() : jdk);
        }
        return b.build();
    }

    /** The cipher suites the JDK enables by default (those of a Kafka broker without {@code ssl.cipher.suites}). */
    private static final class JdkDefaultSuites {
        static final List<String> LIST = read();

        private static List<String> read() {
            try {
                javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
                ctx.init(null, null, null);
                return List.of(ctx.getDefaultSSLParameters().getCipherSuites());
            } catch (java.security.GeneralSecurityException e) {
                throw new IllegalStateException("the JDK's TLS defaults cannot be read", e);
            }
        }
    }

    /**
     * The suites of {@code ssl.cipher.suites} that BoringSSL has, the others dropped with a
     * warning: a suite only the JDK knows (3DES, say) does not stop the start, as the JDK's engine
     * skips the suites it disables. Throws when none of them is available.
     */
    static List<String> availableInOpenSsl(List<String> suites) throws SSLException {
        List<String> available = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (String suite : suites) {
            (OpenSsl.isCipherSuiteAvailable(suite) ? available : missing).add(suite);
        }
        if (available.isEmpty()) {
            throw new SSLException("none of ssl.cipher.suites " + suites + " is available in OpenSSL ("
                    + TlsSettings.ENGINE_CONFIG + "=jdk uses the JDK's suites)");
        }
        if (!missing.isEmpty()) {
            LOG.warn("ssl.cipher.suites: {} not available in OpenSSL, not offered", missing);
        }
        return available;
    }

    /**
     * Why a TLS handshake failed, as the failed authentication is logged; null when the client
     * merely went away first (closed or reset the connection: a client closing a connection it no
     * longer needs, a port probe), which is no failed authentication, as in Kafka. Never the
     * message of a NotSslRecordException: it holds the bytes the client sent.
     */
    static String handshakeFailure(Throwable cause) {
        if (cause == null || cause instanceof java.nio.channels.ClosedChannelException
                || cause instanceof java.io.IOException && !(cause instanceof SSLException)) {
            return null;
        }
        if (cause instanceof io.netty.handler.ssl.NotSslRecordException) {
            return "not a TLS client";
        }
        String why = cause.getClass().getSimpleName() + ": " + cause.getMessage();
        // the OpenSSL engine's own message is a general one; the refusal of the client's
        // certificate (an unknown CA: the PKIX path not built) is its cause
        for (Throwable t = cause.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
            if (t instanceof java.security.cert.CertificateException && t.getMessage() != null
                    && !why.contains(t.getMessage())) {
                return why + " (" + t.getMessage() + ")";
            }
        }
        return why;
    }

    /** Adds the TLS handlers to a new connection's pipeline (after the connection limit). */
    void addTo(SocketChannel ch, Session session) {
        SslContext ctx = current();
        SslHandler ssl = ctx.newHandler(ch.alloc());
        if (provider != SslProvider.JDK) {
            // BoringSSL seals several records in one call: a whole chunk of a file slice per
            // wrap, not one 16 KiB record per wrap, each with its own buffer and promise
            ssl.setWrapDataSize(FileSliceChunker.CHUNK);
        }
        // BoringSSL refuses renegotiation itself; the JDK's engine needs the guard
        RenegotiationGuard guard = provider == SslProvider.JDK ? new RenegotiationGuard(listener) : null;
        ssl.handshakeFuture().addListener(f -> {
            if (f.isSuccess()) {
                if (guard != null) {
                    guard.handshakeDone();
                }
                java.util.List<java.security.cert.Certificate> peer;
                try {
                    peer = Arrays.asList(ssl.engine().getSession().getPeerCertificates());
                } catch (SSLPeerUnverifiedException e) {
                    peer = java.util.List.of();
                }
                if (!session.tlsHandshakeDone(peer)) {
                    LOG.info("Failed authentication with {} (no ssl.principal.mapping.rules rule applies to the"
                            + " client certificate) on listener {}", ch.remoteAddress(), listener);
                    ch.close();
                }
            } else {
                String why = handshakeFailure(f.cause());
                if (why == null) {
                    LOG.debug("{} went away before the TLS handshake completed, on listener {}", ch.remoteAddress(),
                            listener);
                } else {
                    LOG.info("Failed authentication with {} (TLS handshake failed: {}) on listener {}",
                            ch.remoteAddress(), io.brook.wire.protocol.LogSafe.escape(why), listener);
                }
            }
        });
        ChannelPipeline p = ch.pipeline();
        if (guard != null) {
            p.addLast("renegotiation", guard);
        }
        p.addLast("ssl", ssl);
        p.addLast("chunks", new ChunkedWriteHandler());
        p.addLast("file-slices", new FileSliceChunker());
    }

    private SslContext current() {
        TlsSettings s = settings;
        try {
            TlsSettings updated = source.get();
            if (updated != configured) {
                synchronized (this) {
                    if (updated != configured) {
                        context = build(updated, provider);
                        configured = updated;
                        settings = updated;
                        LOG.info("Listener {}: key or trust store changed by a dynamic update, new connections use it",
                                listener);
                    }
                }
                return context;
            }
            TlsSettings fresh = s.reloadIfChanged();
            if (fresh != null) {
                synchronized (this) {
                    if (settings == s) {
                        context = build(fresh, provider);
                        settings = fresh;
                        LOG.info("Listener {}: key or trust store changed, new connections use it", listener);
                    }
                }
            }
        } catch (Exception e) {
            String why = String.valueOf(e.getMessage());
            if (!why.equals(lastReloadFailure)) { // once per problem, not once per connection
                lastReloadFailure = why;
                LOG.warn("Listener {}: could not reload the key or trust store, keeping the previous one: {}", listener,
                        why);
            }
        }
        return context;
    }
}
