package io.brook.server.node;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.UUID;

/**
 * Random (version 4) UUIDs for cluster and topic ids, read from {@code /dev/urandom}.
 *
 * <p>{@link UUID#randomUUID()} draws from the same kernel source, but its first call initialises
 * the JDK's security providers and secure random generator: 10-17 ms measured, on the path of a
 * first start (cluster id) and of the first auto-created topic (topic id). Where
 * {@code /dev/urandom} cannot be read (not a Unix system) this falls back to
 * {@link UUID#randomUUID()}. Thread-safe.
 */
public final class RandomIds {

    private static final String URANDOM = "/dev/urandom";
    private static final int UUID_BYTES = 16;

    private RandomIds() {
    }

    public static UUID uuid() {
        byte[] b;
        try (InputStream in = new FileInputStream(URANDOM)) {
            b = in.readNBytes(UUID_BYTES);
        } catch (IOException | SecurityException e) {
            return UUID.randomUUID();
        }
        if (b.length != UUID_BYTES) {
            return UUID.randomUUID();
        }
        return fromRandomBytes(b);
    }

    /** The version-4 UUID of 16 random bytes (RFC 4122 section 4.4: version and variant bits set). */
    static UUID fromRandomBytes(byte[] b) {
        if (b.length != UUID_BYTES) {
            throw new IllegalArgumentException("a UUID takes 16 bytes, not " + b.length);
        }
        ByteBuffer buf = ByteBuffer.wrap(b);
        long msb = buf.getLong();
        long lsb = buf.getLong();
        msb = (msb & ~0xF000L) | 0x4000L; // version 4
        lsb = (lsb & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L; // IETF variant
        return new UUID(msb, lsb);
    }
}
