/**
 * The group coordinator: consumer groups of Kafka's classic protocol (JoinGroup, SyncGroup,
 * Heartbeat, LeaveGroup) and of KIP-848's consumer protocol (ConsumerGroupHeartbeat,
 * ConsumerGroupDescribe), and committed offsets (OffsetCommit, OffsetFetch, OffsetDelete), with
 * the admin APIs over them (ListGroups, DescribeGroups, DeleteGroups). It runs on the
 * {@link io.brook.coordinator.runtime coordinator runtime}: one owner thread, keyed timers, state
 * written to and replayed from {@code __consumer_offsets} through a
 * {@link io.brook.coordinator.runtime.CoordinatorLog}.
 *
 * <h2>Public surface</h2>
 * <ul>
 *   <li>{@link io.brook.coordinator.group.GroupCoordinator}: one method per API, taking the
 *       generated request message and its version and returning a future of the response message;
 *       {@code start()} starts serving and loading {@code __consumer_offsets} in the background
 *       (COORDINATOR_LOAD_IN_PROGRESS for a group until its partition is loaded; the class comment
 *       has Kafka's answer per API), {@code close()} stops.</li>
 *   <li>{@link io.brook.coordinator.group.GroupCoordinatorConfig}: Kafka's config names and defaults.</li>
 * </ul>
 *
 * <h2>Inside</h2>
 * {@code ClassicMembership} answers the membership requests and {@code Rebalance} moves a group from
 * generation to generation (join phase, sync phase, session timeouts); {@code GroupOffsets} commits,
 * fetches, deletes and expires offsets; {@code GroupAdmin} describes, lists and deletes groups;
 * {@code GroupReplay} rebuilds all of it from what the runtime's loader reads after a start. {@code ClassicGroups}, {@code ClassicGroup}
 * and {@code GroupMember} hold the state, {@code GroupState} its states and transitions,
 * {@code CoordinatorRecords} the record layouts (Kafka's own, so Kafka's offsets formatter and
 * Burrow read the topic; {@code LegacyCoordinatorRecords} reads Brook's earlier one, which
 * {@code GroupReplay} moves to Kafka's at start-up), {@code ConsumerSubscription} the reader of
 * consumer subscriptions. A KIP-848 consumer group is a {@code ClassicGroup} whose {@code modern}
 * part ({@code ConsumerGroup}, {@code ConsumerGroupMember}) holds the membership:
 * {@code ConsumerGroupHeartbeats} answers its heartbeats and runs its timers,
 * {@code ServerAssignors} computes the target assignment, {@code ConsumerReconciliation} hands it
 * out without two owners of a partition, {@code ConsumerGroupDescriptions} describes it, and
 * {@code ConsumerGroupRecords} writes and reads its records (Kafka's layout). The request and result records ({@code JoinRequest},
 * {@code JoinResult}, ...) are what {@code GroupCoordinator} translates wire messages to and from.
 * Everything but the two public classes is confined to the coordinator thread.
 *
 * <h2>Partitioning</h2>
 * A group's records live in partition {@code abs(groupId.hashCode()) % offsets.topic.num.partitions}
 * of {@code __consumer_offsets} (Kafka's formula; 50 partitions by default, as in Kafka). On a
 * single node every partition is served by the one coordinator; the partitioning only spreads
 * writes over several logs (and fsyncs) and keeps each log small for compaction and replay.
 */
package io.brook.coordinator.group;
