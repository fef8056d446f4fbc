package io.brook.testkit;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition with a deadline; tests never sleep a fixed time to synchronise.
 *
 * <p>Between checks the waiting thread parks for a millisecond, so that on a small machine (two
 * cores) it leaves the CPU to the thread it is waiting for instead of spinning against it.
 */
public final class Await {

    /** How long {@link #until(String, BooleanSupplier)} waits before it fails the test. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    private static final long PAUSE_NANOS = 1_000_000L;

    private Await() {
    }

    /** Returns once {@code condition} holds; fails with {@code what} after {@link #DEFAULT_TIMEOUT}. */
    public static void until(String what, BooleanSupplier condition) {
        until(what, DEFAULT_TIMEOUT, condition);
    }

    /** Returns once {@code condition} holds; fails with {@code what} after {@code timeout}. */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Timed out after " + timeout + " waiting for " + what);
            }
            LockSupport.parkNanos(PAUSE_NANOS);
        }
    }
}
