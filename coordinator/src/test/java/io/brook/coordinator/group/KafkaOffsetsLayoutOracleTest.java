package io.brook.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.protocol.types.ArrayOf;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.Type;
import org.junit.jupiter.api.Test;

/**
 * The records of {@code __consumer_offsets} against kafka-clients' own encoders of Kafka's
 * protocol types: the layouts below are those of Kafka's OffsetCommitKey v1, OffsetCommitValue v1
 * and v3, GroupMetadataKey v2 and GroupMetadataValue v3 (the versions Kafka 4.x writes), built
 * from kafka-clients' {@link Schema} types. What Brook writes, Kafka's types read to the last
 * byte with the same values; what they write, Brook reads.
 */
class KafkaOffsetsLayoutOracleTest {

    private static final Schema OFFSET_KEY = new Schema(new Field("group", Type.STRING), new Field("topic", Type.STRING),
            new Field("partition", Type.INT32));
    private static final Schema OFFSET_VALUE_V3 = new Schema(new Field("offset", Type.INT64),
            new Field("leader_epoch", Type.INT32), new Field("metadata", Type.STRING),
            new Field("commit_timestamp", Type.INT64));
    private static final Schema OFFSET_VALUE_V1 = new Schema(new Field("offset", Type.INT64),
            new Field("metadata", Type.STRING), new Field("commit_timestamp", Type.INT64),
            new Field("expire_timestamp", Type.INT64));
    private static final Schema GROUP_KEY = new Schema(new Field("group", Type.STRING));
    private static final Schema MEMBER_V3 = new Schema(new Field("member_id", Type.STRING),
            new Field("group_instance_id", Type.NULLABLE_STRING), new Field("client_id", Type.STRING),
            new Field("client_host", Type.STRING), new Field("rebalance_timeout", Type.INT32),
            new Field("session_timeout", Type.INT32), new Field("subscription", Type.BYTES),
            new Field("assignment", Type.BYTES));
    private static final Schema GROUP_VALUE_V3 = new Schema(new Field("protocol_type", Type.STRING),
            new Field("generation", Type.INT32), new Field("protocol", Type.NULLABLE_STRING),
            new Field("leader", Type.NULLABLE_STRING), new Field("current_state_timestamp", Type.INT64),
            new Field("members", new ArrayOf(MEMBER_V3)));

    @Test
    void offsetCommitRecordsAreKafkasKeyV1AndValueV3() {
        Struct key = read(CoordinatorRecords.offsetKey("grüppe", "orders", 7), 1, OFFSET_KEY);
        assertThat(key.getString("group")).isEqualTo("grüppe");
        assertThat(key.getString("topic")).isEqualTo("orders");
        assertThat(key.getInt("partition")).isEqualTo(7);

        Struct value = read(CoordinatorRecords.offsetValue(new CoordinatorRecords.OffsetValue(123L, 4, "meta", 99L)), 3,
                OFFSET_VALUE_V3);
        assertThat(value.getLong("offset")).isEqualTo(123L);
        assertThat(value.getInt("leader_epoch")).isEqualTo(4);
        assertThat(value.getString("metadata")).isEqualTo("meta");
        assertThat(value.getLong("commit_timestamp")).isEqualTo(99L);
        // no metadata is Kafka's empty string (its field is not nullable)
        assertThat(read(CoordinatorRecords.offsetValue(new CoordinatorRecords.OffsetValue(1L, -1, null, 2L)), 3,
                OFFSET_VALUE_V3).getString("metadata")).isEmpty();
    }

    @Test
    void readsOffsetRecordsKafkaWrote() {
        Struct key = new Struct(OFFSET_KEY).set("group", "g").set("topic", "t").set("partition", 3);
        assertThat(CoordinatorRecords.readKey(write(1, key))).isEqualTo(new CoordinatorRecords.OffsetKey("g", "t", 3));
        assertThat(CoordinatorRecords.readKey(write(0, key))).isEqualTo(new CoordinatorRecords.OffsetKey("g", "t", 3));
        Struct v3 = new Struct(OFFSET_VALUE_V3).set("offset", 42L).set("leader_epoch", 5).set("metadata", "m")
                .set("commit_timestamp", 1000L);
        assertThat(CoordinatorRecords.readOffsetValue(write(3, v3)))
                .isEqualTo(new CoordinatorRecords.OffsetValue(42L, 5, "m", 1000L));
        Struct v1 = new Struct(OFFSET_VALUE_V1).set("offset", 7L).set("metadata", "").set("commit_timestamp", 10L)
                .set("expire_timestamp", 20L);
        assertThat(CoordinatorRecords.readOffsetValue(write(1, v1)))
                .isEqualTo(new CoordinatorRecords.OffsetValue(7L, -1, "", 10L));
    }

    @Test
    void groupMetadataRecordsAreKafkasKeyV2AndValueV3() {
        assertThat(read(CoordinatorRecords.groupKey("g"), 2, GROUP_KEY).getString("group")).isEqualTo("g");
        CoordinatorRecords.MemberValue m1 = new CoordinatorRecords.MemberValue("m1", "inst", "client", "/1.2.3.4", 300, 45,
                List.of(new Protocol("sticky", new byte[] {7}), new Protocol("range", new byte[] {1, 2})), new byte[] {9});
        CoordinatorRecords.MemberValue m2 = new CoordinatorRecords.MemberValue("m2", null, "c2", "h2", 1, 2, List.of(), null);
        Struct v = read(CoordinatorRecords.groupValue(
                new CoordinatorRecords.GroupValue("consumer", 5, "range", "m1", 77L, List.of(m1, m2))), 3, GROUP_VALUE_V3);
        assertThat(v.getString("protocol_type")).isEqualTo("consumer");
        assertThat(v.getInt("generation")).isEqualTo(5);
        assertThat(v.getString("protocol")).isEqualTo("range");
        assertThat(v.getString("leader")).isEqualTo("m1");
        assertThat(v.getLong("current_state_timestamp")).isEqualTo(77L);
        Object[] members = v.getArray("members");
        assertThat(members).hasSize(2);
        Struct first = (Struct) members[0];
        assertThat(first.getString("member_id")).isEqualTo("m1");
        assertThat(first.getString("group_instance_id")).isEqualTo("inst");
        assertThat(first.getString("client_id")).isEqualTo("client");
        assertThat(first.getString("client_host")).isEqualTo("/1.2.3.4");
        assertThat(first.getInt("rebalance_timeout")).isEqualTo(300);
        assertThat(first.getInt("session_timeout")).isEqualTo(45);
        // the subscription Kafka keeps is that of the group's protocol
        assertThat(bytes(first.getBytes("subscription"))).containsExactly(1, 2);
        assertThat(bytes(first.getBytes("assignment"))).containsExactly(9);
        Struct second = (Struct) members[1];
        assertThat(second.getString("group_instance_id")).isNull();
        assertThat(bytes(second.getBytes("assignment"))).isEmpty();

        // a group that never had a member (standalone commits): no protocol type, no protocol
        Struct simple = read(CoordinatorRecords.groupValue(new CoordinatorRecords.GroupValue(null, 0, null, null, 5L,
                List.of())), 3, GROUP_VALUE_V3);
        assertThat(simple.getString("protocol_type")).isEmpty();
        assertThat(simple.getString("protocol")).isNull();
    }

    @Test
    void readsGroupRecordsKafkaWrote() {
        assertThat(CoordinatorRecords.readKey(write(2, new Struct(GROUP_KEY).set("group", "g"))))
                .isEqualTo(new CoordinatorRecords.GroupKey("g"));
        Struct member = new Struct(MEMBER_V3).set("member_id", "m").set("group_instance_id", null)
                .set("client_id", "c").set("client_host", "/h").set("rebalance_timeout", 60000)
                .set("session_timeout", 45000).set("subscription", ByteBuffer.wrap(new byte[] {3}))
                .set("assignment", ByteBuffer.wrap(new byte[] {4, 5}));
        Struct value = new Struct(GROUP_VALUE_V3).set("protocol_type", "consumer").set("generation", 2)
                .set("protocol", "range").set("leader", "m").set("current_state_timestamp", 123L)
                .set("members", new Object[] {member});
        CoordinatorRecords.GroupValue v = CoordinatorRecords.readGroupValue(write(3, value));
        assertThat(v.protocolType()).isEqualTo("consumer");
        assertThat(v.generation()).isEqualTo(2);
        assertThat(v.protocolName()).isEqualTo("range");
        assertThat(v.leader()).isEqualTo("m");
        assertThat(v.stateTimestamp()).isEqualTo(123L);
        CoordinatorRecords.MemberValue m = v.members().get(0);
        assertThat(m.memberId()).isEqualTo("m");
        assertThat(m.instanceId()).isNull();
        assertThat(m.clientHost()).isEqualTo("/h");
        assertThat(m.rebalanceTimeoutMs()).isEqualTo(60000);
        assertThat(m.sessionTimeoutMs()).isEqualTo(45000);
        assertThat(m.protocols()).extracting(Protocol::name).containsExactly("range");
        assertThat(m.protocols().get(0).metadata()).containsExactly(3);
        assertThat(m.assignment()).containsExactly(4, 5);
    }

    /** Reads {@code bytes} as Kafka does: the int16 version, then the schema, to the last byte. */
    private static Struct read(byte[] bytes, int version, Schema schema) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        assertThat(b.getShort()).as("version").isEqualTo((short) version);
        Struct s = schema.read(b);
        assertThat(b.remaining()).as("bytes left over").isZero();
        return s;
    }

    private static byte[] write(int version, Struct s) {
        ByteBuffer b = ByteBuffer.allocate(2 + s.sizeOf());
        b.putShort((short) version);
        s.writeTo(b);
        return b.array();
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
