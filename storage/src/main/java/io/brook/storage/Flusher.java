package io.brook.storage;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The group-commit thread: one thread forces the files of every log that asked for it and then
 * completes that log's durability waiters. Appenders never wait for a disk: an append marks its
 * log dirty ({@link #request}) and returns; the flusher captures the log end, calls {@code force}
 * once and thereby makes every append before the capture durable at once. While it forces one
 * log, appends to it and to other logs pile up and are covered by the next round, so the number
 * of fsyncs adapts to the load instead of growing with it.
 *
 * <p>Threading: {@link #request} is called by any thread; a log is queued at most once at a time
 * (its {@code flushQueued} flag), and the flag is cleared before the log is flushed so that an
 * append racing with the flush queues it again rather than being missed.
 */
final class Flusher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Flusher.class);

    private final Queue<Log> dirty = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean running = true;

    Flusher(String name) {
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    void request(Log log) {
        if (log.flushQueued.compareAndSet(false, true)) {
            dirty.add(log);
            LockSupport.unpark(thread);
        }
    }

    private void run() {
        while (running) {
            Log log = dirty.poll();
            if (log == null) {
                LockSupport.park(this);
                continue;
            }
            log.flushQueued.set(false);
            try {
                log.flush();
            } catch (RuntimeException e) {
                LOG.error("flush of {} failed", log, e);
            }
        }
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Log log;
        while ((log = dirty.poll()) != null) {
            log.flushQueued.set(false);
            log.flush();
        }
    }
}
