package io.brook.reliability;

import java.util.Arrays;
import java.util.Random;

/**
 * The byte-level damage both fuzzers' mutators do to a valid message: flipped bits, bytes set to
 * edge values, bytes inserted or deleted, two messages spliced, random bytes. Each returns the
 * damaged bytes (the argument itself or a new array). Deterministic for a given {@link Random};
 * not thread-safe.
 */
final class ByteMutations {
    private static final byte[] EDGES = {0, 1, (byte) 0x7F, (byte) 0x80, (byte) 0xFF, (byte) 0xFE};

    private final Random random;

    ByteMutations(Random random) {
        this.random = random;
    }

    byte[] bitFlips(byte[] b) {
        for (int i = 1 + random.nextInt(8); i > 0 && b.length > 0; i--) {
            b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
        }
        return b;
    }

    byte[] edgeBytes(byte[] b) {
        for (int i = 1 + random.nextInt(4); i > 0 && b.length > 0; i--) {
            b[random.nextInt(b.length)] = EDGES[random.nextInt(EDGES.length)];
        }
        return b;
    }

    byte[] insert(byte[] b) {
        byte[] extra = new byte[1 + random.nextInt(16)];
        random.nextBytes(extra);
        int at = random.nextInt(b.length + 1);
        byte[] out = new byte[b.length + extra.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(extra, 0, out, at, extra.length);
        System.arraycopy(b, at, out, at + extra.length, b.length - at);
        return out;
    }

    byte[] delete(byte[] b) {
        if (b.length == 0) {
            return b;
        }
        int at = random.nextInt(b.length);
        int n = Math.min(b.length - at, 1 + random.nextInt(16));
        byte[] out = new byte[b.length - n];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(b, at + n, out, at, b.length - at - n);
        return out;
    }

    /** The start of {@code head} up to a random point, then {@code tail} from a random point. */
    byte[] splice(byte[] head, byte[] tail) {
        int cutHead = random.nextInt(head.length + 1);
        int cutTail = random.nextInt(tail.length + 1);
        byte[] out = Arrays.copyOf(head, cutHead + tail.length - cutTail);
        System.arraycopy(tail, cutTail, out, cutHead, tail.length - cutTail);
        return out;
    }

    /** Up to {@code max - 1} random bytes. */
    byte[] junk(int max) {
        byte[] junk = new byte[random.nextInt(max)];
        random.nextBytes(junk);
        return junk;
    }
}
