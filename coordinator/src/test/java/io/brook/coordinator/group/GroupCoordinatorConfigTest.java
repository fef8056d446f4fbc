package io.brook.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;

class GroupCoordinatorConfigTest {

    @Test
    void shouldUseKafkaDefaults() {
        GroupCoordinatorConfig c = GroupCoordinatorConfig.fromConfigs(Map.of());
        assertThat(c).isEqualTo(GroupCoordinatorConfig.defaults());
        assertThat(c.initialRebalanceDelayMs()).isEqualTo(3_000);
        assertThat(c.minSessionTimeoutMs()).isEqualTo(6_000);
        assertThat(c.maxSessionTimeoutMs()).isEqualTo(1_800_000);
        assertThat(c.offsetMetadataMaxSize()).isEqualTo(4096);
        assertThat(c.offsetsRetentionMs()).isEqualTo(10_080L * 60_000);
        assertThat(c.offsetsTopicPartitions()).isEqualTo(50);
    }

    @Test
    void shouldReadKafkaNames() {
        GroupCoordinatorConfig c = GroupCoordinatorConfig.fromConfigs(Map.of(
                "group.initial.rebalance.delay.ms", "0", "group.max.size", "10", "offsets.retention.minutes", "1",
                "offsets.topic.num.partitions", "1", "offset.metadata.max.bytes", "100", "unrelated", "x"));
        assertThat(c.initialRebalanceDelayMs()).isZero();
        assertThat(c.maxGroupSize()).isEqualTo(10);
        assertThat(c.offsetsRetentionMs()).isEqualTo(60_000);
        assertThat(c.offsetsTopicPartitions()).isEqualTo(1);
        assertThat(c.offsetMetadataMaxSize()).isEqualTo(100);
    }

    @Test
    void shouldRejectBadValues() {
        assertThatThrownBy(() -> GroupCoordinatorConfig.fromConfigs(Map.of("group.max.size", "many")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("group.max.size");
        assertThatThrownBy(() -> GroupCoordinatorConfig.fromConfigs(Map.of("offsets.topic.num.partitions", "0")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> GroupCoordinatorConfig.fromConfigs(Map.of(
                "group.min.session.timeout.ms", "10", "group.max.session.timeout.ms", "5")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> GroupCoordinatorConfig.fromConfigs(Map.of("group.max.size", "9999999999")))
                .isInstanceOf(IllegalArgumentException.class);
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
}
