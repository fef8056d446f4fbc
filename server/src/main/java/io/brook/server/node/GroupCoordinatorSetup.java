package io.brook.server.node;

import io.brook.coordinator.group.ConsumerGroupTopics;
import io.brook.coordinator.group.GroupConfigOverrides;
import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.GroupCoordinatorConfig;
import io.brook.coordinator.runtime.CoordinatorLog;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.ReplayChunk;
import io.brook.coordinator.runtime.StorageCoordinatorLog;
import io.brook.server.config.BrokerConfig;
import io.brook.server.topic.Topic;
import io.brook.server.topic.TopicNames;
import io.brook.server.topic.Topics;
import io.brook.storage.Log;
import io.brook.storage.LogConfig;
import io.brook.wire.record.Compression;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Creates the group coordinator at broker start-up over the {@code __consumer_offsets} topic.
 *
 * <p>{@code __consumer_offsets} is a registered topic like any other (so Metadata lists it, with
 * {@code is_internal = true}, and its logs are opened, recovered and compacted with the others).
 * As in Kafka it is created when it is first needed — here on the coordinator's first write —
 * with {@code offsets.topic.num.partitions} partitions and {@code cleanup.policy=compact}, so a
 * broker that never sees a consumer group never has it. Once it exists its partition count is
 * what counts: changing the setting later would move groups to other partitions, so it is
 * ignored, as in Kafka. Clients cannot create it, produce to it, delete records from it, delete it
 * or add partitions to it (see the CreateTopics, Produce, DeleteRecords, DeleteTopics and
 * CreatePartitions handlers).
 *
 * <p>The coordinator loads the topic in the background once started (see {@link GroupCoordinator}):
 * the broker serves Produce, Fetch and Metadata at once, group requests get
 * COORDINATOR_LOAD_IN_PROGRESS until their partition is loaded, and nothing the topic holds (an
 * unreadable partition included) keeps the broker from starting.
 */
public final class GroupCoordinatorSetup {

    private GroupCoordinatorSetup() {
    }

    /**
     * A started coordinator, loading {@code __consumer_offsets} (when it exists) in the background.
     * On a node of a cluster ({@link BrokerConfig#clustered()}) it starts owning no partition of
     * {@code __consumer_offsets} (every group gets NOT_COORDINATOR) until {@link #follow} hands it
     * the leadership of this node.
     *
     * @param loadExecutor runs the reads of the load; null for the coordinator's own thread
     * @param groupConfigs the groups' own settings (kafka-configs.sh --entity-type groups)
     */
    public static GroupCoordinator start(BrokerConfig brokerConfig, Topics topics, Clock clock, Executor loadExecutor,
            GroupConfigOverrides groupConfigs) {
        GroupCoordinatorConfig config = brokerConfig.groupCoordinator();
        Topic existing = topics.get(TopicNames.CONSUMER_OFFSETS);
        if (existing != null) {
            config = config.withOffsetsTopicPartitions(existing.partitions());
        }
        GroupCoordinator coordinator = new GroupCoordinator(config,
                new OffsetsTopicLog(topics, config.offsetsTopicPartitions(), topicConfigs(brokerConfig),
                        Compression.forId(brokerConfig.intValue(BrokerConfig.OFFSETS_TOPIC_COMPRESSION_CODEC)), clock), clock,
                loadExecutor);
        if (brokerConfig.clustered()) {
            coordinator.own(Set.of());
        }
        coordinator.consumerGroupSources(new GroupTopics(topics), groupConfigs);
        coordinator.start();
        return coordinator;
    }

    /**
     * Cluster mode (docs/cluster.md, section 7): from now on {@code coordinator} serves the groups
     * of the partitions of {@code __consumer_offsets} this node leads, and follows every change of
     * that set (a partition gained is loaded, one lost is dropped). Every node must then have the
     * same {@code offsets.topic.num.partitions}, unless the topic existed when it started: a
     * group's partition is its id's hash modulo that count.
     */
    public static void follow(GroupCoordinator coordinator, PartitionLeadership leadership) {
        Object order = new Object();
        // read and handed over under one lock, so that an older set never overtakes a newer one
        Runnable sync = () -> {
            synchronized (order) {
                coordinator.own(leadership.ledPartitions(TopicNames.CONSUMER_OFFSETS));
            }
        };
        leadership.onChange(sync);
        sync.run();
    }

    /** The broker's topics as KIP-848 consumer groups see them: every topic but the internal ones. */
    static final class GroupTopics implements ConsumerGroupTopics {
        private final Topics topics;

        GroupTopics(Topics topics) {
            this.topics = topics;
        }

        @Override
        public TopicInfo byName(String name) {
            Topic t = name == null ? null : topics.get(name);
            return t == null || t.isInternal() ? null : new TopicInfo(t.id(), t.name(), t.partitions());
        }

        @Override
        public TopicInfo byId(UUID id) {
            Topic t = topics.get(id);
            return t == null || t.isInternal() ? null : new TopicInfo(t.id(), t.name(), t.partitions());
        }

        @Override
        public Collection<String> names() {
            List<String> out = new ArrayList<>();
            for (Topic t : topics.all()) {
                if (!t.isInternal()) out.add(t.name());
            }
            return out;
        }
    }

    /**
     * The configs {@code __consumer_offsets} is created with: compacted, with segments of
     * {@code offsets.topic.segment.bytes} (Kafka's 100 MiB by default: small segments keep
     * compaction and the coordinator's load at start-up cheap).
     */
    public static Map<String, String> topicConfigs(BrokerConfig config) {
        return Map.of(LogConfig.CLEANUP_POLICY, "compact", LogConfig.SEGMENT_BYTES,
                Integer.toString(config.intValue(BrokerConfig.OFFSETS_TOPIC_SEGMENT_BYTES)));
    }

    /**
     * The coordinator's log over {@code __consumer_offsets}, creating the topic on the first
     * append. Threading: appends come from the coordinator thread only (the creation, a one-off
     * of a few milliseconds per partition, runs there); reads from its loader thread.
     */
    static final class OffsetsTopicLog implements CoordinatorLog {
        private final Topics topics;
        private final int partitions;
        private final Map<String, String> topicConfigs;
        private final StorageCoordinatorLog storage;

        OffsetsTopicLog(Topics topics, int partitions, Map<String, String> topicConfigs, Compression compression,
                Clock clock) {
            this.topics = topics;
            this.partitions = partitions;
            this.topicConfigs = topicConfigs;
            this.storage = new StorageCoordinatorLog(TopicNames.CONSUMER_OFFSETS, partitions, p -> {
                Log log = topics.log(TopicNames.CONSUMER_OFFSETS, p);
                if (log == null) {
                    throw new IllegalStateException(TopicNames.CONSUMER_OFFSETS + "-" + p + " has no log");
                }
                return log;
            }, clock, compression);
        }

        @Override
        public CompletableFuture<Long> append(int partition, List<CoordinatorRecord> records) {
            if (topics.get(TopicNames.CONSUMER_OFFSETS) == null) {
                try {
                    topics.create(TopicNames.CONSUMER_OFFSETS, partitions, topicConfigs);
                } catch (RuntimeException e) {
                    return CompletableFuture.failedFuture(e);
                }
            }
            return storage.append(partition, records);
        }

        @Override
        public ReplayChunk read(int partition, long fromOffset, int maxBytes) {
            if (topics.get(TopicNames.CONSUMER_OFFSETS) == null) {
                return ReplayChunk.end(fromOffset);
            }
            return storage.read(partition, fromOffset, maxBytes);
        }
    }
}
