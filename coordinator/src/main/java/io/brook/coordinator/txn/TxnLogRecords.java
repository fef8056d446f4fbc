package io.brook.coordinator.txn;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import io.brook.wire.protocol.ByteBufferWriter;
import io.brook.wire.protocol.ProtocolDecodeException;
import io.brook.wire.protocol.Varints;

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
 * is the tombstone of an expired transactional id.
 *
 * <p>Version 1 of the value (written once {@code transaction.version} is finalized at 1 or more,
 * as Kafka does) has the same fields in the flexible encoding: strings and arrays with an
 * unsigned-varint length + 1 (0 for a null array; the partitions of an Empty id are null), a
 * tagged-field section after each partitions entry (empty) and at the end of the value with, when
 * not at their defaults and in this order, tag 0 {@code previous_producer_id} int64 (default -1),
 * tag 1 {@code next_producer_id} int64 (default -1), tag 2 {@code client_transaction_version}
 * int16 (default 0); each tagged field is its tag, its size and its bytes, all varints unsigned.
 * Both versions are read; unknown tags are skipped.
 */
final class TxnLogRecords {

    static final short KEY_VERSION = 0;
    static final short VALUE_VERSION = 0;
    /** The flexible value with the tagged fields of transactions V2 (KIP-890). */
    static final short VALUE_VERSION_FLEXIBLE = 1;

    private static final int TAG_PREVIOUS_PRODUCER_ID = 0;
    private static final int TAG_NEXT_PRODUCER_ID = 1;
    private static final int TAG_CLIENT_TRANSACTION_VERSION = 2;

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

    /** The value in {@code version} 0 or 1. */
    static byte[] value(TxnSnapshot s, short version) {
        if (version == VALUE_VERSION) return value(s);
        if (version != VALUE_VERSION_FLEXIBLE) throw new IllegalArgumentException("value version " + version);
        int size = 2 + 8 + 2 + 4 + 1 + 5 + 8 + 8 + 1 + 3 * (1 + 1 + 8);
        Map<String, byte[]> names = new TreeMap<>();
        boolean nullPartitions = s.state() == TxnState.EMPTY;
        for (Map.Entry<String, SortedSet<Integer>> e : s.partitions().entrySet()) {
            byte[] n = e.getKey().getBytes(StandardCharsets.UTF_8);
            names.put(e.getKey(), n);
            size += 5 + n.length + 5 + 4 * e.getValue().size() + 1;
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        ByteBufferWriter w = new ByteBufferWriter(b);
        b.putShort(VALUE_VERSION_FLEXIBLE).putLong(s.producerId()).putShort(s.producerEpoch()).putInt(s.timeoutMs())
                .put(s.state().id());
        if (nullPartitions) {
            w.writeUnsignedVarint(0);
        } else {
            w.writeUnsignedVarint(s.partitions().size() + 1);
            for (Map.Entry<String, SortedSet<Integer>> e : s.partitions().entrySet()) {
                byte[] n = names.get(e.getKey());
                w.writeUnsignedVarint(n.length + 1);
                b.put(n);
                w.writeUnsignedVarint(e.getValue().size() + 1);
                for (int p : e.getValue()) b.putInt(p);
                w.writeUnsignedVarint(0); // no tagged fields
            }
        }
        b.putLong(s.updateMs()).putLong(s.startMs());
        int tags = (s.previousProducerId() != -1 ? 1 : 0) + (s.nextProducerId() != -1 ? 1 : 0)
                + (s.clientVersion() != 0 ? 1 : 0);
        w.writeUnsignedVarint(tags);
        if (s.previousProducerId() != -1) {
            w.writeUnsignedVarint(TAG_PREVIOUS_PRODUCER_ID);
            w.writeUnsignedVarint(8);
            b.putLong(s.previousProducerId());
        }
        if (s.nextProducerId() != -1) {
            w.writeUnsignedVarint(TAG_NEXT_PRODUCER_ID);
            w.writeUnsignedVarint(8);
            b.putLong(s.nextProducerId());
        }
        if (s.clientVersion() != 0) {
            w.writeUnsignedVarint(TAG_CLIENT_TRANSACTION_VERSION);
            w.writeUnsignedVarint(2);
            b.putShort(s.clientVersion());
        }
        return Arrays.copyOf(b.array(), b.position());
    }

    /** The value in version 0 (no fields of transactions V2). */
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
            if (version == VALUE_VERSION_FLEXIBLE) return readFlexibleValue(b);
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
        } catch (BufferUnderflowException | ProtocolDecodeException | IllegalArgumentException e) {
            throw new IllegalArgumentException("truncated or malformed transaction log value", e);
        }
    }

    private static TxnSnapshot readFlexibleValue(ByteBuffer b) {
        long pid = b.getLong();
        short epoch = b.getShort();
        int timeout = b.getInt();
        TxnState state = TxnState.fromId(b.get());
        int topics = Varints.readUnsignedVarint(b, "transaction_partitions") - 1;
        TreeMap<String, SortedSet<Integer>> partitions = new TreeMap<>();
        if (topics > b.remaining() / 3) throw new IllegalArgumentException("topic count " + topics + " too large");
        for (int i = 0; i < topics; i++) {
            int len = Varints.readUnsignedVarint(b, "topic") - 1;
            if (len < 0 || len > b.remaining()) throw new IllegalArgumentException("bad topic length " + len);
            byte[] name = new byte[len];
            b.get(name);
            String topic = new String(name, StandardCharsets.UTF_8);
            int n = Varints.readUnsignedVarint(b, "partition_ids") - 1;
            if (n < 0 || n > b.remaining() / 4) throw new IllegalArgumentException("bad partitions of " + topic);
            TreeSet<Integer> ps = new TreeSet<>();
            for (int k = 0; k < n; k++) ps.add(b.getInt());
            skipTags(b);
            if (state != TxnState.EMPTY) partitions.put(topic, Collections.unmodifiableSortedSet(ps));
        }
        long update = b.getLong();
        long start = b.getLong();
        long previous = -1L;
        long next = -1L;
        short clientVersion = 0;
        int tags = Varints.readUnsignedVarint(b, "tagged fields");
        for (int i = 0; i < tags; i++) {
            int tag = Varints.readUnsignedVarint(b, "tag");
            int size = Varints.readUnsignedVarint(b, "tag size");
            if (size < 0 || size > b.remaining()) throw new IllegalArgumentException("bad size of tag " + tag);
            int end = b.position() + size;
            switch (tag) {
                case TAG_PREVIOUS_PRODUCER_ID -> previous = b.getLong();
                case TAG_NEXT_PRODUCER_ID -> next = b.getLong();
                case TAG_CLIENT_TRANSACTION_VERSION -> clientVersion = b.getShort();
                default -> { }
            }
            b.position(end);
        }
        return new TxnSnapshot(pid, epoch, (short) -1, timeout, state, Collections.unmodifiableSortedMap(partitions), start,
                update, previous, next, clientVersion);
    }

    private static void skipTags(ByteBuffer b) {
        int tags = Varints.readUnsignedVarint(b, "tagged fields");
        for (int i = 0; i < tags; i++) {
            Varints.readUnsignedVarint(b, "tag");
            int size = Varints.readUnsignedVarint(b, "tag size");
            if (size < 0 || size > b.remaining()) throw new IllegalArgumentException("bad tag size " + size);
            b.position(b.position() + size);
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
