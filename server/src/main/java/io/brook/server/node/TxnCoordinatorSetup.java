package io.brook.server.node;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.runtime.CoordinatorLog;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.ReplayChunk;
import io.brook.coordinator.runtime.StorageCoordinatorLog;
import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.coordinator.txn.TxnCoordinatorConfig;
import io.brook.server.config.BrokerConfig;
import io.brook.server.topic.Topic;
import io.brook.server.topic.TopicNames;
import io.brook.server.topic.Topics;
import io.brook.storage.Log;
import io.brook.storage.LogConfig;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Creates the transaction coordinator at broker start-up over the {@code __transaction_state}
 * topic, with the markers written into this node's own partition logs ({@link PartitionMarkers}).
 *
 * <p>As {@code __consumer_offsets}, {@code __transaction_state} is an internal topic created on
 * the coordinator's first write with {@code transaction.state.log.num.partitions} partitions,
 * {@code cleanup.policy=compact} and {@code transaction.state.log.segment.bytes}; once it exists
 * its partition count is what counts. Clients cannot produce to it, delete it or add partitions.
 */
public final class TxnCoordinatorSetup {

    private TxnCoordinatorSetup() {
    }

    /**
     * A started coordinator, loading {@code __transaction_state} (when it exists) in the background.
     *
     * <p>On a node of a cluster ({@link BrokerConfig#clustered()}) the coordinator starts owning no
     * partition of {@code __transaction_state} (every transactional id gets NOT_COORDINATOR) until
     * {@link #follow} hands it the partitions this node leads.
     *
     * @param loadExecutor runs the reads of the load; null for a thread of the coordinator's own
     * @param transactionVersion the finalized {@code transaction.version}, in force before the
     *                           coordinator writes anything (the completion of transactions found
     *                           prepared while loading included)
     */
    public static TransactionCoordinator start(BrokerConfig brokerConfig, Topics topics, GroupCoordinator groups,
            ProducerIdAllocator producerIds, Clock clock, Executor loadExecutor, short transactionVersion) {
        TxnCoordinatorConfig config = brokerConfig.txnCoordinator();
        Topic existing = topics.get(TopicNames.TRANSACTION_STATE);
        if (existing != null) {
            config = config.withPartitions(existing.partitions());
        }
        TransactionCoordinator coordinator = new TransactionCoordinator(config,
                new TxnStateTopicLog(topics, config, clock), clock, producerIds::nextOrPending,
                new RoutedTxnMarkers(new PartitionMarkers(topics, groups, clock)), loadExecutor);
        coordinator.transactionVersion(transactionVersion);
        if (brokerConfig.clustered()) {
            coordinator.own(Set.of());
        }
        coordinator.start();
        return coordinator;
    }

    /**
     * Cluster mode (docs/cluster.md, section 7): from now on {@code coordinator} serves the
     * transactional ids of the partitions of {@code __transaction_state} this node leads, and
     * follows every change of that set (a partition gained is loaded, and the transactions found
     * prepared in it are completed; one lost is dropped); the markers of partitions other nodes
     * lead go to them ({@link RoutedTxnMarkers}). Every node must have the same
     * {@code transaction.state.log.num.partitions}: an id's partition is its hash modulo that count.
     */
    public static void follow(TransactionCoordinator coordinator, ClusterView cluster) {
        if (coordinator.markers() instanceof RoutedTxnMarkers routed && cluster.txnPeers() != null) {
            routed.useCluster(cluster.txnPeers());
        }
        Object order = new Object();
        // read and handed over under one lock, so that an older set never overtakes a newer one
        Runnable sync = () -> {
            synchronized (order) {
                coordinator.own(cluster.ledPartitions(TopicNames.TRANSACTION_STATE));
            }
        };
        cluster.onChange(sync);
        sync.run();
    }

    /** The configs {@code __transaction_state} is created with: compacted, {@code transaction.state.log.segment.bytes}. */
    public static Map<String, String> topicConfigs(TxnCoordinatorConfig config) {
        return Map.of(LogConfig.CLEANUP_POLICY, "compact", LogConfig.SEGMENT_BYTES, Integer.toString(config.segmentBytes()));
    }

    /**
     * The coordinator's log over {@code __transaction_state}, creating the topic on the first
     * append. Appends come from the coordinator thread only; the loader reads on its own thread.
     */
    static final class TxnStateTopicLog implements CoordinatorLog {
        private final Topics topics;
        private final TxnCoordinatorConfig config;
        private final StorageCoordinatorLog storage;

        TxnStateTopicLog(Topics topics, TxnCoordinatorConfig config, Clock clock) {
            this.topics = topics;
            this.config = config;
            this.storage = new StorageCoordinatorLog(TopicNames.TRANSACTION_STATE, config.partitions(), p -> {
                Log log = topics.log(TopicNames.TRANSACTION_STATE, p);
                if (log == null) {
                    throw new IllegalStateException(TopicNames.TRANSACTION_STATE + "-" + p + " has no log");
                }
                return log;
            }, clock);
        }

        @Override
        public CompletableFuture<Long> append(int partition, List<CoordinatorRecord> records) {
            if (topics.get(TopicNames.TRANSACTION_STATE) == null) {
                try {
                    topics.create(TopicNames.TRANSACTION_STATE, config.partitions(), topicConfigs(config));
                } catch (RuntimeException e) {
                    return CompletableFuture.failedFuture(e);
                }
            }
            return storage.append(partition, records);
        }

        @Override
        public ReplayChunk read(int partition, long fromOffset, int maxBytes) {
            if (topics.get(TopicNames.TRANSACTION_STATE) == null) {
                return ReplayChunk.end(fromOffset);
            }
            return storage.read(partition, fromOffset, maxBytes);
        }
    }
}
