package io.brook.bench.runner;

/** What was read back differs from what was acknowledged: the run's figures cannot be trusted. */
final class VerificationException extends Exception {
    VerificationException(String message) {
        super(message);
    }
}
