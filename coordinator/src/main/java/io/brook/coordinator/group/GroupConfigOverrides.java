package io.brook.coordinator.group;

import java.util.Map;

/**
 * The settings an operator gave one group ({@code kafka-configs.sh --entity-type groups}), by
 * group id: for KIP-848 consumer groups {@code consumer.session.timeout.ms} and
 * {@code consumer.heartbeat.interval.ms}, which replace the broker's
 * {@code group.consumer.session.timeout.ms} and {@code group.consumer.heartbeat.interval.ms} for
 * that group ({@link ConsumerGroupConfig#forGroup}). The values were checked when they were set;
 * the coordinator reads them at every heartbeat, so a change applies from a member's next one.
 * Called on the coordinator's thread; implementations are thread-safe.
 */
@FunctionalInterface
public interface GroupConfigOverrides {

    /** No group has settings of its own. */
    GroupConfigOverrides NONE = groupId -> Map.of();

    /** The settings of group {@code groupId} (empty when it has none). */
    Map<String, String> of(String groupId);
}
