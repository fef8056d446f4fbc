package io.brook.server.api.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.runtime.CoordinatorLog;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.ReplayChunk;
import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.Listener;
import io.brook.server.metrics.BrokerMetrics;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterView;
import io.brook.server.node.LeaderHints.Leader;
import io.brook.server.topic.TopicNames;
import io.brook.wire.message.FindCoordinatorResponse.Coordinator;
import io.brook.wire.protocol.Errors;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * FindCoordinator on a node of a cluster: a group's coordinator is the leader of its partition of
 * {@code __consumer_offsets} on the client's listener, the topic is created through the controller
 * on the first lookup, a partition without a leader is COORDINATOR_NOT_AVAILABLE; a transactional
 * id's coordinator is the leader of its partition of {@code __transaction_state}, likewise.
 */
class FindCoordinatorInClusterTest {

    private static final int PARTITIONS = 4;

    /** A cluster whose leaders the test sets; the creations asked for are kept, completed by the test. */
    private static final class FakeCluster implements ClusterView {
        final Map<Integer, Leader> leaders = new HashMap<>();
        final Map<Integer, Leader> txnLeaders = new HashMap<>();
        final List<String> leaderListeners = new ArrayList<>();
        final List<CompletableFuture<Void>> creations = new ArrayList<>();
        final List<String> created = new ArrayList<>();
        TopicState offsets;
        TopicState txnState;

        @Override
        public Set<Integer> ledPartitions(String topic) {
            return Set.of();
        }

        @Override
        public void onChange(Runnable listener) {
        }

        @Override
        public Leader leaderOf(String topic, int partition, String listenerName) {
            leaderListeners.add(listenerName);
            if (TopicNames.TRANSACTION_STATE.equals(topic)) {
                return txnLeaders.getOrDefault(partition, Leader.UNKNOWN);
            }
            return TopicNames.CONSUMER_OFFSETS.equals(topic) ? leaders.getOrDefault(partition, Leader.UNKNOWN) : Leader.UNKNOWN;
        }

        @Override
        public Errors check(String topic, int partition, int currentLeaderEpoch) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int leaderEpoch(String topic, int partition) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int controllerId() {
            return 1;
        }

        @Override
        public List<BrokerNode> brokers(String listenerName) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<TopicState> topics() {
            throw new UnsupportedOperationException();
        }

        @Override
        public TopicState topic(String name) {
            if (TopicNames.TRANSACTION_STATE.equals(name)) {
                return txnState;
            }
            return TopicNames.CONSUMER_OFFSETS.equals(name) ? offsets : null;
        }

        @Override
        public TopicState topic(UUID id) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> createTopic(String name, int partitions, int replicationFactor,
                                                   Map<String, String> configs) {
            created.add(name + "/" + partitions + "/" + replicationFactor + "/" + configs.get("cleanup.policy"));
            CompletableFuture<Void> f = new CompletableFuture<>();
            creations.add(f);
            return f;
        }

        @Override
        public CompletableFuture<Void> createTopic(String name, List<List<Integer>> assignment,
                                                   Map<String, String> configs) {
            throw new UnsupportedOperationException("no manual assignments here");
        }

        @Override
        public CompletableFuture<Void> deleteTopic(String name) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> createPartitions(String name, int totalCount) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> createPartitions(String name, int totalCount, List<List<Integer>> assignment) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> replaceTopicConfigs(String topic, Map<String, String> configs) {
            throw new UnsupportedOperationException();
        }
    }

    /** Never written or read: the handler only hashes group ids with the coordinator. */
    private static final CoordinatorLog NO_LOG = new CoordinatorLog() {
        @Override
        public CompletableFuture<Long> append(int partition, List<CoordinatorRecord> records) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ReplayChunk read(int partition, long fromOffset, int maxBytes) {
            throw new UnsupportedOperationException();
        }
    };

    private final FakeCluster cluster = new FakeCluster();
    private final GroupCoordinator groups = new GroupCoordinator(
            BrokerConfig.parse(Map.of("offsets.topic.num.partitions", Integer.toString(PARTITIONS))).groupCoordinator(),
            NO_LOG, Clock.systemUTC());
    private final TransactionCoordinator txns = new TransactionCoordinator(
            BrokerConfig.parse(Map.of("transaction.state.log.num.partitions", "3")).txnCoordinator(), NO_LOG,
            Clock.systemUTC(), () -> 1L,
            (pid, epoch, commit, transactionsV2, partitions) -> CompletableFuture.completedFuture(null));
    private final FindCoordinatorHandler handler = new FindCoordinatorHandler(new BrokerContext(BrokerConfig.defaults(),
            "cluster", Map.of("PLAINTEXT", new Listener("PLAINTEXT", "node1", 9092)), null, null, groups, txns, null,
            new BrokerMetrics(false), cluster));

    private Coordinator group(String id) {
        return handler.lookup("EXTERNAL", FindCoordinatorHandler.KEY_TYPE_GROUP, id);
    }

    @Test
    void shouldCreateTheOffsetsTopicOnceAndAnswerNotAvailableUntilItHasALeader() {
        Coordinator first = group("g");
        assertThat(first.errorCode()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
        assertThat(first.nodeId()).isEqualTo(-1);
        assertThat(group("h").errorCode()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
        assertThat(cluster.created).containsExactly(TopicNames.CONSUMER_OFFSETS + "/" + PARTITIONS + "/1/compact");

        // a creation that failed (another node created it first) lets a later lookup ask again
        cluster.creations.get(0).completeExceptionally(new IllegalStateException("TOPIC_ALREADY_EXISTS"));
        group("g");
        assertThat(cluster.created).hasSize(2);
    }

    @Test
    void shouldAnswerTheLeaderOfTheGroupsPartitionOnTheClientsListener() {
        cluster.offsets = new ClusterView.TopicState(TopicNames.CONSUMER_OFFSETS, UUID.randomUUID(), List.of(), Map.of());
        int partition = groups.partitionFor("g");
        cluster.leaders.put(partition, new Leader(2, 5, "node2", 9094, null));
        Coordinator c = group("g");
        assertThat(c.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(c.nodeId()).isEqualTo(2);
        assertThat(c.host()).isEqualTo("node2");
        assertThat(c.port()).isEqualTo(9094);
        assertThat(cluster.leaderListeners).containsOnly("EXTERNAL");

        // a partition whose broker is fenced has no leader: retriable, and nothing is created
        String other = "x";
        for (int i = 0; groups.partitionFor(other) == partition; i++) other = "x" + i;
        Coordinator none = group(other);
        assertThat(none.errorCode()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
        assertThat(none.errorMessage()).contains(TopicNames.CONSUMER_OFFSETS + "-" + groups.partitionFor(other));
        assertThat(cluster.created).isEmpty();
    }

    @Test
    void shouldFindTheLeaderOfTheTransactionalIdsPartitionCreatingTheTopicOnTheFirstLookup() {
        Coordinator first = handler.lookup("EXTERNAL", FindCoordinatorHandler.KEY_TYPE_TRANSACTION, "tx");
        assertThat(first.errorCode()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
        assertThat(first.errorMessage()).contains(TopicNames.TRANSACTION_STATE + "-" + txns.config().partitionFor("tx"));
        assertThat(cluster.created).containsExactly(TopicNames.TRANSACTION_STATE + "/3/1/compact");

        cluster.txnState = new ClusterView.TopicState(TopicNames.TRANSACTION_STATE, UUID.randomUUID(), List.of(), Map.of());
        cluster.txnLeaders.put(txns.config().partitionFor("tx"), new Leader(3, 0, "node3", 9096, null));
        Coordinator c = handler.lookup("EXTERNAL", FindCoordinatorHandler.KEY_TYPE_TRANSACTION, "tx");
        assertThat(c.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(c.nodeId()).isEqualTo(3);
        assertThat(c.host()).isEqualTo("node3");
        assertThat(c.port()).isEqualTo(9096);
        assertThat(cluster.created).hasSize(1);
    }
}
