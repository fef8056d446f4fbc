package io.brook.wire.oracle;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

import io.brook.wire.message.ApiMessages;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ProtocolDecodeException;
import io.brook.wire.protocol.RequestHeader;

/**
 * Decodes one request frame (header + body, without the int32 size prefix) the way the server
 * does, and measures what the decoding thread allocated meanwhile
 * ({@code com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes}).
 *
 * <p><b>The bound</b> is {@value #FIXED_BYTES} + {@value #BYTES_PER_INPUT_BYTE} x frame length.
 * A decoder may allocate in proportion to what it actually read, never in proportion to a length
 * it was told. Every decoded element (array entry, string, struct) consumes at least one input
 * byte and becomes a few small objects (a struct with its default lists and strings, a boxed
 * number, a list slot); the largest expansion measured on valid frames of every API version is
 * about 15 bytes per input byte, and {@code DecoderFuzzTest} fails if it ever exceeds half the
 * factor. The constant covers what does not scale with the input: the exception with its stack
 * trace and message (under 5 KiB measured), the header, a few wrappers.
 * A decoder that sizes a list or an array from an unchecked length exceeds the bound: a count of
 * 2^20 pre-sizes 4 MiB of list slots, while fuzzed frames are at most a few KiB (bound under
 * 100 KiB), and one that trusts a length near 2^31 dies with an OutOfMemoryError, reported too.
 *
 * <p>The first execution of a code path allocates for reasons unrelated to the input: classes are
 * loaded and invokedynamic call sites (string concatenation in error messages) are linked. So a
 * frame over the bound is decoded a second time and only the second, repeatable, figure counts.
 */
final class DecodingAllocation {

    static final long BYTES_PER_INPUT_BYTE = 64;
    static final long FIXED_BYTES = 16 * 1024;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** What happened to one frame. */
    record Outcome(long allocatedBytes, Throwable failure) {
        /** Null when the frame decoded or was rejected with a ProtocolDecodeException. */
        Throwable unexpected() {
            return failure instanceof ProtocolDecodeException ? null : failure;
        }
    }

    private DecodingAllocation() {
    }

    static long bound(int frameLength) {
        return FIXED_BYTES + BYTES_PER_INPUT_BYTE * frameLength;
    }

    /** Our decoder on {@code frame}. */
    static Outcome decode(byte[] frame) {
        return measure(frame, DecodingAllocation::decodeFrame);
    }

    /** Any decoder on {@code frame}; lets the tests show that the bound catches a bad one. */
    static Outcome measure(byte[] frame, Consumer<ByteBuffer> decoder) {
        Outcome first = measureOnce(frame, decoder);
        if (first.allocatedBytes() <= bound(frame.length) || first.unexpected() != null) {
            return first;
        }
        return measureOnce(frame, decoder);
    }

    private static Outcome measureOnce(byte[] frame, Consumer<ByteBuffer> decoder) {
        ByteBuffer buffer = ByteBuffer.wrap(frame);
        long before = THREADS.getCurrentThreadAllocatedBytes();
        Throwable failure = null;
        try {
            decoder.accept(buffer);
        } catch (Throwable t) { // OutOfMemoryError included: it is what an unchecked length produces
            failure = t;
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        return new Outcome(allocated, failure);
    }

    /** The server's path: an unknown key never reaches a body decoder. */
    static void decodeFrame(ByteBuffer buffer) {
        RequestHeader header = RequestHeader.read(buffer);
        ApiKey key = header.apiKey();
        if (key != null) {
            ApiMessages.readRequest(key, header.apiVersion(), buffer);
        }
    }
}
