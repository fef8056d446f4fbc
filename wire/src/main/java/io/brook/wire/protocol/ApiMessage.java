package io.brook.wire.protocol;

import java.nio.ByteBuffer;

/**
 * A request or response body of one Kafka API, able to encode itself at any version of
 * {@link ApiKey#oldestVersion()}..{@link ApiKey#latestVersion()}.
 *
 * <p>Encoding is two-pass: {@link #size(short)} first (to write the frame length), then
 * {@link #write(ProtocolWriter, short)} which emits exactly that many bytes. Messages are mutable
 * and not thread-safe; build one, encode it, let it go.
 */
public interface ApiMessage {

    ApiKey apiKey();

    /** Exact number of bytes {@link #write(ProtocolWriter, short)} produces at {@code version}. */
    int size(short version);

    /**
     * Writes the body at {@code version}.
     *
     * @throws IllegalArgumentException when the version is outside the codec's range, a field
     *     that cannot be dropped has a non-default value the version cannot express, or a
     *     non-nullable field is null
     */
    void write(ProtocolWriter out, short version);

    /**
     * Counts the error codes of a response at {@code version} as Kafka's {@code errorCounts()}
     * does (each {@code ErrorCode} field present at the version, at every level, once): returns
     * how many are NONE and tells {@code counter} of each other one. Requests have none.
     */
    default int countErrors(short version, ErrorCounter counter) {
        return 0;
    }

    /**
     * Raises a response's top-level {@code ThrottleTimeMs} to {@code ms} when it is lower (a
     * quota's throttle, whichever of several is longest, as Kafka answers): true when the
     * response has that field, false (nothing done) otherwise.
     */
    default boolean raiseThrottleTimeMs(int ms) {
        return false;
    }

    /**
     * Lowers a response's top-level {@code ThrottleTimeMs} by {@code ms}, not below 0 (the part of
     * a throttle that the client's connection already waits out): true when the response has
     * that field, false (nothing done) otherwise.
     */
    default boolean lowerThrottleTimeMs(int ms) {
        return false;
    }

    /** The encoded body: exactly {@code size(version)} bytes, flipped and ready to read. */
    default ByteBuffer toByteBuffer(short version) {
        ByteBuffer buf = ByteBuffer.allocate(size(version));
        write(new ByteBufferWriter(buf), version);
        if (buf.hasRemaining()) {
            throw new IllegalStateException(getClass().getSimpleName() + " v" + version + ": size() said "
                    + buf.capacity() + " bytes but write() produced " + buf.position());
        }
        return buf.flip();
    }
}
