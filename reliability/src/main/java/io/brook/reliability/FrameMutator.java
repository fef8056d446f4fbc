package io.brook.reliability;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Makes the fuzzer's frames from valid seed frames: unchanged ones (so that connections live on),
 * flipped bits, bytes set to edge values, bytes inserted or deleted (with the size prefix
 * adjusted, so that the broker parses the damaged request), size prefixes that lie, random API
 * keys and versions, varints and compact lengths blown up, spliced requests, random bytes and
 * frames cut short. Deterministic for a given seed. Not thread-safe: one per connection thread.
 */
final class FrameMutator {

    /** A frame to send; {@code closeAfter} when the connection must be closed after it (it is cut short or claims more bytes than follow). */
    record Frame(byte[] bytes, boolean closeAfter, Kind kind) {
    }

    enum Kind { VALID, BIT_FLIP, EDGE_BYTES, INSERT, DELETE, LYING_SIZE, API_KEY_VERSION, VARINT, SPLICE, RANDOM, TRUNCATED }

    private static final int[] SIZES = {0, 1, 2, 3, 7, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 104_857_601,
        100 << 20};

    private final List<byte[]> seeds;
    private final Random random;
    private final ByteMutations bytes;

    FrameMutator(List<byte[]> seeds, Random random) {
        this.seeds = seeds;
        this.random = random;
        this.bytes = new ByteMutations(random);
    }

    Frame next() {
        byte[] seed = seeds.get(random.nextInt(seeds.size()));
        int dice = random.nextInt(100);
        if (dice < 10) {
            return new Frame(seed, false, Kind.VALID);
        } else if (dice < 25) {
            return framed(bytes.bitFlips(body(seed)), Kind.BIT_FLIP);
        } else if (dice < 35) {
            return framed(bytes.edgeBytes(body(seed)), Kind.EDGE_BYTES);
        } else if (dice < 45) {
            return framed(bytes.insert(body(seed)), Kind.INSERT);
        } else if (dice < 55) {
            return framed(bytes.delete(body(seed)), Kind.DELETE);
        } else if (dice < 65) {
            return lyingSize(seed);
        } else if (dice < 75) {
            return framed(apiKeyVersion(body(seed)), Kind.API_KEY_VERSION);
        } else if (dice < 82) {
            return framed(varint(body(seed)), Kind.VARINT);
        } else if (dice < 87) {
            return framed(bytes.splice(body(seed), body(seeds.get(random.nextInt(seeds.size())))), Kind.SPLICE);
        } else if (dice < 93) {
            return framed(bytes.junk(512), Kind.RANDOM);
        }
        return new Frame(Arrays.copyOf(seed, 1 + random.nextInt(seed.length - 1)), true, Kind.TRUNCATED);
    }

    private static byte[] body(byte[] frame) {
        return Arrays.copyOfRange(frame, 4, frame.length);
    }

    private static Frame framed(byte[] body, Kind kind) {
        return new Frame(ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).array(), false, kind);
    }

    /**
     * The body unchanged behind a size that is not its length. A size larger than what follows
     * leaves the broker waiting for the rest: the connection is closed after it.
     */
    private Frame lyingSize(byte[] seed) {
        int actual = seed.length - 4;
        int size = random.nextBoolean() ? SIZES[random.nextInt(SIZES.length)] : actual + random.nextInt(33) - 16;
        byte[] out = seed.clone();
        ByteBuffer.wrap(out).putInt(size);
        return new Frame(out, size < 0 || size > actual, Kind.LYING_SIZE);
    }

    /** Header bytes 0–3 are the API key and version; a shorter body (a raw SASL token) is sent as it is. */
    private byte[] apiKeyVersion(byte[] b) {
        if (b.length < 4) {
            return b;
        }
        ByteBuffer buf = ByteBuffer.wrap(b);
        int which = random.nextInt(3);
        if (which != 1) {
            buf.putShort(0, (short) (random.nextBoolean() ? random.nextInt(100) : random.nextInt()));
        }
        if (which != 0) {
            buf.putShort(2, (short) (random.nextBoolean() ? random.nextInt(20) : random.nextInt()));
        }
        return b;
    }

    /** A run of continuation bytes: a varint or compact length that never ends or is huge. */
    private byte[] varint(byte[] b) {
        if (b.length == 0) {
            return b;
        }
        int at = random.nextInt(b.length);
        byte fill = random.nextBoolean() ? (byte) 0xFF : (byte) 0x80;
        for (int i = at; i < Math.min(b.length, at + 1 + random.nextInt(6)); i++) {
            b[i] = fill;
        }
        return b;
    }
}
