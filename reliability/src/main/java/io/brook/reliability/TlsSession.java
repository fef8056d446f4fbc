package io.brook.reliability;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * The client side of one TLS connection for the TLS fuzzer: a JDK {@link SSLEngine} over a
 * non-blocking {@link SocketChannel}, driven step by step so that the fuzzer can stop half-way
 * through a handshake, send damaged bytes in place of the engine's, or write raw bytes into an
 * established session. Every wait has a deadline; a write the broker does not take within
 * {@link FuzzClient#STALL_SECONDS} s throws {@link Stalled}. Without an engine ({@link #raw}) it
 * sends and reads raw bytes only. Not thread-safe.
 */
final class TlsSession {

    /** The broker stopped reading the connection. */
    static final class Stalled extends IOException {
        private static final long serialVersionUID = 1L;

        Stalled() {
            super("the broker took no bytes for " + FuzzClient.STALL_SECONDS + " s");
        }
    }

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final SocketChannel channel;
    private final Selector selector;
    private final SelectionKey key;
    private final SSLEngine engine;
    private ByteBuffer netIn;
    private ByteBuffer netOut;
    private ByteBuffer appIn;
    private long received;

    TlsSession(SocketChannel channel, Selector selector, SelectionKey key, SSLEngine engine) {
        this.channel = channel;
        this.selector = selector;
        this.key = key;
        this.engine = engine;
        int packet = engine == null ? 32 * 1024 : engine.getSession().getPacketBufferSize();
        this.netIn = ByteBuffer.allocate(2 * packet);
        this.netOut = ByteBuffer.allocate(2 * packet);
        this.appIn = ByteBuffer.allocate(engine == null ? 0 : 2 * engine.getSession().getApplicationBufferSize());
    }

    /** A connection without TLS on the client's side, for raw bytes ({@link #sendRaw}, {@link #awaitRaw}). */
    static TlsSession raw(SocketChannel channel, Selector selector, SelectionKey key) {
        return new TlsSession(channel, selector, key, null);
    }

    /** The ClientHello a new client {@code engine} sends, made without a connection. */
    static byte[] clientHello(SSLEngine engine) throws IOException {
        return new TlsSession(null, null, null, engine).nextFlight();
    }

    SSLEngine engine() {
        return engine;
    }

    /** Bytes the broker sent on this connection so far. */
    long received() {
        return received;
    }

    /** The bytes the engine wants to send next in its handshake (its ClientHello first), not sent. */
    byte[] nextFlight() throws IOException {
        if (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING) {
            engine.beginHandshake();
        }
        netOut.clear();
        while (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
            SSLEngineResult r = engine.wrap(EMPTY, netOut);
            if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                netOut = grow(netOut);
            } else if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                break;
            }
            runTasks();
        }
        netOut.flip();
        byte[] out = new byte[netOut.remaining()];
        netOut.get(out);
        return out;
    }

    /**
     * Drives the handshake to its end (or to the point where the engine wants to send, when
     * {@code untilWrap}), reading the broker's flights with {@code waitMillis} as the deadline;
     * {@link SocketTimeoutException} when the broker's answer does not come by then.
     */
    void handshake(long waitMillis, boolean untilWrap) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        if (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING) {
            engine.beginHandshake();
        }
        while (true) {
            switch (engine.getHandshakeStatus()) {
                case NEED_WRAP -> {
                    if (untilWrap) {
                        return;
                    }
                    sendRaw(nextFlight());
                }
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> unwrapOnce(deadline);
                case NEED_TASK -> runTasks();
                default -> {
                    return;
                }
            }
            if (engine.isInboundDone() || engine.isOutboundDone()) {
                throw new EOFException("the TLS session ended during the handshake");
            }
        }
    }

    /** Encrypts and sends application bytes. */
    void send(byte[] app) throws IOException {
        ByteBuffer src = ByteBuffer.wrap(app);
        do {
            netOut.clear();
            SSLEngineResult r = engine.wrap(src, netOut);
            if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                netOut = grow(netOut);
                continue;
            }
            if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                throw new EOFException("the TLS session is closed");
            }
            netOut.flip();
            writeFully(netOut);
        } while (src.hasRemaining());
    }

    /** Sends bytes as they are, past the engine. */
    void sendRaw(byte[] bytes) throws IOException {
        writeFully(ByteBuffer.wrap(bytes));
    }

    /** Sends the engine's close_notify alert (the connection stays open for the broker's answer). */
    void closeOutbound() throws IOException {
        engine.closeOutbound();
        netOut.clear();
        while (!engine.isOutboundDone()) {
            SSLEngineResult r = engine.wrap(EMPTY, netOut);
            if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                netOut = grow(netOut);
            } else if (r.bytesProduced() == 0) {
                break;
            }
        }
        netOut.flip();
        writeFully(netOut);
    }

    /**
     * Waits up to {@code waitMillis} for bytes from the broker and decrypts what came (application
     * data is discarded); false once the broker closed the connection or ended the session.
     */
    boolean awaitAnswer(long waitMillis) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        try {
            int n = read(deadline);
            if (n < 0) {
                return false;
            }
            while (netIn.position() > 0) {
                netIn.flip();
                appIn.clear();
                SSLEngineResult r = engine.unwrap(netIn, appIn);
                netIn.compact();
                runTasks();
                if (r.getStatus() == SSLEngineResult.Status.CLOSED || engine.isInboundDone()) {
                    return false;
                }
                if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) {
                    if (netIn.position() == netIn.capacity()) {
                        netIn = grow(netIn);
                    }
                    break;
                }
                if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                    appIn = grow(appIn);
                } else if (r.bytesConsumed() == 0) {
                    break; // the engine wants to send first (a handshake message)
                }
            }
            return true;
        } catch (SSLException e) {
            return false; // the broker's bytes made no sense to the engine, or it sent an alert
        }
    }

    /**
     * Waits up to {@code waitMillis} for bytes from the broker and discards them: how many came
     * (0 for none), or -1 once the broker closed the connection.
     */
    int awaitRaw(long waitMillis) throws IOException {
        netIn.clear();
        int n = read(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis));
        netIn.clear();
        return n;
    }

    private void unwrapOnce(long deadline) throws IOException {
        netIn.flip();
        SSLEngineResult r = engine.unwrap(netIn, appIn);
        netIn.compact();
        switch (r.getStatus()) {
            case BUFFER_UNDERFLOW -> {
                if (netIn.position() == netIn.capacity()) {
                    netIn = grow(netIn);
                }
                int n = read(deadline);
                if (n < 0) {
                    throw new EOFException("the broker closed the connection during the handshake");
                } else if (n == 0) {
                    throw new SocketTimeoutException("no answer from the broker during the handshake");
                }
            }
            case BUFFER_OVERFLOW -> appIn = grow(appIn);
            case CLOSED -> throw new EOFException("the TLS session ended during the handshake");
            default -> appIn.clear();
        }
        runTasks();
    }

    /** Reads what comes before the deadline: the count (0 when nothing came), or -1 at the end. */
    private int read(long deadline) throws IOException {
        int total = 0;
        while (true) {
            int n = channel.read(netIn);
            if (n < 0) {
                return total > 0 ? total : -1;
            }
            if (n > 0) {
                total += n;
                received += n;
                continue;
            }
            long left = deadline - System.nanoTime();
            if (total > 0 || left <= 0 || !netIn.hasRemaining()) {
                return total;
            }
            key.interestOps(SelectionKey.OP_READ);
            selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            selector.selectedKeys().clear();
            key.interestOps(0);
        }
    }

    private void writeFully(ByteBuffer buf) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(FuzzClient.STALL_SECONDS);
        while (buf.hasRemaining()) {
            if (channel.write(buf) == 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new Stalled();
                }
                key.interestOps(SelectionKey.OP_WRITE);
                selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                selector.selectedKeys().clear();
                key.interestOps(0);
            }
        }
    }

    private void runTasks() {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
            task.run();
        }
    }

    private static ByteBuffer grow(ByteBuffer b) {
        ByteBuffer bigger = ByteBuffer.allocate(2 * b.capacity());
        b.flip();
        return bigger.put(b);
    }
}
