package io.brook.coordinator.group;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The records of {@code __consumer_offsets} in Kafka's own layout and versions, as Kafka 4.x
 * writes them, so that Kafka's offsets formatter
 * ({@code kafka-console-consumer --formatter org.apache.kafka.tools.consumer.OffsetsMessageFormatter}),
 * Burrow and other tools that read the topic decode Brook's. A key starts with an int16 that is
 * its record type (Kafka's "key version"); a value starts with its own version. Integers are
 * big-endian; a string is an int16 length and UTF-8 bytes (length -1: null, where nullable);
 * bytes are an int32 length and the bytes. Written versions (Kafka's for a 4.x metadata version):
 *
 * <pre>
 * OffsetCommitKey (type 1; type 0 is read too, same fields):
 *   +-------------+--------------+--------------+-----------------+
 *   | int16 1     | string group | string topic | int32 partition |
 *   +-------------+--------------+--------------+-----------------+
 * OffsetCommitValue v3 (null value: the offset was deleted or expired):
 *   +----------+--------------+--------------------+-----------------+------------------------+
 *   | int16 3  | int64 offset | int32 leader epoch | string metadata | int64 commit timestamp |
 *   +----------+--------------+--------------------+-----------------+------------------------+
 *   (read: v0 and v2 without the epoch, v1 with an int64 expire timestamp after the commit
 *    timestamp, v4 flexible: compact strings and tagged fields)
 *
 * GroupMetadataKey (type 2):
 *   +-------------+--------------+
 *   | int16 2     | string group |
 *   +-------------+--------------+
 * GroupMetadataValue v3 (null value: the group was deleted):
 *   +---------+----------------------+------------------+-------------------------+
 *   | int16 3 | string protocol type | int32 generation | nullable string protocol|
 *   +---------+----------------------+------------------+-------------------------+
 *   | nullable string leader | int64 state timestamp | int32 member count | member ...
 *   +------------------------+-----------------------+--------------------+-----------
 *   member: string member id, nullable string group instance id, string client id,
 *           string client host, int32 rebalance timeout, int32 session timeout,
 *           bytes subscription, bytes assignment
 *   (read: v0 without rebalance timeout, state timestamp and instance id, v1 and v2 without
 *    the later ones, v4 flexible)
 * </pre>
 *
 * What Kafka's layout cannot hold: a member's subscription is that of the group's chosen protocol
 * only (Kafka keeps no more, and a member that rejoins sends all of its own again); a group
 * without a protocol type is written with the empty one, and read back without; a missing
 * assignment is written empty.
 *
 * <p>Keys in Brook's earlier layout ({@link LegacyCoordinatorRecords}) are recognised: a key that
 * does not parse as Kafka's, exactly to its last byte, is read as Brook's and returned wrapped in
 * {@link Legacy}, whose value is to be read with the legacy decoders. The two cannot be mistaken
 * for one another: Brook's strings have int32 lengths, so as Kafka's they leave bytes over.
 *
 * <p>Decoding checks every length against the bytes that remain and throws
 * {@link IllegalArgumentException} on a malformed record.
 */
final class CoordinatorRecords {

    static final short KEY_OFFSET_V0 = 0;
    static final short KEY_OFFSET = 1;
    static final short KEY_GROUP = 2;
    static final short OFFSET_VALUE_VERSION = 3;
    static final short GROUP_VALUE_VERSION = 3;
    private static final short MAX_OFFSET_VALUE_VERSION = 4;
    private static final short MAX_GROUP_VALUE_VERSION = 4;
    private static final byte[] EMPTY = new byte[0];

    private CoordinatorRecords() {
    }

    sealed interface Key permits OffsetKey, GroupKey, Legacy, ConsumerGroupRecords.ModernKey {
        String group();
    }

    record OffsetKey(String group, String topic, int partition) implements Key {
    }

    record GroupKey(String group) implements Key {
    }

    /** A key in Brook's earlier layout: its value is in that layout too. */
    record Legacy(Key key) implements Key {
        @Override
        public String group() {
            return key.group();
        }
    }

    record OffsetValue(long offset, int leaderEpoch, String metadata, long commitTimestamp) {
    }

    record MemberValue(String memberId, String instanceId, String clientId, String clientHost,
                       int rebalanceTimeoutMs, int sessionTimeoutMs, List<Protocol> protocols, byte[] assignment) {
    }

    record GroupValue(String protocolType, int generation, String protocolName, String leader,
                      long stateTimestamp, List<MemberValue> members) {
    }

    // ---------------------------------------------------------------- encoding

    static byte[] offsetKey(String group, String topic, int partition) {
        byte[] g = string(group, "group");
        byte[] t = string(topic, "topic");
        ByteBuffer b = ByteBuffer.allocate(2 + 2 + g.length + 2 + t.length + 4);
        b.putShort(KEY_OFFSET);
        putString(b, g);
        putString(b, t);
        b.putInt(partition);
        return b.array();
    }

    static byte[] groupKey(String group) {
        byte[] g = string(group, "group");
        ByteBuffer b = ByteBuffer.allocate(2 + 2 + g.length);
        b.putShort(KEY_GROUP);
        putString(b, g);
        return b.array();
    }

    static byte[] offsetValue(OffsetValue v) {
        byte[] m = string(v.metadata() == null ? "" : v.metadata(), "metadata");
        ByteBuffer b = ByteBuffer.allocate(2 + 8 + 4 + 2 + m.length + 8);
        b.putShort(OFFSET_VALUE_VERSION);
        b.putLong(v.offset());
        b.putInt(v.leaderEpoch());
        putString(b, m);
        b.putLong(v.commitTimestamp());
        return b.array();
    }

    static byte[] groupValue(GroupValue v) {
        byte[] type = string(v.protocolType() == null ? "" : v.protocolType(), "protocol type");
        byte[] protocol = nullableString(v.protocolName());
        byte[] leader = nullableString(v.leader());
        int size = 2 + 2 + type.length + 4 + 2 + len(protocol) + 2 + len(leader) + 8 + 4;
        List<byte[]> parts = new ArrayList<>();
        for (MemberValue m : v.members()) {
            byte[][] f = {string(m.memberId(), "member id"), nullableString(m.instanceId()),
                string(m.clientId(), "client id"), string(m.clientHost(), "client host"),
                subscription(m, v.protocolName()), m.assignment() == null ? EMPTY : m.assignment()};
            for (int i = 0; i < 4; i++) {
                size += 2 + len(f[i]);
            }
            size += 4 + 4 + 4 + f[4].length + 4 + f[5].length;
            for (byte[] x : f) {
                parts.add(x);
            }
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putShort(GROUP_VALUE_VERSION);
        putString(b, type);
        b.putInt(v.generation());
        putString(b, protocol);
        putString(b, leader);
        b.putLong(v.stateTimestamp());
        b.putInt(v.members().size());
        int i = 0;
        for (MemberValue m : v.members()) {
            putString(b, parts.get(i++));
            putString(b, parts.get(i++));
            putString(b, parts.get(i++));
            putString(b, parts.get(i++));
            b.putInt(m.rebalanceTimeoutMs());
            b.putInt(m.sessionTimeoutMs());
            putBytes(b, parts.get(i++));
            putBytes(b, parts.get(i++));
        }
        return b.array();
    }

    /** The member's metadata for the group's protocol: what Kafka stores as its subscription. */
    private static byte[] subscription(MemberValue m, String protocolName) {
        if (protocolName != null) {
            for (Protocol p : m.protocols()) {
                if (p.name().equals(protocolName)) {
                    return p.metadata() == null ? EMPTY : p.metadata();
                }
            }
        }
        return EMPTY;
    }

    // ---------------------------------------------------------------- decoding

    /**
     * @return the decoded key ({@link Legacy} for Brook's earlier layout), or null for a record
     *     type this code does not know (e.g. Kafka's subscription metadata of KIP-848 groups, which
     *     Brook does not write: skipped on replay)
     */
    static Key readKey(byte[] key) {
        Reader r = new Reader(key, false);
        short version = r.int16();
        if (ConsumerGroupRecords.isModernKey(version)) {
            return ConsumerGroupRecords.readKey(version, r);
        }
        if (version != KEY_OFFSET_V0 && version != KEY_OFFSET && version != KEY_GROUP) {
            return null;
        }
        Key kafka = null;
        try {
            if (version == KEY_GROUP) {
                kafka = new GroupKey(r.string());
            } else {
                kafka = new OffsetKey(r.string(), r.string(), r.int32());
            }
            r.end();
        } catch (IllegalArgumentException e) {
            kafka = null;
        }
        if (kafka != null) {
            return kafka;
        }
        Key legacy = LegacyCoordinatorRecords.readKey(key);
        if (legacy == null) {
            throw new IllegalArgumentException("key of type " + version + " is neither Kafka's nor Brook's layout");
        }
        return new Legacy(legacy);
    }

    static OffsetValue readOffsetValue(byte[] value) {
        Reader r = new Reader(value, false);
        short version = r.int16();
        if (version < 0 || version > MAX_OFFSET_VALUE_VERSION) {
            throw new IllegalArgumentException("unknown offset value version " + version);
        }
        r.flexible = version >= 4;
        long offset = r.int64();
        int epoch = version >= 3 ? r.int32() : -1;
        String metadata = r.string();
        long commitTimestamp = r.int64();
        if (version == 1) {
            r.int64(); // expire timestamp: Brook expires by the commit timestamp and the group's retention
        }
        r.taggedFields();
        return new OffsetValue(offset, epoch, metadata, commitTimestamp);
    }

    static GroupValue readGroupValue(byte[] value) {
        Reader r = new Reader(value, false);
        short version = r.int16();
        if (version < 0 || version > MAX_GROUP_VALUE_VERSION) {
            throw new IllegalArgumentException("unknown group value version " + version);
        }
        r.flexible = version >= 4;
        String type = r.string();
        int generation = r.int32();
        String protocol = r.nullableString();
        String leader = r.nullableString();
        long stateTimestamp = version >= 2 ? r.int64() : -1;
        // a member takes at least its four strings' lengths, two int32s and two byte lengths
        int count = r.arrayLength(r.flexible ? 8 : 20);
        List<MemberValue> members = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String memberId = r.string();
            String instanceId = version >= 3 ? r.nullableString() : null;
            String clientId = r.string();
            String clientHost = r.string();
            int rebalance = version >= 1 ? r.int32() : -1;
            int session = r.int32();
            byte[] subscription = r.bytes();
            byte[] assignment = r.bytes();
            r.taggedFields();
            if (version == 0) {
                rebalance = session; // Kafka's reading of a v0 member: the session time-out bounds the rebalance
            }
            List<Protocol> protocols = protocol == null ? List.of() : List.of(new Protocol(protocol, subscription));
            members.add(new MemberValue(memberId, instanceId, clientId, clientHost, rebalance, session, protocols,
                    assignment));
        }
        r.taggedFields();
        return new GroupValue(type.isEmpty() ? null : type, generation, protocol, leader, stateTimestamp, members);
    }

    // ---------------------------------------------------------------- helpers

    private static byte[] string(String s, String what) {
        if (s == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        return checked(s.getBytes(StandardCharsets.UTF_8), what);
    }

    private static byte[] nullableString(String s) {
        return s == null ? null : checked(s.getBytes(StandardCharsets.UTF_8), "string");
    }

    private static byte[] checked(byte[] b, String what) {
        if (b.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException(what + " is longer than " + Short.MAX_VALUE + " bytes");
        }
        return b;
    }

    private static int len(byte[] b) {
        return b == null ? 0 : b.length;
    }

    private static void putString(ByteBuffer b, byte[] s) {
        if (s == null) {
            b.putShort((short) -1);
        } else {
            b.putShort((short) s.length);
            b.put(s);
        }
    }

    private static void putBytes(ByteBuffer b, byte[] bytes) {
        b.putInt(bytes.length);
        b.put(bytes);
    }

    /** Reads Kafka's primitive types, classic or (flexible) compact, bounded by what remains. */
    static final class Reader {
        private final ByteBuffer b;
        boolean flexible;

        Reader(byte[] bytes, boolean flexible) {
            this.b = ByteBuffer.wrap(bytes);
            this.flexible = flexible;
        }

        void need(int n, String what) {
            if (n < 0 || b.remaining() < n) {
                throw new IllegalArgumentException(what + ": need " + n + " bytes, " + b.remaining() + " remain");
            }
        }

        short int16() {
            need(2, "int16");
            return b.getShort();
        }

        int int32() {
            need(4, "int32");
            return b.getInt();
        }

        byte int8() {
            need(1, "int8");
            return b.get();
        }

        java.util.UUID uuid() {
            need(16, "uuid");
            return new java.util.UUID(b.getLong(), b.getLong());
        }

        long int64() {
            need(8, "int64");
            return b.getLong();
        }

        int unsignedVarint() {
            int value = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                need(1, "varint");
                byte x = b.get();
                value |= (x & 0x7f) << shift;
                if ((x & 0x80) == 0) {
                    return value;
                }
            }
            throw new IllegalArgumentException("varint longer than 5 bytes");
        }

        /** A length: -1 for null, else the count that follows. */
        int length() {
            return flexible ? unsignedVarint() - 1 : int16();
        }

        String nullableString() {
            int n = length();
            if (n == -1) {
                return null;
            }
            need(n, "string");
            byte[] s = new byte[n];
            b.get(s);
            return new String(s, StandardCharsets.UTF_8);
        }

        String string() {
            String s = nullableString();
            if (s == null) {
                throw new IllegalArgumentException("null string where one is required");
            }
            return s;
        }

        byte[] bytes() {
            int n = flexible ? unsignedVarint() - 1 : int32();
            if (n < 0) {
                throw new IllegalArgumentException("null or negative bytes length " + n);
            }
            need(n, "bytes");
            byte[] out = new byte[n];
            b.get(out);
            return out;
        }

        int arrayLength(int minBytesEach) {
            int n = flexible ? unsignedVarint() - 1 : int32();
            if (n < 0 || (long) n * minBytesEach > b.remaining()) {
                throw new IllegalArgumentException("count " + n + " exceeds remaining " + b.remaining() + " bytes");
            }
            return n;
        }

        /** Skips a flexible version's tagged fields (none in a classic version). */
        void taggedFields() {
            if (!flexible) {
                return;
            }
            int count = unsignedVarint();
            for (int i = 0; i < count; i++) {
                unsignedVarint(); // tag
                int size = unsignedVarint();
                need(size, "tagged field");
                b.position(b.position() + size);
            }
        }

        void end() {
            if (b.hasRemaining()) {
                throw new IllegalArgumentException(b.remaining() + " bytes left over");
            }
        }
    }
}
