package io.brook.wire.protocol;

/** Encoded sizes of LEB128 varints (see {@link ProtocolWriter#writeUnsignedVarint(int)}). */
public final class Varints {

    private Varints() {
    }

    /** Bytes needed for {@code value} as an unsigned varint (1..5). */
    public static int sizeOfUnsignedVarint(int value) {
        // 7 payload bits per byte; 32 - numberOfLeadingZeros = significant bits (0 counts as 1 byte)
        int bits = 32 - Integer.numberOfLeadingZeros(value);
        return bits == 0 ? 1 : (bits + 6) / 7;
    }

    /** Bytes needed for {@code value} as a zig-zag varint (1..5). */
    public static int sizeOfVarint(int value) {
        return sizeOfUnsignedVarint((value << 1) ^ (value >> 31));
    }

    /** Bytes needed for {@code value} as a zig-zag varlong (1..10). */
    public static int sizeOfVarlong(long value) {
        long v = (value << 1) ^ (value >> 63);
        int bits = 64 - Long.numberOfLeadingZeros(v);
        return bits == 0 ? 1 : (bits + 6) / 7;
    }
}
