package io.brook.coordinator.group;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

import io.brook.coordinator.runtime.CoordinatorRecord;

/**
 * The records of KIP-848 consumer groups in {@code __consumer_offsets}, in Kafka's own layout (so
 * that a Kafka tool reading the topic sees what it knows). A key is its record type (an int16) and
 * the group id (and member id) in classic encoding; a value is its version (0) and its fields in
 * the flexible encoding (compact strings and arrays, an empty tagged-field section per struct;
 * tagged fields read are skipped):
 * <table>
 *   <caption>Record types</caption>
 *   <tr><th>type</th><th>key</th><th>value</th></tr>
 *   <tr><td>3</td><td>group</td><td>the group epoch</td></tr>
 *   <tr><td>5</td><td>group, member</td><td>what the member said of itself: instance id, rack,
 *       client id and host, subscribed topics and pattern, rebalance timeout, assignor</td></tr>
 *   <tr><td>6</td><td>group</td><td>the epoch of the target assignment</td></tr>
 *   <tr><td>7</td><td>group, member</td><td>the member's target partitions</td></tr>
 *   <tr><td>8</td><td>group, member</td><td>the member's epoch, previous epoch, state, assigned
 *       partitions and partitions pending revocation</td></tr>
 * </table>
 * Type 4 (Kafka's record of the subscribed topics' metadata) is not written: on a single node the
 * topics cannot change while the broker is down, and the metadata is computed again when the
 * group's first member heartbeats after a restart. A tombstone (null value) removes a record.
 */
final class ConsumerGroupRecords {

    static final short GROUP_EPOCH = 3;
    static final short SUBSCRIPTION_METADATA = 4;
    static final short MEMBER = 5;
    static final short TARGET_EPOCH = 6;
    static final short TARGET_MEMBER = 7;
    static final short CURRENT_ASSIGNMENT = 8;
    private static final short VALUE_VERSION = 0;

    private ConsumerGroupRecords() {
    }

    /** A key of a consumer group's record: its type, the group, and the member (or null). */
    record ModernKey(short type, String group, String memberId) implements CoordinatorRecords.Key {
    }

    static boolean isModernKey(short type) {
        return type >= GROUP_EPOCH && type <= CURRENT_ASSIGNMENT;
    }

    /** Reads a key of type 3–8 after its type; null for type 4, which Brook does not use. */
    static ModernKey readKey(short type, CoordinatorRecords.Reader r) {
        String group = r.string();
        String member = type == MEMBER || type == TARGET_MEMBER || type == CURRENT_ASSIGNMENT ? r.string() : null;
        if (type == SUBSCRIPTION_METADATA) return null;
        r.end();
        return new ModernKey(type, group, member);
    }

    // ------------------------------------------------------------------ writing

    static CoordinatorRecord groupEpoch(ClassicGroup g) {
        return record(g, key(GROUP_EPOCH, g.groupId, null), flexible().int32(g.modern.groupEpoch).end());
    }

    static CoordinatorRecord targetEpoch(ClassicGroup g) {
        return record(g, key(TARGET_EPOCH, g.groupId, null), flexible().int32(g.modern.assignmentEpoch).end());
    }

    static CoordinatorRecord member(ClassicGroup g, ConsumerGroupMember m) {
        Writer w = flexible().nullableString(m.instanceId).nullableString(m.rackId).nullableString(m.clientId)
                .nullableString(m.clientHost);
        w.uvarint(m.subscribedTopicNames.size() + 1);
        for (String t : m.subscribedTopicNames) w.nullableString(t);
        w.nullableString(m.subscribedTopicRegex).int32(m.rebalanceTimeoutMs).nullableString(m.serverAssignor);
        return record(g, key(MEMBER, g.groupId, m.memberId), w.end());
    }

    static CoordinatorRecord targetMember(ClassicGroup g, String memberId, Map<UUID, Set<Integer>> partitions) {
        Writer w = flexible();
        partitions(w, partitions);
        return record(g, key(TARGET_MEMBER, g.groupId, memberId), w.end());
    }

    static CoordinatorRecord currentAssignment(ClassicGroup g, ConsumerGroupMember m) {
        Writer w = flexible().int32(m.memberEpoch).int32(m.previousMemberEpoch).int8(stateCode(m.state));
        partitions(w, m.assigned);
        partitions(w, m.pendingRevocation);
        return record(g, key(CURRENT_ASSIGNMENT, g.groupId, m.memberId), w.end());
    }

    static CoordinatorRecord tombstone(ClassicGroup g, short type, String memberId) {
        return new CoordinatorRecord(g.partition, key(type, g.groupId, memberId), null);
    }

    /** The tombstones that remove a member's records. */
    static void memberTombstones(ClassicGroup g, String memberId, List<CoordinatorRecord> out) {
        out.add(tombstone(g, CURRENT_ASSIGNMENT, memberId));
        out.add(tombstone(g, TARGET_MEMBER, memberId));
        out.add(tombstone(g, MEMBER, memberId));
    }

    /** The tombstones that remove what is left of a consumer group without members. */
    static void groupTombstones(ClassicGroup g, List<CoordinatorRecord> out) {
        out.add(tombstone(g, TARGET_EPOCH, null));
        out.add(tombstone(g, GROUP_EPOCH, null));
    }

    private static void partitions(Writer w, Map<UUID, Set<Integer>> partitions) {
        w.uvarint(partitions.size() + 1);
        partitions.forEach((topic, parts) -> {
            w.uuid(topic);
            w.uvarint(parts.size() + 1);
            for (int p : parts) w.int32(p);
            w.uvarint(0); // the struct's tagged fields
        });
    }

    private static byte stateCode(ConsumerGroupMember.State s) {
        return switch (s) {
            case STABLE -> 0;
            case UNREVOKED_PARTITIONS -> 1;
            case UNRELEASED_PARTITIONS -> 2;
        };
    }

    private static CoordinatorRecord record(ClassicGroup g, byte[] key, byte[] value) {
        return new CoordinatorRecord(g.partition, key, value);
    }

    private static byte[] key(short type, String group, String member) {
        byte[] gb = group.getBytes(StandardCharsets.UTF_8);
        byte[] mb = member == null ? null : member.getBytes(StandardCharsets.UTF_8);
        if (gb.length > Short.MAX_VALUE || (mb != null && mb.length > Short.MAX_VALUE)) {
            throw new IllegalArgumentException("group or member id too long for a record key");
        }
        ByteBuffer b = ByteBuffer.allocate(2 + 2 + gb.length + (mb == null ? 0 : 2 + mb.length));
        b.putShort(type).putShort((short) gb.length).put(gb);
        if (mb != null) b.putShort((short) mb.length).put(mb);
        return b.array();
    }

    private static Writer flexible() {
        return new Writer().int16(VALUE_VERSION);
    }

    /** Kafka's primitive types in the flexible encoding. */
    private static final class Writer {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream(64);

        Writer int8(byte v) {
            out.write(v);
            return this;
        }

        Writer int16(short v) {
            out.write(v >>> 8);
            out.write(v);
            return this;
        }

        Writer int32(int v) {
            out.write(v >>> 24);
            out.write(v >>> 16);
            out.write(v >>> 8);
            out.write(v);
            return this;
        }

        Writer int64(long v) {
            int32((int) (v >>> 32));
            return int32((int) v);
        }

        Writer uuid(UUID id) {
            int64(id.getMostSignificantBits());
            return int64(id.getLeastSignificantBits());
        }

        Writer uvarint(int v) {
            int value = v;
            while ((value & ~0x7f) != 0) {
                out.write((value & 0x7f) | 0x80);
                value >>>= 7;
            }
            out.write(value);
            return this;
        }

        Writer nullableString(String s) {
            if (s == null) return uvarint(0);
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            uvarint(b.length + 1);
            out.write(b, 0, b.length);
            return this;
        }

        /** Closes the value's top-level struct (no tagged fields) and returns its bytes. */
        byte[] end() {
            uvarint(0);
            return out.toByteArray();
        }
    }

    // ------------------------------------------------------------------ reading

    private static CoordinatorRecords.Reader value(byte[] value) {
        CoordinatorRecords.Reader r = new CoordinatorRecords.Reader(value, true);
        short version = r.int16();
        if (version != VALUE_VERSION) throw new IllegalArgumentException("unknown consumer group value version " + version);
        return r;
    }

    /** The epoch of a type 3 or type 6 value. */
    static int readEpoch(byte[] value) {
        CoordinatorRecords.Reader r = value(value);
        int epoch = r.int32();
        r.taggedFields();
        return epoch;
    }

    static void readMember(byte[] value, ConsumerGroupMember m) {
        CoordinatorRecords.Reader r = value(value);
        m.instanceId = r.nullableString();
        m.rackId = r.nullableString();
        m.clientId = orEmpty(r.nullableString());
        m.clientHost = orEmpty(r.nullableString());
        int n = r.arrayLength(1);
        List<String> names = new ArrayList<>(n);
        for (int i = 0; i < n; i++) names.add(r.string());
        m.subscribedTopicNames = List.copyOf(names);
        m.subscribedTopicRegex = r.nullableString();
        m.rebalanceTimeoutMs = r.int32();
        m.serverAssignor = r.nullableString();
        r.taggedFields();
    }

    static Map<UUID, Set<Integer>> readTarget(byte[] value) {
        CoordinatorRecords.Reader r = value(value);
        Map<UUID, Set<Integer>> out = readPartitions(r);
        r.taggedFields();
        return out;
    }

    static void readCurrentAssignment(byte[] value, ConsumerGroupMember m) {
        CoordinatorRecords.Reader r = value(value);
        m.memberEpoch = r.int32();
        m.previousMemberEpoch = r.int32();
        byte state = r.int8();
        m.state = switch (state) {
            case 0 -> ConsumerGroupMember.State.STABLE;
            case 1 -> ConsumerGroupMember.State.UNREVOKED_PARTITIONS;
            case 2 -> ConsumerGroupMember.State.UNRELEASED_PARTITIONS;
            default -> throw new IllegalArgumentException("unknown member state " + state);
        };
        m.assigned = readPartitions(r);
        m.pendingRevocation = readPartitions(r);
        r.taggedFields();
    }

    private static Map<UUID, Set<Integer>> readPartitions(CoordinatorRecords.Reader r) {
        int topics = r.arrayLength(17);
        Map<UUID, Set<Integer>> out = new TreeMap<>();
        for (int i = 0; i < topics; i++) {
            UUID id = r.uuid();
            int n = r.arrayLength(4);
            Set<Integer> parts = new TreeSet<>();
            for (int k = 0; k < n; k++) parts.add(r.int32());
            r.taggedFields();
            if (!parts.isEmpty()) out.put(id, parts);
        }
        return out;
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }
}
