package io.brook.bench.runner;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One {@code bench/run} at a time per checkout: two would delete each other's broker data (the
 * brokers' directories under the shared work directory are removed after each workload) and
 * compete for the cores they both measure. The lock is the operating system's on a file in the
 * work directory, so a run that dies leaves nothing to clean up.
 */
final class RunLock {
    /** Held for the life of the runner's JVM; the lock goes with the process. */
    private static FileLock held;

    private RunLock() {
    }

    /**
     * Whether a runner may go on: the one {@code bench/run} starts takes the lock of {@code work};
     * a {@code child} (the runner it starts for each broker, {@code --single}) runs under its
     * parent's lock, which it could not take.
     */
    static boolean mayRun(boolean child, Path work) throws IOException {
        return child || acquire(work);
    }

    /** Takes the lock of {@code work} (one work directory per runner), or returns false when another process holds it. */
    static synchronized boolean acquire(Path work) throws IOException {
        if (held != null) {
            return true;
        }
        Files.createDirectories(work);
        FileChannel channel = FileChannel.open(work.resolve(".bench-run.lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock();
        if (lock == null) {
            channel.close();
            return false;
        }
        held = lock;
        return true;
    }
}
