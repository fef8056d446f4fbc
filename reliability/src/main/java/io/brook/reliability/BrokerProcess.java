package io.brook.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A started broker process. {@link #kill()} is {@code kill -9}; {@link #stop} is SIGTERM (the
 * broker drains, flushes and writes its clean-shutdown marker), then SIGKILL if it does not exit
 * in time. Every process still alive when this JVM exits is killed by a shutdown hook, so that no
 * scenario leaves a broker behind, also when it fails or the runner is interrupted.
 */
final class BrokerProcess implements AutoCloseable {
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(BrokerProcess::killTree),
                "kill-brokers"));
    }

    private final Process process;
    private final int port;
    private final long startNanos;
    private final Path log;

    BrokerProcess(Process process, int port, long startNanos, Path log) {
        this.process = process;
        this.port = port;
        this.startNanos = startNanos;
        this.log = log;
        LIVE.add(process);
    }

    long pid() {
        return process.pid();
    }

    int port() {
        return port;
    }

    String bootstrap() {
        return "127.0.0.1:" + port;
    }

    /** {@link System#nanoTime()} just before the process was started. */
    long startNanos() {
        return startNanos;
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Exit status, or -1 while it runs. */
    int exitValue() {
        return process.isAlive() ? -1 : process.exitValue();
    }

    /** SIGKILL, and waits until the process is gone (at most 30 s). */
    void kill() throws InterruptedException {
        killTree(process);
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("broker " + pid() + " still alive 30 s after SIGKILL");
        }
        LIVE.remove(process);
    }

    /** SIGTERM; SIGKILL after {@code graceSeconds}. Returns whether it stopped by itself. */
    boolean stop(int graceSeconds) throws InterruptedException {
        if (!process.isAlive()) {
            LIVE.remove(process);
            return true;
        }
        process.destroy();
        boolean clean = process.waitFor(graceSeconds, TimeUnit.SECONDS);
        if (!clean) {
            kill();
        }
        LIVE.remove(process);
        return clean;
    }

    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                kill();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            LIVE.remove(process);
        }
    }

    /** The last {@code lines} lines of the broker's output, for failure messages. */
    String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    Path log() {
        return log;
    }

    private static void killTree(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly(); // SIGKILL on Linux
    }
}
