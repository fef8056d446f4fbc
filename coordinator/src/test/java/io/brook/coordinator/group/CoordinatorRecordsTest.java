package io.brook.coordinator.group;

import io.brook.testkit.MutableClock;
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
        CoordinatorRecords.OffsetValue nullMeta = new CoordinatorRecords.OffsetValue(1L, -1, null, 2L);
        assertThat(CoordinatorRecords.readOffsetValue(CoordinatorRecords.offsetValue(nullMeta))).isEqualTo(nullMeta);
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
        assertThat(b1.protocols()).extracting(Protocol::name).containsExactly("range", "sticky");
        assertThat(b1.protocols().get(0).metadata()).containsExactly(1, 2);
        assertThat(b1.assignment()).containsExactly(9);
        assertThat(back.members().get(1).instanceId()).isNull();
        assertThat(back.members().get(1).assignment()).isNull();
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
    void shouldSkipMalformedRecordsOnReplay() {
        InMemoryCoordinatorLog log = new InMemoryCoordinatorLog();
        log.append(0, List.of(
                new CoordinatorRecord(0, new byte[]{0, 1, 0}, new byte[]{1}),
                new CoordinatorRecord(0, CoordinatorRecords.offsetKey("g", "t", 0),
                        CoordinatorRecords.offsetValue(new CoordinatorRecords.OffsetValue(5, -1, "", 0))))).join();
        GroupHarness h = new GroupHarness(GroupHarness.config(), log, new MutableClock(0));
        assertThat(h.coordinator.manager().replaySkipped()).isEqualTo(1);
        assertThat(h.committed("g", "t", 0)).isEqualTo(5);
    }

    @Test
    void shouldReadConsumerSubscriptionTopicsAndRejectGarbage() {
        assertThat(ConsumerSubscription.topics(GroupHarness.subscription("a", "b"))).containsExactlyInAnyOrder("a", "b");
        assertThat(ConsumerSubscription.topics(new byte[]{0, 0, 0x7f, 0, 0, 0})).isNull();
        assertThat(ConsumerSubscription.topics(new byte[]{0, 0, 0, 0, 0, 1, 0, 9, 'x'})).isNull();
        assertThat(ConsumerSubscription.topics(new byte[]{1})).isNull();
        assertThat(ConsumerSubscription.topics(null)).isNull();
    }

    @Test
    void shouldMapGroupsToPartitionsLikeKafka() {
        GroupCoordinatorConfig c = GroupCoordinatorConfig.defaults();
        assertThat(c.offsetsTopicPartitions()).isEqualTo(50);
        // "polygenelubricants".hashCode() == Integer.MIN_VALUE: abs would overflow.
        assertThat("polygenelubricants".hashCode()).isEqualTo(Integer.MIN_VALUE);
        assertThat(c.partitionFor("polygenelubricants")).isZero();
        assertThat(c.partitionFor("my-group")).isEqualTo(Math.abs("my-group".hashCode()) % 50);
    }

    @Test
    void shouldMapStorageErrorsOfOffsetWritesLikeKafka() {
        assertThat(GroupManager.commitAppendError(new StorageCoordinatorLog.CoordinatorLogException(
                io.brook.wire.protocol.Errors.MESSAGE_TOO_LARGE, "big"))).isEqualTo(io.brook.wire.protocol.Errors.INVALID_COMMIT_OFFSET_SIZE);
        assertThat(GroupManager.commitAppendError(new java.util.concurrent.CompletionException(new StorageCoordinatorLog.CoordinatorLogException(
                io.brook.wire.protocol.Errors.KAFKA_STORAGE_ERROR, "disk")))).isEqualTo(io.brook.wire.protocol.Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(GroupManager.commitAppendError(new IllegalStateException())).isEqualTo(io.brook.wire.protocol.Errors.COORDINATOR_NOT_AVAILABLE);
    }
}
