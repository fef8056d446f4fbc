package io.brook.reliability;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The records producers had acknowledged, by id. An id is a producer slot and a sequence number
 * within it ({@code slot:seq} as the record key, see {@link #key}); record {@code seq} of any slot
 * goes to partition {@code seq % partitions}, so that every slot writes every partition in order.
 * For each acknowledged id the ledger keeps the offset the broker acknowledged.
 *
 * <p>Thread-safe: each slot is written by its producer's callback thread and read by the verifier.
 */
final class AckLedger {
    private static final long NOT_ACKED = -1;

    private final int partitions;
    private final Slot[] slots;

    AckLedger(int slots, int partitions) {
        this.partitions = partitions;
        this.slots = new Slot[slots];
        for (int i = 0; i < slots; i++) {
            this.slots[i] = new Slot();
        }
    }

    int slots() {
        return slots.length;
    }

    int partitions() {
        return partitions;
    }

    int partitionOf(long seq) {
        return (int) (seq % partitions);
    }

    static byte[] key(int slot, long seq) {
        return (slot + ":" + seq).getBytes(StandardCharsets.US_ASCII);
    }

    /** The id in a record key made by {@link #key} as {@code {slot, seq}}, or null for any other key. */
    static long[] parseKey(byte[] key) {
        if (key == null) {
            return null;
        }
        String s = new String(key, StandardCharsets.US_ASCII);
        int colon = s.indexOf(':');
        if (colon <= 0) {
            return null;
        }
        try {
            return new long[] {Integer.parseInt(s.substring(0, colon)), Long.parseLong(s.substring(colon + 1))};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    void acked(int slot, long seq, long offset) {
        slots[slot].put(seq, offset);
    }

    /** The acknowledged offset of the id, or -1 if it was not acknowledged. */
    long ackedOffset(int slot, long seq) {
        return slots[slot].get(seq);
    }

    /** One past the highest sequence number acknowledged in the slot. */
    long seqBound(int slot) {
        return slots[slot].bound();
    }

    long ackedCount() {
        long n = 0;
        for (Slot s : slots) {
            n += s.count();
        }
        return n;
    }

    private static final class Slot {
        private long[] offsets = filled(1 << 16);
        private long bound;
        private long count;

        synchronized void put(long seq, long offset) {
            if (seq >= Integer.MAX_VALUE) {
                throw new IllegalArgumentException("sequence " + seq + " beyond the ledger's range");
            }
            while (seq >= offsets.length) {
                long[] grown = filled(offsets.length * 2);
                System.arraycopy(offsets, 0, grown, 0, offsets.length);
                offsets = grown;
            }
            if (offsets[(int) seq] == NOT_ACKED) {
                count++;
            }
            offsets[(int) seq] = offset;
            bound = Math.max(bound, seq + 1);
        }

        synchronized long get(long seq) {
            return seq < offsets.length ? offsets[(int) seq] : NOT_ACKED;
        }

        synchronized long bound() {
            return bound;
        }

        synchronized long count() {
            return count;
        }

        private static long[] filled(int n) {
            long[] a = new long[n];
            Arrays.fill(a, NOT_ACKED);
            return a;
        }
    }
}
