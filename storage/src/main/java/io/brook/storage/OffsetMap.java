package io.brook.storage;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The compaction key map in bounded memory ({@code log.cleaner.dedupe.buffer.size}): key digest
 * → newest offset, in one preallocated buffer with open addressing (linear probing). Keys are
 * stored as 16-byte MD5 digests, never copied: two keys with the same digest would be taken for
 * one (probability ~2^-128 per pair, accepted as Kafka does).
 *
 * <pre>
 * slot (24 bytes):  0                              16             24
 *                   +------------------------------+--------------+
 *                   | MD5 digest of the key        | offset + 1   |   offset + 1 == 0: empty
 *                   +------------------------------+--------------+
 * </pre>
 * At most {@link #LOAD_FACTOR} of the slots are used so that probes stay short; {@link #put}
 * refuses a new key beyond that (the cleaner then stops mapping and cleans what it mapped).
 *
 * <p>Threading: used by the one cleaner thread only.
 */
final class OffsetMap {
    static final int DIGEST_BYTES = 16;
    static final int OFFSET = DIGEST_BYTES;
    static final int SLOT_BYTES = DIGEST_BYTES + 8;
    /** Share of the slots that may be filled (Kafka's log.cleaner.io.buffer.load.factor default). */
    static final double LOAD_FACTOR = 0.9;

    private final ByteBuffer slots;
    private final int slotCount;
    private final int maxEntries;
    private final MessageDigest md5;
    private final byte[] digest = new byte[DIGEST_BYTES];
    private int entries;

    /** A map using at most {@code bytes} bytes (at least two slots). */
    OffsetMap(long bytes) {
        long n = Math.max(2, Math.min(bytes, Integer.MAX_VALUE - SLOT_BYTES) / SLOT_BYTES);
        this.slotCount = (int) n;
        // Always one empty slot at least, so that every probe ends.
        this.maxEntries = Math.max(1, Math.min(slotCount - 1, (int) (slotCount * LOAD_FACTOR)));
        this.slots = ByteBuffer.allocate(slotCount * SLOT_BYTES);
        try {
            this.md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides MD5", e);
        }
    }

    /** Bytes of memory this map holds. */
    int capacityBytes() {
        return slots.capacity();
    }

    int size() {
        return entries;
    }

    /** How many distinct keys fit. */
    int maxEntries() {
        return maxEntries;
    }

    void clear() {
        slots.clear();
        for (int i = 0; i < slots.capacity(); i += 8) {
            slots.putLong(i, 0L);
        }
        entries = 0;
    }

    /**
     * Records {@code offset} as the newest of {@code key} (offsets arrive in increasing order).
     * Returns false, changing nothing, when the key is new and the map is full.
     */
    boolean put(ByteBuffer key, long offset) {
        hash(key);
        int slot = find();
        int base = slot * SLOT_BYTES;
        if (slots.getLong(base + OFFSET) == 0L) {
            if (entries >= maxEntries) {
                return false;
            }
            slots.put(base, digest);
            entries++;
        }
        slots.putLong(base + OFFSET, offset + 1);
        return true;
    }

    /** The newest offset recorded for {@code key}, or -1. */
    long get(ByteBuffer key) {
        hash(key);
        return slots.getLong(find() * SLOT_BYTES + OFFSET) - 1;
    }

    private void hash(ByteBuffer key) {
        md5.reset();
        md5.update(key.duplicate());
        try {
            md5.digest(digest, 0, DIGEST_BYTES);
        } catch (java.security.DigestException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The slot holding {@link #digest}, or the empty slot where it would go. */
    private int find() {
        int h = ((digest[0] & 0xff) << 24 | (digest[1] & 0xff) << 16 | (digest[2] & 0xff) << 8 | (digest[3] & 0xff))
                & Integer.MAX_VALUE;
        int slot = h % slotCount;
        // At most maxEntries < slotCount slots are used, so an empty slot ends every probe.
        while (true) {
            int base = slot * SLOT_BYTES;
            if (slots.getLong(base + OFFSET) == 0L || matches(base)) {
                return slot;
            }
            slot = slot + 1 == slotCount ? 0 : slot + 1;
        }
    }

    private boolean matches(int base) {
        for (int i = 0; i < DIGEST_BYTES; i++) {
            if (slots.get(base + i) != digest[i]) {
                return false;
            }
        }
        return true;
    }
}
