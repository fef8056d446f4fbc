package io.brook.wire.record;

/** Zig-zag varint and varlong encoding of the record format (writing side). */
final class Varints {
    private Varints() {
    }

    static int sizeOfVarint(int value) {
        int v = (value << 1) ^ (value >> 31);
        int bytes = 1;
        while ((v & 0xFFFFFF80) != 0) {
            bytes++;
            v >>>= 7;
        }
        return bytes;
    }

    static int sizeOfVarlong(long value) {
        long v = (value << 1) ^ (value >> 63);
        int bytes = 1;
        while ((v & 0xFFFFFFFFFFFFFF80L) != 0) {
            bytes++;
            v >>>= 7;
        }
        return bytes;
    }

    /** Writes {@code value} at {@code at} and returns the index after it. */
    static int writeVarint(int value, byte[] dst, int at) {
        int v = (value << 1) ^ (value >> 31);
        while ((v & 0xFFFFFF80) != 0) {
            dst[at++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        dst[at++] = (byte) v;
        return at;
    }

    /** Writes {@code value} at {@code at} and returns the index after it. */
    static int writeVarlong(long value, byte[] dst, int at) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & 0xFFFFFFFFFFFFFF80L) != 0) {
            dst[at++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        dst[at++] = (byte) v;
        return at;
    }
}
