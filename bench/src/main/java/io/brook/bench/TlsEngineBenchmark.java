package io.brook.bench;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.ReferenceCountUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * The two TLS engines the broker can use ({@code brook.ssl.engine}), on the work a Fetch answer
 * and a Produce request give them: one 16 KiB record (TLS's largest) per operation.
 *
 * <ul>
 * <li>{@code wrap}: the broker's engine encrypts 16 KiB from a direct buffer (where records read
 *     from a segment sit) into the kind of buffer Netty's {@code SslHandler} gives that engine
 *     (direct for OpenSSL, heap for the JDK's), and, for a heap result, the copy into direct
 *     memory that the transport makes before the socket write: the whole cost of a fetched
 *     record's encryption on the broker;
 * <li>{@code wrapUnwrap}: a client engine (always the JDK's, as in the Java clients) encrypts
 *     16 KiB and the broker's engine decrypts it, as for produced records; the broker's share
 *     is this less the client's wrap.
 * </ul>
 *
 * MB/s = ops/s × 16,384 / 1e6. The key is an EC P-256 key made by {@code keytool} at set-up;
 * the session is {@code protocol} with each engine's preferred cipher suite, printed at set-up
 * (TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 for both).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class TlsEngineBenchmark {
    private static final int RECORD = 16 * 1024;
    private static final String PASSWORD = "bench-secret";

    @Param({"openssl", "jdk"})
    public String engine;

    /**
     * TLSv1.2 only: in this in-memory pair the JDK's TLSv1.3 engine stops taking data after the
     * handshake (wrap returns OK having consumed and produced nothing), which a socket-driven
     * engine does not; the engines' TLSv1.3 figures come from {@code bench/run --tls-engines}.
     */
    @Param({"TLSv1.2"})
    public String protocol;

    private SslContext serverContext;
    private SslContext clientContext;
    private SSLEngine server;
    private SSLEngine client;
    private ByteBuffer plain;
    private ByteBuffer net;
    private ByteBuffer socketCopy;
    private ByteBuffer clientNet;
    private ByteBuffer decrypted;
    private Path dir;

    @Setup
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("tls-bench");
        SslProvider provider = engine.equals("openssl") ? SslProvider.OPENSSL : SslProvider.JDK;
        serverContext = SslContextBuilder.forServer(keyManagers(dir)).sslProvider(provider)
                .protocols(protocol).build();
        clientContext = SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                .trustManager(InsecureTrustManagerFactory.INSTANCE).protocols(protocol).build();
        server = serverContext.newEngine(ByteBufAllocator.DEFAULT);
        client = clientContext.newEngine(ByteBufAllocator.DEFAULT, "localhost", 9093);
        handshake();
        int packet = Math.max(server.getSession().getPacketBufferSize(), client.getSession().getPacketBufferSize());
        plain = ByteBuffer.allocateDirect(RECORD);
        for (int i = 0; i < RECORD; i++) {
            plain.put(i, (byte) (i * 31));
        }
        // what SslHandler allocates for each engine's output
        net = provider == SslProvider.OPENSSL ? ByteBuffer.allocateDirect(packet) : ByteBuffer.allocate(packet);
        socketCopy = ByteBuffer.allocateDirect(packet);
        clientNet = ByteBuffer.allocate(packet);
        // (OpenSSL asks for room for a whole record beyond what it holds: more than 16 KiB)
        decrypted = ByteBuffer.allocateDirect(4 * RECORD);
        System.out.println("\n" + engine + " " + protocol + ": " + server.getSession().getCipherSuite());
    }

    @TearDown
    public void tearDown() throws IOException {
        ReferenceCountUtil.release(server);
        ReferenceCountUtil.release(client);
        ReferenceCountUtil.release(serverContext);
        ReferenceCountUtil.release(clientContext);
        for (String f : List.of("bench.p12")) {
            Files.deleteIfExists(dir.resolve(f));
        }
        Files.deleteIfExists(dir);
    }

    @Benchmark
    public int wrap() throws SSLException {
        plain.clear();
        wrapRecord(server, plain, net);
        net.flip();
        if (!net.isDirect()) {
            socketCopy.clear();
            socketCopy.put(net);
            return socketCopy.position();
        }
        return net.remaining();
    }

    @Benchmark
    public int wrapUnwrap() throws SSLException {
        plain.clear();
        wrapRecord(client, plain, clientNet);
        clientNet.flip();
        decrypted.clear();
        SSLEngineResult r = server.unwrap(clientNet, decrypted);
        if (r.getStatus() != SSLEngineResult.Status.OK || decrypted.position() != RECORD) {
            throw new IllegalStateException("unwrap: " + r + ", " + decrypted.position() + " bytes");
        }
        return decrypted.position();
    }

    /**
     * Encrypts all of {@code in} as one record into {@code out}; a wrap that only produced a
     * post-handshake message (a TLSv1.3 session ticket, sent with the first data) is repeated.
     */
    private static void wrapRecord(SSLEngine e, ByteBuffer in, ByteBuffer out) throws SSLException {
        SSLEngineResult last = null;
        for (int attempt = 0; attempt < 4; attempt++) {
            out.clear();
            SSLEngineResult r = e.wrap(in, out);
            last = r;
            if (r.getStatus() != SSLEngineResult.Status.OK) {
                throw new IllegalStateException("wrap: " + r);
            }
            if (r.bytesConsumed() == RECORD) {
                return;
            }
        }
        throw new IllegalStateException("wrap did not take the whole record in four attempts: " + last + ", consumed " + last.bytesConsumed() + ", produced " + last.bytesProduced());
    }

    /** Runs the handshake in memory, and carries what follows it (TLSv1.3's session tickets) over too. */
    private void handshake() throws SSLException {
        ByteBuffer empty = ByteBuffer.allocate(0);
        ByteBuffer toServer = ByteBuffer.allocateDirect(1 << 17);
        ByteBuffer toClient = ByteBuffer.allocateDirect(1 << 17);
        ByteBuffer sink = ByteBuffer.allocateDirect(1 << 17);
        client.beginHandshake();
        server.beginHandshake();
        for (int round = 0; round < 200; round++) {
            boolean progress = client.wrap(empty, toServer).bytesProduced() > 0;
            runTasks(client);
            toServer.flip();
            progress |= server.unwrap(toServer, sink).bytesConsumed() > 0;
            runTasks(server);
            toServer.compact();
            progress |= server.wrap(empty, toClient).bytesProduced() > 0;
            runTasks(server);
            toClient.flip();
            progress |= client.unwrap(toClient, sink).bytesConsumed() > 0;
            runTasks(client);
            toClient.compact();
            sink.clear();
            if (!progress && done(client) && done(server) && toServer.position() == 0 && toClient.position() == 0) {
                return;
            }
        }
        throw new IllegalStateException("no handshake: client " + client.getHandshakeStatus() + ", server "
                + server.getHandshakeStatus());
    }

    private static boolean done(SSLEngine e) {
        SSLEngineResult.HandshakeStatus s = e.getHandshakeStatus();
        return s == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING || s == SSLEngineResult.HandshakeStatus.FINISHED;
    }

    private static void runTasks(SSLEngine e) {
        Runnable task;
        while ((task = e.getDelegatedTask()) != null) {
            task.run();
        }
    }

    private static KeyManagerFactory keyManagers(Path dir) throws IOException, InterruptedException,
            GeneralSecurityException {
        Path ks = dir.resolve("bench.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process p = new ProcessBuilder(keytool, "-genkeypair", "-alias", "bench", "-keyalg", "EC", "-groupname",
                "secp256r1", "-dname", "CN=localhost", "-validity", "2", "-keystore", ks.toString(), "-storetype",
                "PKCS12", "-storepass", PASSWORD, "-keypass", PASSWORD).redirectErrorStream(true).start();
        p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
        if (p.waitFor() != 0) {
            throw new IOException("keytool failed: " + p.exitValue());
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(ks)) {
            store.load(in, PASSWORD.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, PASSWORD.toCharArray());
        return kmf;
    }
}
