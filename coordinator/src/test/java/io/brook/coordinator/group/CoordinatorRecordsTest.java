package io.brook.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

class CoordinatorRecordsTest {

    @Test
    void shouldRoundTripOffsetKeyAndValue() {
        byte[] key = CoordinatorRecords.offsetKey("grüppe", "topic", 7);
        assertThat(CoordinatorRecords.readKey(key)).isEqualTo(new CoordinatorRecords.OffsetKey("grüppe", "topic", 7));
        CoordinatorRecords.OffsetValue v = new CoordinatorRecords.OffsetValue(123L, 4, "meta", 99L);
        assertThat(CoordinatorRecords.readOffsetValue(CoordinatorRecords.offsetValue(v))).isEqualTo(v);
        // Kafka's metadata is not nullable: none is the empty string (what a commit stores anyway)
        CoordinatorRecords.OffsetValue nullMeta = new CoordinatorRecords.OffsetValue(1L, -1, null, 2L);
        assertThat(CoordinatorRecords.readOffsetValue(CoordinatorRecords.offsetValue(nullMeta)))
                .isEqualTo(new CoordinatorRecords.OffsetValue(1L, -1, "", 2L));
    }

    @Test
    void shouldRoundTripGroupValueWithMembers() {
        CoordinatorRecords.MemberValue m1 = new CoordinatorRecords.MemberValue("m1", "inst", "client", "/1.2.3.4", 300, 45,
                List.of(new Protocol("range", new byte[]{1, 2}), new Protocol("sticky", new byte[0])), new byte[]{9});
        CoordinatorRecords.MemberValue m2 = new CoordinatorRecords.MemberValue("m2", null, "c2", "h2", 1, 2, List.of(), null);
        CoordinatorRecords.GroupValue v = new CoordinatorRecords.GroupValue("consumer", 5, "range", "m1", 77L, List.of(m1, m2));
        byte[] key = CoordinatorRecords.groupKey("g");
        assertThat(CoordinatorRecords.readKey(key)).isEqualTo(new CoordinatorRecords.GroupKey("g"));
        CoordinatorRecords.GroupValue back = CoordinatorRecords.readGroupValue(CoordinatorRecords.groupValue(v));
        assertThat(back.protocolType()).isEqualTo("consumer");
        assertThat(back.generation()).isEqualTo(5);
        assertThat(back.protocolName()).isEqualTo("range");
        assertThat(back.leader()).isEqualTo("m1");
        assertThat(back.stateTimestamp()).isEqualTo(77L);
        assertThat(back.members()).hasSize(2);
        CoordinatorRecords.MemberValue b1 = back.members().get(0);
        assertThat(b1.instanceId()).isEqualTo("inst");
        // Kafka's layout keeps each member's subscription to the group's protocol only
        assertThat(b1.protocols()).extracting(Protocol::name).containsExactly("range");
        assertThat(b1.protocols().get(0).metadata()).containsExactly(1, 2);
        assertThat(b1.assignment()).containsExactly(9);
        assertThat(back.members().get(1).instanceId()).isNull();
        assertThat(back.members().get(1).assignment()).isEmpty();
    }

    @Test
    void shouldSkipUnknownKeyVersions() {
        assertThat(CoordinatorRecords.readKey(new byte[]{0, 9, 0, 0})).isNull();
    }

    @Test
    void shouldRejectHugeMemberCount() {
        byte[] value = CoordinatorRecords.groupValue(new CoordinatorRecords.GroupValue(null, 0, null, null, 0, List.of()));
        // Member count is the last int32; claim two billion members in a tiny buffer.
        value[value.length - 4] = 0x7f;
        assertThatThrownBy(() -> CoordinatorRecords.readGroupValue(value))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceeds remaining");
    }

    @Test
    void shouldReadKeysOfBrooksEarlierLayoutAsLegacy() {
        assertThat(CoordinatorRecords.readKey(LegacyCoordinatorRecords.offsetKey("g", "t", 7)))
                .isEqualTo(new CoordinatorRecords.Legacy(new CoordinatorRecords.OffsetKey("g", "t", 7)));
        assertThat(CoordinatorRecords.readKey(LegacyCoordinatorRecords.groupKey("g")))
                .isEqualTo(new CoordinatorRecords.Legacy(new CoordinatorRecords.GroupKey("g")));
        assertThat(CoordinatorRecords.readKey(LegacyCoordinatorRecords.groupKey("")))
                .isEqualTo(new CoordinatorRecords.Legacy(new CoordinatorRecords.GroupKey("")));
        // and Kafka's never as legacy, the empty group's included
        assertThat(CoordinatorRecords.readKey(CoordinatorRecords.groupKey(""))).isEqualTo(new CoordinatorRecords.GroupKey(""));
        assertThat(CoordinatorRecords.readKey(CoordinatorRecords.offsetKey("", "t", 0)))
                .isEqualTo(new CoordinatorRecords.OffsetKey("", "t", 0));
    }
}
