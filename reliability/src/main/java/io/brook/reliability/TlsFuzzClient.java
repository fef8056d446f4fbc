package io.brook.reliability;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;
import org.apache.kafka.common.message.ApiVersionsRequestData;

/**
 * One TLS fuzzing connection at a time, on one thread, to one of the broker's TLS listeners
 * (picked per connection). Each connection is one of:
 * <ul>
 *   <li><b>raw</b>: damaged ClientHellos and other bytes ({@link TlsRecordMutator}) on a plain
 *       socket, a few per connection;
 *   <li><b>plaintext</b>: Kafka requests, whole and damaged ({@link FrameMutator}), sent in the
 *       clear to the TLS port;
 *   <li><b>half</b>: a real handshake stopped once the broker answered the ClientHello, then the
 *       connection dropped, or the client's next flight damaged, or junk in its place;
 *   <li><b>session</b>: a complete handshake (no certificate, a trusted one, or one the broker
 *       does not trust), then Kafka requests, whole and damaged, encrypted; now and then a
 *       damaged record written into the session, a renegotiation (TLS 1.2) or a close_notify
 *       followed by more requests;
 *   <li><b>idle renegotiation</b>: a TLS 1.2 session that sends one ApiVersions request, reads
 *       its answer and starts a renegotiation, which the broker must refuse.
 * </ul>
 * Every step takes one frame from the shared budget and waits up to
 * {@value FuzzClient#ANSWER_WAIT_MS} ms for an answer. Counts what {@link FuzzClient} counts,
 * and the TLS outcomes in {@link TlsCounters}.
 */
final class TlsFuzzClient implements Runnable {

    /** TLS outcomes, shared by all TLS fuzzing threads. */
    static final class TlsCounters {
        final AtomicLong handshakes = new AtomicLong();
        final AtomicLong handshakesRefused = new AtomicLong();
        /** First handshakes the broker neither answered nor refused within {@value TlsFuzzClient#HANDSHAKE_WAIT_MS} ms. */
        final AtomicLong handshakesUnanswered = new AtomicLong();
        /** Handshakes that took longer than {@value TlsFuzzClient#SLOW_HANDSHAKE_MS} ms, and the longest. */
        final AtomicLong slowHandshakes = new AtomicLong();
        final AtomicLong longestHandshakeNanos = new AtomicLong();
        /** The unanswered ones by the listener's port. */
        final Map<Integer, AtomicLong> handshakesUnansweredByPort = new ConcurrentHashMap<>();
        final AtomicLong renegotiationsTried = new AtomicLong();
        /** TLS 1.2 renegotiations the broker completed: it must refuse every one. */
        final AtomicLong renegotiationsCompleted = new AtomicLong();
        final AtomicReference<String> firstRenegotiation = new AtomicReference<>();
        /** Renegotiations neither refused nor answered within {@value TlsFuzzClient#HANDSHAKE_WAIT_MS} ms. */
        final AtomicLong renegotiationsUnanswered = new AtomicLong();
        /** The same on idle sessions (one request sent and answered first), and how many were tried. */
        final AtomicLong idleRenegotiationsUnanswered = new AtomicLong();
        final AtomicLong idleRenegotiationsTried = new AtomicLong();
        /** Runtime errors in the client's own engine; the first one's description. */
        final AtomicLong clientErrors = new AtomicLong();
        final AtomicReference<String> firstClientError = new AtomicReference<>();
    }

    /**
     * How long a handshake may wait for the broker: longer than the broker's own handshake
     * time-out (10 s), so that a broker that neither answers nor gives up shows.
     */
    static final int HANDSHAKE_WAIT_MS = 15_000;
    /** Handshakes slower than this are counted (not judged: the fuzzer and the broker share the cores). */
    static final long SLOW_HANDSHAKE_MS = 2_000;
    /** An ApiVersions v3 request: any established session answers it. */
    private static final byte[] API_VERSIONS = KafkaWire.frame(new ApiVersionsRequestData()
            .setClientSoftwareName("tls-fuzz").setClientSoftwareVersion("1"), (short) 3, 1);

    private final List<Integer> ports;
    private final TlsFuzzPlan plan;
    private final Random random;
    private final TlsRecordMutator flights;
    private final FrameMutator frames;
    private final AtomicLong budget;
    private final long deadlineNanos;
    private final FuzzClient.Counters counters;
    private final TlsCounters tls;

    TlsFuzzClient(List<Integer> ports, TlsFuzzPlan plan, long seed, AtomicLong budget, long deadlineNanos,
            FuzzClient.Counters counters, TlsCounters tls) {
        this.ports = List.copyOf(ports);
        this.plan = plan;
        this.random = new Random(seed);
        Random mutations = new Random(seed ^ 0x5DEECE66DL);
        this.flights = new TlsRecordMutator(plan.hellos(), mutations);
        this.frames = new FrameMutator(plan.requests(), mutations);
        this.budget = budget;
        this.deadlineNanos = deadlineNanos;
        this.counters = counters;
        this.tls = tls;
    }

    @Override
    public void run() {
        while (budget.get() > 0 && System.nanoTime() < deadlineNanos) {
            int port = ports.get(random.nextInt(ports.size()));
            try (SocketChannel ch = SocketChannel.open(); Selector selector = Selector.open()) {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.connect(new InetSocketAddress("127.0.0.1", port));
                ch.configureBlocking(false);
                SelectionKey key = ch.register(selector, 0);
                counters.connections.incrementAndGet();
                connection(ch, selector, key, port);
            } catch (TlsSession.Stalled e) {
                counters.stalls.incrementAndGet();
            } catch (SocketTimeoutException e) {
                tls.handshakesUnanswered.incrementAndGet();
                tls.handshakesUnansweredByPort.computeIfAbsent(port, p -> new AtomicLong()).incrementAndGet();
            } catch (ConnectException e) {
                counters.connectFailures.incrementAndGet();
                LockSupport.parkNanos(10_000_000L); // a broker that is down is not hammered
            } catch (IOException e) {
                counters.closedByBroker.incrementAndGet();
            } catch (RuntimeException e) {
                // the client's own engine gave up on what the broker sent: counted, not fatal to this thread
                tls.clientErrors.incrementAndGet();
                tls.firstClientError.compareAndSet(null, e.toString());
            }
        }
    }

    private void connection(SocketChannel ch, Selector selector, SelectionKey key, int port) throws IOException {
        int dice = random.nextInt(100);
        TlsSession s = dice < 38 ? TlsSession.raw(ch, selector, key)
                : new TlsSession(ch, selector, key, dice < 60 && dice >= 55 ? plan.tls12Engine(random, port)
                        : plan.engine(random, port));
        try {
            if (dice < 30) {
                raw(s, 1 + random.nextInt(4), () -> {
                    TlsRecordMutator.Flight f = flights.next();
                    return new Step(f.bytes(), f.closeAfter());
                });
            } else if (dice < 38) {
                raw(s, 1 + random.nextInt(8), () -> {
                    FrameMutator.Frame f = frames.next();
                    return new Step(f.bytes(), f.closeAfter());
                });
            } else if (dice < 55) {
                half(s);
            } else if (dice < 60) {
                idleRenegotiation(s, port);
            } else {
                session(s, port);
            }
        } finally {
            counters.bytesReceived.addAndGet(s.received());
        }
    }

    /** Bytes to send raw, and whether the connection ends after them. */
    private record Step(byte[] bytes, boolean closeAfter) {
    }

    /** Up to {@code count} steps of raw bytes on a plain socket, each followed by a wait for the answer. */
    private void raw(TlsSession wire, int count, Supplier<Step> steps) throws IOException {
        for (int i = count; i > 0; i--) {
            Step step = steps.get();
            if (!take()) {
                return;
            }
            sent(step.bytes().length);
            wire.sendRaw(step.bytes());
            if (!answered(wire.awaitRaw(FuzzClient.ANSWER_WAIT_MS)) || step.closeAfter()) {
                return;
            }
        }
    }

    private void half(TlsSession s) throws IOException {
        if (!take()) {
            return;
        }
        byte[] hello = s.nextFlight();
        sent(hello.length);
        s.sendRaw(random.nextBoolean() ? hello : TlsRecordMutator.fragments(hello, 1 + random.nextInt(8)));
        try {
            timedHandshake(s, true);
        } catch (SSLException | EOFException e) {
            tls.handshakesRefused.incrementAndGet();
            return;
        }
        switch (random.nextInt(4)) {
            case 0 -> {
                // dropped half-way
            }
            case 1 -> {
                byte[] next = s.nextFlight();
                sendAndAwait(s, next.length < TlsRecordMutator.RECORD_HEADER + 4 ? junk()
                        : new TlsRecordMutator(List.of(next), random).next().bytes());
            }
            case 2 -> sendAndAwait(s, junk());
            default -> answered(s.awaitRaw(FuzzClient.ANSWER_WAIT_MS));
        }
    }

    private void session(TlsSession s, int port) throws IOException {
        if (!established(s)) {
            return;
        }
        for (int i = 1 + random.nextInt(64); i > 0 && System.nanoTime() < deadlineNanos; i--) {
            int dice = random.nextInt(100);
            if (!take()) {
                return;
            }
            if (dice < 2) {
                sendAndAwait(s, junkRecord());
                return;
            } else if (dice < 4 && "TLSv1.2".equals(s.engine().getSession().getProtocol())) {
                renegotiate(s, port, false);
                return;
            } else if (dice < 6) {
                s.closeOutbound();
                sent(0);
                s.awaitAnswer(FuzzClient.ANSWER_WAIT_MS);
                return;
            }
            FrameMutator.Frame f = frames.next();
            sent(f.bytes().length);
            s.send(f.bytes());
            long before = s.received();
            boolean open = s.awaitAnswer(FuzzClient.ANSWER_WAIT_MS);
            if (!open) {
                counters.closedByBroker.incrementAndGet();
                return;
            }
            if (s.received() == before) {
                counters.unanswered.incrementAndGet();
            }
            if (f.closeAfter()) {
                return;
            }
        }
    }

    /** Takes a frame and completes a handshake, counting it; false when the budget is spent or the broker refused. */
    private boolean established(TlsSession s) throws IOException {
        if (!take()) {
            return false;
        }
        try {
            timedHandshake(s, false);
        } catch (SSLException | EOFException e) {
            tls.handshakesRefused.incrementAndGet();
            return false;
        }
        tls.handshakes.incrementAndGet();
        return true;
    }

    private void timedHandshake(TlsSession s, boolean untilWrap) throws IOException {
        long start = System.nanoTime();
        try {
            s.handshake(HANDSHAKE_WAIT_MS, untilWrap);
        } finally {
            long took = System.nanoTime() - start;
            tls.longestHandshakeNanos.accumulateAndGet(took, Math::max);
            if (took > TimeUnit.MILLISECONDS.toNanos(SLOW_HANDSHAKE_MS)) {
                tls.slowHandshakes.incrementAndGet();
            }
        }
    }

    /**
     * A TLS 1.2 session that sends one ApiVersions request and reads its answer, then starts a
     * renegotiation: nothing of the session is left in the broker, so it must refuse at once.
     */
    private void idleRenegotiation(TlsSession s, int port) throws IOException {
        if (!established(s)) {
            return;
        }
        sent(API_VERSIONS.length);
        s.send(API_VERSIONS);
        long before = s.received();
        if (s.awaitAnswer(HANDSHAKE_WAIT_MS) && s.received() > before) {
            renegotiate(s, port, true);
        }
    }

    /**
     * Starts a TLS 1.2 renegotiation. The broker must end the connection: if the handshake seems
     * to end instead and the connection still answers a request, the renegotiation is counted as
     * completed (and the first one described). One that gets neither a refusal nor an answer is
     * counted apart: on an {@code idle} session that is a fault; on a session that sent requests
     * before, the broker may still be working on one (a long poll, a join) and reads nothing more
     * of the connection until it answered.
     */
    private void renegotiate(TlsSession s, int port, boolean idle) throws IOException {
        tls.renegotiationsTried.incrementAndGet();
        if (idle) {
            tls.idleRenegotiationsTried.incrementAndGet();
        }
        sent(0);
        try {
            s.engine().beginHandshake();
            s.handshake(HANDSHAKE_WAIT_MS, false);
            s.send(API_VERSIONS);
            long before = s.received();
            if (s.awaitAnswer(HANDSHAKE_WAIT_MS) && s.received() > before) {
                tls.renegotiationsCompleted.incrementAndGet();
                tls.firstRenegotiation.compareAndSet(null, "port " + port + ", " + s.engine().getSession().getProtocol()
                        + " " + s.engine().getSession().getCipherSuite() + ", handshake status "
                        + s.engine().getHandshakeStatus());
            } else {
                counters.closedByBroker.incrementAndGet();
            }
        } catch (SSLException | EOFException e) {
            counters.closedByBroker.incrementAndGet(); // refused, as it must be
        } catch (SocketTimeoutException e) {
            (idle ? tls.idleRenegotiationsUnanswered : tls.renegotiationsUnanswered).incrementAndGet();
        }
    }

    private void sendAndAwait(TlsSession s, byte[] bytes) throws IOException {
        sent(bytes.length);
        s.sendRaw(bytes);
        answered(s.awaitRaw(FuzzClient.ANSWER_WAIT_MS));
    }

    /** A record of application data or of a random content type whose bytes no key made. */
    private byte[] junkRecord() {
        byte[] body = new byte[1 + random.nextInt(256)];
        random.nextBytes(body);
        byte type = random.nextInt(3) == 0 ? (byte) random.nextInt(256) : (byte) 23;
        return ByteBuffer.allocate(TlsRecordMutator.RECORD_HEADER + body.length).put(type).putShort((short) 0x0303)
                .putShort((short) body.length).put(body).array();
    }

    private byte[] junk() {
        byte[] b = new byte[1 + random.nextInt(512)];
        random.nextBytes(b);
        return b;
    }

    /** Takes one frame from the budget; false when it is spent. */
    private boolean take() {
        if (budget.getAndDecrement() <= 0) {
            return false;
        }
        counters.frames.incrementAndGet();
        return true;
    }

    private void sent(int bytes) {
        counters.bytesSent.addAndGet(bytes);
    }

    /** Counts an answer wait's outcome ({@link TlsSession#awaitRaw}); false once the broker closed the connection. */
    private boolean answered(int bytes) {
        if (bytes < 0) {
            counters.closedByBroker.incrementAndGet();
            return false;
        }
        if (bytes == 0) {
            counters.unanswered.incrementAndGet();
        }
        return true;
    }
}
