package io.brook.reliability;

import io.brook.testkit.Await;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Waits whose timeout is an outcome to report rather than an error: {@link Await} with its
 * deadline, answering whether the condition came true in time.
 */
final class Waits {
    private Waits() {
    }

    /** True once {@code condition} holds, false if it still does not after {@code timeout}. */
    static boolean holds(Duration timeout, BooleanSupplier condition) {
        try {
            Await.until("a condition", timeout, condition);
            return true;
        } catch (AssertionError e) {
            return false;
        }
    }

    /**
     * Waits a random [{@code minMs}, {@code maxMs}] and until {@code ledger} acknowledged a record
     * it had not when called; false if no new record was acknowledged within 60 s past the delay
     * (the load stalled).
     */
    static boolean randomDelayAndANewAck(Random random, int minMs, int maxMs, AckLedger ledger) {
        long ackedBefore = ledger.ackedCount();
        long delayNanos = TimeUnit.MILLISECONDS.toNanos(minMs + random.nextInt(maxMs - minMs + 1));
        long from = System.nanoTime();
        return holds(Duration.ofNanos(delayNanos).plusSeconds(60), () ->
                System.nanoTime() - from >= delayNanos && ledger.ackedCount() > ackedBefore);
    }
}
