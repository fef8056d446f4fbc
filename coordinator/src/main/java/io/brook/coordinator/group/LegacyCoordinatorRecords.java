package io.brook.coordinator.group;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The record layouts of {@code __consumer_offsets} as Brook wrote them before it wrote Kafka's
 * ({@link CoordinatorRecords}): read at start-up so that a data directory of an earlier release
 * loads, and migrated then (see {@link GroupReplay#migration}). The encoders remain for tests that
 * build such a directory. All integers are
 * big-endian. A string is an int32 byte length followed by UTF-8 bytes, length -1 meaning null;
 * bytes are an int32 length followed by the bytes, -1 meaning null. The key's leading version tells
 * what the record is; values carry their own version so that either can evolve.
 *
 * <pre>
 * Offset commit key (KEY_OFFSET = 1):
 *   +---------------+--------------+--------------+-----------------+
 *   | int16 version | string group | string topic | int32 partition |
 *   +---------------+--------------+--------------+-----------------+
 * Offset commit value (version 1), null = the offset was deleted/expired:
 *   +---------------+--------------+--------------------+-----------------+------------------------+
 *   | int16 version | int64 offset | int32 leader epoch | string metadata | int64 commit timestamp |
 *   +---------------+--------------+--------------------+-----------------+------------------------+
 *
 * Group metadata key (KEY_GROUP = 2):
 *   +---------------+--------------+
 *   | int16 version | string group |
 *   +---------------+--------------+
 * Group metadata value (version 1), null = the group was deleted:
 *   +---------------+----------------------+------------------+----------------------+---------------+
 *   | int16 version | string protocol type | int32 generation | string protocol name | string leader |
 *   +---------------+----------------------+------------------+----------------------+---------------+
 *   | int64 state timestamp | int32 member count | member ...                                        |
 *   +-----------------------+--------------------+---------------------------------------------------+
 *   member:
 *   +------------------+------------------------+-----------------+-------------------+
 *   | string member id | string group instance  | string client id| string client host|
 *   +------------------+------------------------+-----------------+-------------------+
 *   | int32 rebalance timeout | int32 session timeout | int32 protocol count |
 *   +-------------------------+-----------------------+----------------------+
 *   | protocol: string name, bytes metadata ... | bytes assignment |
 *   +-------------------------------------------+------------------+
 * </pre>
 *
 * Decoding checks every length against the bytes that remain and throws
 * {@link IllegalArgumentException} on a malformed record.
 */
final class LegacyCoordinatorRecords {

    static final short KEY_OFFSET = 1;
    static final short KEY_GROUP = 2;
    static final short OFFSET_VALUE_VERSION = 1;
    static final short GROUP_VALUE_VERSION = 1;

    private LegacyCoordinatorRecords() {
    }

    // ---------------------------------------------------------------- encoding

    static byte[] offsetKey(String group, String topic, int partition) {
        byte[] g = utf8(group);
        byte[] t = utf8(topic);
        ByteBuffer b = ByteBuffer.allocate(2 + 4 + g.length + 4 + t.length + 4);
        b.putShort(KEY_OFFSET);
        putBytes(b, g);
        putBytes(b, t);
        b.putInt(partition);
        return b.array();
    }

    static byte[] groupKey(String group) {
        byte[] g = utf8(group);
        ByteBuffer b = ByteBuffer.allocate(2 + 4 + g.length);
        b.putShort(KEY_GROUP);
        putBytes(b, g);
        return b.array();
    }

    static byte[] offsetValue(CoordinatorRecords.OffsetValue v) {
        byte[] m = utf8(v.metadata());
        ByteBuffer b = ByteBuffer.allocate(2 + 8 + 4 + 4 + len(m) + 8);
        b.putShort(OFFSET_VALUE_VERSION);
        b.putLong(v.offset());
        b.putInt(v.leaderEpoch());
        putBytes(b, m);
        b.putLong(v.commitTimestamp());
        return b.array();
    }

    static byte[] groupValue(CoordinatorRecords.GroupValue v) {
        List<byte[]> parts = new ArrayList<>();
        byte[] type = utf8(v.protocolType());
        byte[] name = utf8(v.protocolName());
        byte[] leader = utf8(v.leader());
        int size = 2 + 4 + len(type) + 4 + 4 + len(name) + 4 + len(leader) + 8 + 4;
        for (CoordinatorRecords.MemberValue m : v.members()) {
            byte[][] f = {utf8(m.memberId()), utf8(m.instanceId()), utf8(m.clientId()), utf8(m.clientHost())};
            for (byte[] x : f) {
                parts.add(x);
                size += 4 + len(x);
            }
            size += 4 + 4 + 4;
            for (Protocol p : m.protocols()) {
                byte[] pn = utf8(p.name());
                parts.add(pn);
                size += 4 + len(pn) + 4 + len(p.metadata());
            }
            size += 4 + len(m.assignment());
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putShort(GROUP_VALUE_VERSION);
        putBytes(b, type);
        b.putInt(v.generation());
        putBytes(b, name);
        putBytes(b, leader);
        b.putLong(v.stateTimestamp());
        b.putInt(v.members().size());
        int i = 0;
        for (CoordinatorRecords.MemberValue m : v.members()) {
            for (int k = 0; k < 4; k++) putBytes(b, parts.get(i++));
            b.putInt(m.rebalanceTimeoutMs());
            b.putInt(m.sessionTimeoutMs());
            b.putInt(m.protocols().size());
            for (Protocol p : m.protocols()) {
                putBytes(b, parts.get(i++));
                putBytes(b, p.metadata());
            }
            putBytes(b, m.assignment());
        }
        return b.array();
    }

    // ---------------------------------------------------------------- decoding

    /** @return the decoded key, or null for a key version this layout does not have */
    static CoordinatorRecords.Key readKey(byte[] key) {
        ByteBuffer b = ByteBuffer.wrap(key);
        short version = getShort(b);
        switch (version) {
            case KEY_OFFSET -> {
                String group = getString(b);
                String topic = getString(b);
                int partition = getInt(b);
                if (group == null || topic == null) throw new IllegalArgumentException("offset key with null group or topic");
                return new CoordinatorRecords.OffsetKey(group, topic, partition);
            }
            case KEY_GROUP -> {
                String group = getString(b);
                if (group == null) throw new IllegalArgumentException("group key with null group");
                return new CoordinatorRecords.GroupKey(group);
            }
            default -> {
                return null;
            }
        }
    }

    static CoordinatorRecords.OffsetValue readOffsetValue(byte[] value) {
        ByteBuffer b = ByteBuffer.wrap(value);
        short version = getShort(b);
        if (version != OFFSET_VALUE_VERSION) throw new IllegalArgumentException("unknown offset value version " + version);
        long offset = getLong(b);
        int epoch = getInt(b);
        String metadata = getString(b);
        long ts = getLong(b);
        return new CoordinatorRecords.OffsetValue(offset, epoch, metadata, ts);
    }

    static CoordinatorRecords.GroupValue readGroupValue(byte[] value) {
        ByteBuffer b = ByteBuffer.wrap(value);
        short version = getShort(b);
        if (version != GROUP_VALUE_VERSION) throw new IllegalArgumentException("unknown group value version " + version);
        String type = getString(b);
        int generation = getInt(b);
        String name = getString(b);
        String leader = getString(b);
        long ts = getLong(b);
        int count = getInt(b);
        // Each member takes at least 9 int32 fields; reject counts the bytes cannot hold.
        checkCount(count, 36, b);
        List<CoordinatorRecords.MemberValue> members = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String memberId = getString(b);
            String instanceId = getString(b);
            String clientId = getString(b);
            String clientHost = getString(b);
            int rebalance = getInt(b);
            int session = getInt(b);
            int pc = getInt(b);
            checkCount(pc, 8, b);
            List<Protocol> protocols = new ArrayList<>(pc);
            for (int p = 0; p < pc; p++) {
                String protocolName = getString(b);
                byte[] metadata = getBytes(b);
                if (protocolName == null || metadata == null) {
                    throw new IllegalArgumentException("member protocol with null name or metadata");
                }
                protocols.add(new Protocol(protocolName, metadata));
            }
            byte[] assignment = getBytes(b);
            if (memberId == null || clientId == null || clientHost == null) {
                throw new IllegalArgumentException("member with null id, client id or host");
            }
            members.add(new CoordinatorRecords.MemberValue(memberId, instanceId, clientId, clientHost, rebalance, session, protocols, assignment));
        }
        return new CoordinatorRecords.GroupValue(type, generation, name, leader, ts, members);
    }

    // ---------------------------------------------------------------- helpers

    private static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    private static int len(byte[] b) {
        return b == null ? 0 : b.length;
    }

    private static void putBytes(ByteBuffer b, byte[] bytes) {
        if (bytes == null) {
            b.putInt(-1);
        } else {
            b.putInt(bytes.length);
            b.put(bytes);
        }
    }

    private static void need(ByteBuffer b, int n, String what) {
        if (b.remaining() < n) {
            throw new IllegalArgumentException(what + ": need " + n + " bytes, " + b.remaining() + " remain");
        }
    }

    private static void checkCount(int count, int minBytesEach, ByteBuffer b) {
        if (count < 0 || (long) count * minBytesEach > b.remaining()) {
            throw new IllegalArgumentException("count " + count + " exceeds remaining " + b.remaining() + " bytes");
        }
    }

    private static short getShort(ByteBuffer b) {
        need(b, 2, "int16");
        return b.getShort();
    }

    private static int getInt(ByteBuffer b) {
        need(b, 4, "int32");
        return b.getInt();
    }

    private static long getLong(ByteBuffer b) {
        need(b, 8, "int64");
        return b.getLong();
    }

    private static byte[] getBytes(ByteBuffer b) {
        int n = getInt(b);
        if (n == -1) return null;
        if (n < 0) throw new IllegalArgumentException("negative length " + n);
        need(b, n, "bytes");
        byte[] out = new byte[n];
        b.get(out);
        return out;
    }

    private static String getString(ByteBuffer b) {
        byte[] bytes = getBytes(b);
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }
}
