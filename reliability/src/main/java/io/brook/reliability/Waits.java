package io.brook.reliability;

import io.brook.testkit.Await;
import java.time.Duration;
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
}
