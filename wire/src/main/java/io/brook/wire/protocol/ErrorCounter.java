package io.brook.wire.protocol;

/**
 * Told of each error code other than NONE found in a response by
 * {@link ApiMessage#countErrors(short, ErrorCounter)}.
 */
@FunctionalInterface
public interface ErrorCounter {

    /** One more occurrence of {@code code} (never 0). */
    void error(short code);
}
