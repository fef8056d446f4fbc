package io.brook.server.network;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The I/O pool ({@code num.io.threads} daemon threads named {@code brook-io-*}) on which handlers
 * that may block run: each connection's requests one at a time, in order, through a
 * {@link SerialExecutor}; different connections in parallel. Its queue is unbounded: what bounds
 * it is each connection's in-flight limit, above which the connection stops reading. Idle threads
 * end after a minute.
 */
public final class IoPool {

    private IoPool() {
    }

    public static ExecutorService create(int threads) {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "brook-io-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
