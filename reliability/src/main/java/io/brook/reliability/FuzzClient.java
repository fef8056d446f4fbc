package io.brook.reliability;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One fuzzing connection at a time, on one thread: sends the valid prologue of its
 * {@link FuzzPlan}, then {@link FrameMutator} frames one by one,
 * reads and discards whatever comes back, and reconnects when the broker closes the connection,
 * after a frame that must end it, or after a random number of frames. Stops when the shared frame
 * budget is spent or the deadline passes. A write that cannot complete within
 * {@value #STALL_SECONDS} s (the broker stopped reading) is counted as a stall and the
 * connection dropped.
 */
final class FuzzClient implements Runnable {
    static final int STALL_SECONDS = 5;
    static final int ANSWER_WAIT_MS = 50;

    /** Counters shared by all fuzzing threads. */
    static final class Counters {
        final AtomicLong frames = new AtomicLong();
        final AtomicLong bytesSent = new AtomicLong();
        final AtomicLong bytesReceived = new AtomicLong();
        final AtomicLong connections = new AtomicLong();
        final AtomicLong closedByBroker = new AtomicLong();
        final AtomicLong connectFailures = new AtomicLong();
        final AtomicLong stalls = new AtomicLong();
        /** Frames after which the connection stayed open and silent for {@value FuzzClient#ANSWER_WAIT_MS} ms. */
        final AtomicLong unanswered = new AtomicLong();
    }

    private final int port;
    private final FuzzPlan plan;
    private final Random random;
    private final Random mutations;
    private final AtomicLong budget;
    private final long deadlineNanos;
    private final Counters counters;
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(64 * 1024);

    FuzzClient(int port, FuzzPlan plan, long seed, AtomicLong budget, long deadlineNanos, Counters counters) {
        this.port = port;
        this.plan = plan;
        this.random = new Random(seed);
        this.mutations = new Random(seed ^ 0x5DEECE66DL);
        this.budget = budget;
        this.deadlineNanos = deadlineNanos;
        this.counters = counters;
    }

    @Override
    public void run() {
        while (budget.get() > 0 && System.nanoTime() < deadlineNanos) {
            try (SocketChannel ch = SocketChannel.open(); Selector selector = Selector.open()) {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.connect(new InetSocketAddress("127.0.0.1", port));
                ch.configureBlocking(false);
                SelectionKey key = ch.register(selector, 0);
                counters.connections.incrementAndGet();
                session(ch, selector, key);
            } catch (IOException e) {
                counters.connectFailures.incrementAndGet();
                LockSupport.parkNanos(10_000_000L); // a broker that is down is not hammered
            }
        }
    }

    /**
     * Frames on one connection until it must end. After each frame it waits up to
     * {@value #ANSWER_WAIT_MS} ms for an answer or the connection's end, so that the broker has
     * dealt with a frame before the next one is sent and a connection the broker closed is
     * noticed (writes into it would count frames nobody read).
     */
    private void session(SocketChannel ch, Selector selector, SelectionKey key) throws IOException {
        FuzzPlan.Connection connection = plan.next(random);
        for (byte[] frame : connection.prologue()) {
            if (!send(ch, selector, key, new FrameMutator.Frame(frame, false, FrameMutator.Kind.VALID))) {
                return;
            }
        }
        FrameMutator mutator = new FrameMutator(connection.seeds(), mutations);
        int frames = 1 + random.nextInt(256);
        while (frames-- > 0 && System.nanoTime() < deadlineNanos) {
            if (!send(ch, selector, key, mutator.next())) {
                return;
            }
        }
    }

    /**
     * Sends one frame (taken from the shared budget) and waits for its answer; false when the
     * connection must end: the budget is spent, the frame ends it, or the broker closed or stopped
     * reading it.
     */
    private boolean send(SocketChannel ch, Selector selector, SelectionKey key, FrameMutator.Frame f) throws IOException {
        if (budget.getAndDecrement() <= 0) {
            return false;
        }
        try {
            if (!writeFully(ch, selector, key, ByteBuffer.wrap(f.bytes()))) {
                budget.incrementAndGet(); // not sent: another frame takes its place
                counters.stalls.incrementAndGet();
                return false;
            }
        } catch (IOException e) {
            budget.incrementAndGet();
            counters.closedByBroker.incrementAndGet();
            return false;
        }
        counters.frames.incrementAndGet();
        counters.bytesSent.addAndGet(f.bytes().length);
        return !f.closeAfter() && awaitAnswer(selector, key, ch);
    }

    /** Waits for bytes or the end of the connection; false once the broker closed it. */
    private boolean awaitAnswer(Selector selector, SelectionKey key, SocketChannel ch) throws IOException {
        key.interestOps(SelectionKey.OP_READ);
        selector.select(ANSWER_WAIT_MS);
        selector.selectedKeys().clear();
        key.interestOps(0);
        long before = counters.bytesReceived.get();
        boolean open = drain(ch);
        if (open && counters.bytesReceived.get() == before) {
            counters.unanswered.incrementAndGet();
        }
        return open;
    }

    private static boolean writeFully(SocketChannel ch, Selector selector, SelectionKey key, ByteBuffer buf)
            throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STALL_SECONDS);
        while (buf.hasRemaining()) {
            if (ch.write(buf) == 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                key.interestOps(SelectionKey.OP_WRITE);
                selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                selector.selectedKeys().clear();
                key.interestOps(0);
            }
        }
        return true;
    }

    /** Reads what is there without waiting; false once the broker closed the connection. */
    private boolean drain(SocketChannel ch) {
        try {
            while (true) {
                scratch.clear();
                int n = ch.read(scratch);
                if (n < 0) {
                    counters.closedByBroker.incrementAndGet();
                    return false;
                }
                if (n == 0) {
                    return true;
                }
                counters.bytesReceived.addAndGet(n);
            }
        } catch (IOException e) {
            counters.closedByBroker.incrementAndGet();
            return false;
        }
    }
}
