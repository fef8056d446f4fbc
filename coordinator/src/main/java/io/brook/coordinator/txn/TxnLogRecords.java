package io.brook.coordinator.txn;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The records of {@code __transaction_state} in Kafka's layout, so that Kafka's own
 * transaction-log formatter reads what Brook wrote:
 *
 * <pre>
 *   key   (version 0): version int16 = 0, transactional_id string
 *   value (version 0): version int16 = 0, producer_id int64, producer_epoch int16,
 *                      transaction_timeout_ms int32, transaction_status int8,
 *                      transaction_partitions [topic string, partition_ids [int32]] (nullable array),
 *                      transaction_last_update_timestamp_ms int64, transaction_start_timestamp_ms int64
 * </pre>
 *
 * Strings are an int16 length and UTF-8 bytes, arrays an int32 count (-1 for null). A null value
 * is the tombstone of an expired transactional id. Version 1 of the value (flexible, with tagged
 * previous and next producer ids and the client's transaction version) is not written.
 */
final class TxnLogRecords {

    static final short KEY_VERSION = 0;
    static final short VALUE_VERSION = 0;

    private TxnLogRecords() {
    }

    static byte[] key(String transactionalId) {
        byte[] id = transactionalId.getBytes(StandardCharsets.UTF_8);
        if (id.length > Short.MAX_VALUE) throw new IllegalArgumentException("transactional id too long");
        ByteBuffer b = ByteBuffer.allocate(2 + 2 + id.length);
        b.putShort(KEY_VERSION).putShort((short) id.length).put(id);
        return b.array();
    }

    /** @return the transactional id, or null for a key version this code does not know */
    static String readKey(byte[] key) {
        ByteBuffer b = ByteBuffer.wrap(key);
        try {
            short version = b.getShort();
            if (version != KEY_VERSION) return null;
            String id = readString(b);
            if (id == null) throw new IllegalArgumentException("null transactional id");
            return id;
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated transaction log key", e);
        }
    }

    static byte[] value(TxnSnapshot s) {
        int size = 2 + 8 + 2 + 4 + 1 + 4 + 8 + 8;
        Map<String, byte[]> names = new TreeMap<>();
        for (Map.Entry<String, SortedSet<Integer>> e : s.partitions().entrySet()) {
            byte[] n = e.getKey().getBytes(StandardCharsets.UTF_8);
            names.put(e.getKey(), n);
            size += 2 + n.length + 4 + 4 * e.getValue().size();
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putShort(VALUE_VERSION).putLong(s.producerId()).putShort(s.producerEpoch()).putInt(s.timeoutMs())
                .put(s.state().id()).putInt(s.partitions().size());
        for (Map.Entry<String, SortedSet<Integer>> e : s.partitions().entrySet()) {
            byte[] n = names.get(e.getKey());
            b.putShort((short) n.length).put(n).putInt(e.getValue().size());
            for (int p : e.getValue()) b.putInt(p);
        }
        b.putLong(s.updateMs()).putLong(s.startMs());
        return b.array();
    }

    static TxnSnapshot readValue(byte[] value) {
        ByteBuffer b = ByteBuffer.wrap(value);
        try {
            short version = b.getShort();
            if (version != VALUE_VERSION) throw new IllegalArgumentException("unknown transaction log value version " + version);
            long pid = b.getLong();
            short epoch = b.getShort();
            int timeout = b.getInt();
            TxnState state = TxnState.fromId(b.get());
            int topics = b.getInt();
            TreeMap<String, SortedSet<Integer>> partitions = new TreeMap<>();
            if (topics > b.remaining() / 6) throw new IllegalArgumentException("topic count " + topics + " too large");
            for (int i = 0; i < topics; i++) {
                String topic = readString(b);
                int n = b.getInt();
                if (topic == null || n < 0 || n > b.remaining() / 4) throw new IllegalArgumentException("bad partitions of " + topic);
                TreeSet<Integer> ps = new TreeSet<>();
                for (int k = 0; k < n; k++) ps.add(b.getInt());
                partitions.put(topic, Collections.unmodifiableSortedSet(ps));
            }
            long update = b.getLong();
            long start = b.getLong();
            SortedMap<String, SortedSet<Integer>> frozen = Collections.unmodifiableSortedMap(partitions);
            return new TxnSnapshot(pid, epoch, (short) -1, timeout, state, frozen, start, update);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated transaction log value", e);
        }
    }

    private static String readString(ByteBuffer b) {
        short len = b.getShort();
        if (len < 0) return null;
        byte[] s = new byte[len];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }
}
