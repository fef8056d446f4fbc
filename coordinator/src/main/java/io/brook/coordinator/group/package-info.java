/**
 * The group coordinator: consumer groups of Kafka's classic protocol (JoinGroup, SyncGroup,
 * Heartbeat, LeaveGroup) and committed offsets (OffsetCommit, OffsetFetch, OffsetDelete), with
 * the admin APIs over them (ListGroups, DescribeGroups, DeleteGroups).
 *
 * <h2>Public surface</h2>
 * <ul>
 *   <li>{@link io.brook.coordinator.group.GroupCoordinator}: one method per API, taking the
 *       generated request message and its version and returning a future of the response message;
 *       {@code start()} replays {@code __consumer_offsets}, {@code close()} stops.</li>
 *   <li>{@link io.brook.coordinator.group.GroupCoordinatorConfig}: Kafka's config names and defaults.</li>
 *   <li>{@link io.brook.coordinator.group.CoordinatorLog}: where state is kept;
 *       {@link io.brook.coordinator.group.StorageCoordinatorLog} over storage's partition logs,
 *       {@link io.brook.coordinator.group.InMemoryCoordinatorLog} for tests and for a broker
 *       without persistence.</li>
 * </ul>
 *
 * <h2>Inside</h2>
 * {@code GroupManager} holds the state machine and the offsets, {@code ClassicGroup} and
 * {@code GroupMember} the state, {@code EventLoop} the single owner thread (JCTools MPSC queue)
 * and its timers (driven by an injected {@link java.time.Clock}), {@code CoordinatorRecords} the
 * on-disk record layouts, {@code ConsumerSubscription} the reader of consumer subscriptions.
 *
 * <h2>Partitioning</h2>
 * A group's records live in partition {@code abs(groupId.hashCode()) % offsets.topic.num.partitions}
 * of {@code __consumer_offsets} (Kafka's formula; 50 partitions by default, as in Kafka). On a
 * single node every partition is served by the one coordinator; the partitioning only spreads
 * writes over several logs (and fsyncs) and keeps each log small for compaction and replay.
 */
package io.brook.coordinator.group;
