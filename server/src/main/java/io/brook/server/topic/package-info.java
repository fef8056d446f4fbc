/**
 * The broker's topics. Each class has one role:
 * <ul>
 *   <li>{@link io.brook.server.topic.Topics}: the one entry point — what exists, kept in step with
 *       what is stored; creation, deletion, growth and reconfiguration, serialised.</li>
 *   <li>{@link io.brook.server.topic.TopicRegistry}: the durable list of topics
 *       ({@code meta/topics}), replaced atomically and forced on every change; the topics one
 *       request creates are one change.</li>
 *   <li>{@link io.brook.server.topic.PartitionLogs}: the storage module's log manager opened with
 *       the broker's settings, addressed by topic partition.</li>
 *   <li>{@link io.brook.server.topic.TopicConfigResolver}: a topic's effective config from Kafka's
 *       defaults, the broker's settings and the topic's overrides, and where each value came from.</li>
 *   <li>{@link io.brook.server.topic.TopicIds}: topics named by id (KIP-516) in requests, resolved
 *       to names, and the errors for ids that name no topic.</li>
 *   <li>{@link io.brook.server.topic.Topic}, {@link io.brook.server.topic.TopicPartition},
 *       {@link io.brook.server.topic.TopicNames}: values and naming rules.</li>
 * </ul>
 * Lookups are lock-free and run on any thread, event loops included; changes create, force or
 * delete files and run on the I/O pool (or the group coordinator's thread, for
 * {@code __consumer_offsets}).
 */
package io.brook.server.topic;
