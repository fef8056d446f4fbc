package io.brook.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.types.CompactArrayOf;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.Type;
import org.junit.jupiter.api.Test;

/**
 * The records of KIP-848 consumer groups against kafka-clients' own encoders of Kafka's protocol
 * types: keys in the classic encoding after their record type, values version 0 in the flexible
 * encoding, field by field as Kafka's ConsumerGroupMetadataValue, ConsumerGroupMemberMetadataValue,
 * ConsumerGroupTargetAssignmentMemberValue and ConsumerGroupCurrentMemberAssignmentValue lay them
 * out. What Brook writes, Kafka's types read to the last byte; a record Kafka's types write (with a
 * tagged field Brook does not know) Brook reads.
 */
class ConsumerGroupRecordsOracleTest {

    private static final Field.TaggedFieldsSection TAGS = Field.TaggedFieldsSection.of();
    private static final Schema EPOCH_VALUE = new Schema(new Field("epoch", Type.INT32), TAGS);
    private static final Schema MEMBER_VALUE = new Schema(new Field("instance_id", Type.COMPACT_NULLABLE_STRING),
            new Field("rack_id", Type.COMPACT_NULLABLE_STRING), new Field("client_id", Type.COMPACT_STRING),
            new Field("client_host", Type.COMPACT_STRING),
            new Field("subscribed_topic_names", new CompactArrayOf(Type.COMPACT_STRING)),
            new Field("subscribed_topic_regex", Type.COMPACT_NULLABLE_STRING),
            new Field("rebalance_timeout_ms", Type.INT32), new Field("server_assignor", Type.COMPACT_NULLABLE_STRING), TAGS);
    private static final Schema TOPIC_PARTITIONS = new Schema(new Field("topic_id", Type.UUID),
            new Field("partitions", new CompactArrayOf(Type.INT32)), TAGS);
    private static final Schema TARGET_VALUE = new Schema(new Field("topic_partitions", new CompactArrayOf(TOPIC_PARTITIONS)), TAGS);
    private static final Schema CURRENT_VALUE = new Schema(new Field("member_epoch", Type.INT32),
            new Field("previous_member_epoch", Type.INT32), new Field("state", Type.INT8),
            new Field("assigned_partitions", new CompactArrayOf(TOPIC_PARTITIONS)),
            new Field("partitions_pending_revocation", new CompactArrayOf(TOPIC_PARTITIONS)), TAGS);
    private static final Schema MEMBER_KEY = new Schema(new Field("group_id", Type.STRING), new Field("member_id", Type.STRING));
    private static final Schema GROUP_KEY = new Schema(new Field("group_id", Type.STRING));

    private static final UUID ORDERS = new UUID(1, 2);

    private static ClassicGroup group() {
        ClassicGroup g = new ClassicGroup("grüppe", 7, 0L);
        g.modern = new ConsumerGroup();
        g.modern.groupEpoch = 12;
        g.modern.assignmentEpoch = 11;
        return g;
    }

    private static ConsumerGroupMember member() {
        ConsumerGroupMember m = new ConsumerGroupMember("member-1");
        m.instanceId = "instance-1";
        m.clientId = "client";
        m.clientHost = "/127.0.0.1";
        m.subscribedTopicNames = List.of("orders", "payments");
        m.subscribedTopicRegex = "audit-.*";
        m.rebalanceTimeoutMs = 300_000;
        m.serverAssignor = "range";
        m.memberEpoch = 12;
        m.previousMemberEpoch = 11;
        m.state = ConsumerGroupMember.State.UNREVOKED_PARTITIONS;
        m.assigned = Map.of(ORDERS, new TreeSet<>(Set.of(0, 2)));
        m.pendingRevocation = Map.of(ORDERS, new TreeSet<>(Set.of(1)));
        return m;
    }

    @Test
    void keysAreKafkasTypesThreeToEight() {
        ClassicGroup g = group();
        ByteBuffer epochKey = ByteBuffer.wrap(ConsumerGroupRecords.groupEpoch(g).key());
        assertThat(epochKey.getShort()).isEqualTo((short) 3);
        assertThat(GROUP_KEY.read(epochKey).getString("group_id")).isEqualTo("grüppe");
        ByteBuffer memberKey = ByteBuffer.wrap(ConsumerGroupRecords.member(g, member()).key());
        assertThat(memberKey.getShort()).isEqualTo((short) 5);
        Struct k = MEMBER_KEY.read(memberKey);
        assertThat(k.getString("group_id")).isEqualTo("grüppe");
        assertThat(k.getString("member_id")).isEqualTo("member-1");
        assertThat(memberKey.remaining()).isZero();
        assertThat(ByteBuffer.wrap(ConsumerGroupRecords.targetEpoch(g).key()).getShort()).isEqualTo((short) 6);
        assertThat(ByteBuffer.wrap(ConsumerGroupRecords.targetMember(g, "m", Map.of()).key()).getShort()).isEqualTo((short) 7);
        assertThat(ByteBuffer.wrap(ConsumerGroupRecords.currentAssignment(g, member()).key()).getShort()).isEqualTo((short) 8);
        assertThat(CoordinatorRecords.readKey(ConsumerGroupRecords.member(g, member()).key()))
                .isEqualTo(new ConsumerGroupRecords.ModernKey((short) 5, "grüppe", "member-1"));
    }

    @Test
    void valuesAreKafkasFlexibleLayouts() {
        ClassicGroup g = group();
        assertThat(read(ConsumerGroupRecords.groupEpoch(g).value(), EPOCH_VALUE).getInt("epoch")).isEqualTo(12);
        assertThat(read(ConsumerGroupRecords.targetEpoch(g).value(), EPOCH_VALUE).getInt("epoch")).isEqualTo(11);

        Struct m = read(ConsumerGroupRecords.member(g, member()).value(), MEMBER_VALUE);
        assertThat(m.getString("instance_id")).isEqualTo("instance-1");
        assertThat(m.getString("rack_id")).isNull();
        assertThat(m.getString("client_id")).isEqualTo("client");
        assertThat(m.getString("client_host")).isEqualTo("/127.0.0.1");
        assertThat(m.getArray("subscribed_topic_names")).containsExactly("orders", "payments");
        assertThat(m.getString("subscribed_topic_regex")).isEqualTo("audit-.*");
        assertThat(m.getInt("rebalance_timeout_ms")).isEqualTo(300_000);
        assertThat(m.getString("server_assignor")).isEqualTo("range");

        Struct c = read(ConsumerGroupRecords.currentAssignment(g, member()).value(), CURRENT_VALUE);
        assertThat(c.getInt("member_epoch")).isEqualTo(12);
        assertThat(c.getInt("previous_member_epoch")).isEqualTo(11);
        assertThat(c.get("state")).isEqualTo((byte) 1);
        assertThat(partitions(c.getArray("assigned_partitions"))).isEqualTo(Map.of(ORDERS, Set.of(0, 2)));
        assertThat(partitions(c.getArray("partitions_pending_revocation"))).isEqualTo(Map.of(ORDERS, Set.of(1)));

        Struct t = read(ConsumerGroupRecords.targetMember(g, "m", Map.of(ORDERS, Set.of(3))).value(), TARGET_VALUE);
        assertThat(partitions(t.getArray("topic_partitions"))).isEqualTo(Map.of(ORDERS, Set.of(3)));
    }

    @Test
    void whatKafkasTypesWriteBrookReads() {
        Struct tp = new Struct(TOPIC_PARTITIONS).set("topic_id", new Uuid(1, 2)).set("partitions", new Object[] {4, 5})
                .set(TAGS.name, new TreeMap<>());
        Struct current = new Struct(CURRENT_VALUE).set("member_epoch", 7).set("previous_member_epoch", 6)
                .set("state", (byte) 2).set("assigned_partitions", new Object[] {tp})
                .set("partitions_pending_revocation", new Object[0]).set(TAGS.name, new TreeMap<>());
        ConsumerGroupMember read = new ConsumerGroupMember("x");
        ConsumerGroupRecords.readCurrentAssignment(write(current), read);
        assertThat(read.memberEpoch).isEqualTo(7);
        assertThat(read.previousMemberEpoch).isEqualTo(6);
        assertThat(read.state).isEqualTo(ConsumerGroupMember.State.UNRELEASED_PARTITIONS);
        assertThat(read.assigned).isEqualTo(Map.of(ORDERS, Set.of(4, 5)));
        assertThat(read.pendingRevocation).isEmpty();

        Struct member = new Struct(MEMBER_VALUE).set("instance_id", null).set("rack_id", "rack-a").set("client_id", "c")
                .set("client_host", "/10.0.0.1").set("subscribed_topic_names", new Object[] {"orders"})
                .set("subscribed_topic_regex", null).set("rebalance_timeout_ms", 1000).set("server_assignor", null);
        // a tagged field Brook does not know (Kafka's classic member metadata is tag 0)
        member.set(TAGS.name, new TreeMap<>(Map.of(0, new org.apache.kafka.common.protocol.types.RawTaggedField(0, new byte[] {1, 2, 3}))));
        ConsumerGroupMember m = new ConsumerGroupMember("y");
        ConsumerGroupRecords.readMember(write(member), m);
        assertThat(m.instanceId).isNull();
        assertThat(m.rackId).isEqualTo("rack-a");
        assertThat(m.subscribedTopicNames).containsExactly("orders");
        assertThat(m.rebalanceTimeoutMs).isEqualTo(1000);
    }

    private static Map<UUID, Set<Integer>> partitions(Object[] topics) {
        Map<UUID, Set<Integer>> out = new TreeMap<>();
        for (Object o : topics) {
            Struct s = (Struct) o;
            Uuid id = (Uuid) s.get("topic_id");
            Set<Integer> parts = new TreeSet<>();
            for (Object p : s.getArray("partitions")) parts.add((Integer) p);
            out.put(new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits()), parts);
        }
        return out;
    }

    private static Struct read(byte[] bytes, Schema schema) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        assertThat(b.getShort()).as("version").isZero();
        Struct s = schema.read(b);
        assertThat(b.remaining()).as("bytes left over").isZero();
        return s;
    }

    private static byte[] write(Struct s) {
        ByteBuffer b = ByteBuffer.allocate(2 + s.sizeOf());
        b.putShort((short) 0);
        s.writeTo(b);
        return b.array();
    }

}
