package io.brook.server.cluster;

import io.brook.cluster.controller.ControllerException;
import io.brook.cluster.controller.ProducerIdBlock;
import io.brook.cluster.member.ClusterMember;
import io.brook.cluster.metadata.BrokerInfo;
import io.brook.cluster.metadata.Endpoint;
import io.brook.server.cluster.replica.FetchTarget;
import io.brook.server.cluster.replica.ReplicaFetchers;
import io.brook.server.metrics.ControllerCounts;
import io.brook.server.node.BrokerMeta;
import io.brook.server.node.ClusterAdminException;
import io.brook.server.node.ClusterView;
import io.brook.server.node.LeaderHints.Leader;
import io.brook.server.node.MetadataQuorum;
import io.brook.server.node.PartitionLeadership;
import io.brook.server.node.ProducerIdAllocator;
import io.brook.server.topic.Topic;
import io.brook.server.topic.Topics;
import io.brook.storage.Log;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.LogSafe;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker in a cluster (docs/cluster.md, section 6): the {@link ClusterView} its handlers read,
 * kept from this node's {@link ClusterMember}.
 *
 * <p>After every applied metadata entry the member calls {@link #changed}; one thread of this
 * class's then copies the image ({@link ImageView}), mirrors it into the local topics (ids,
 * partition counts and config overrides; a log for each partition whose replicas hold this node,
 * none for the others; topics gone from the image deleted, logs included, internal topics that
 * the image does not have left to the coordinators), publishes the copy, completes the decisions
 * waiting to read their own write, and tells the {@link #onChange} listeners. Changes coalesce: a
 * burst of entries costs one pass.
 *
 * <p>Moved partitions (docs/cluster.md, section 6a): after each change this class keeps the
 * {@link ReplicaFetchers} to the image (a copy of each partition this node is being added to,
 * from its leader; a drain of each partition it leads whose former leader is still being
 * removed; fetchers no longer wanted stop before the logs are mirrored, so before a copy is
 * deleted), and fences the log of each partition whose new leader drains this node. A partition
 * this node leads is served only once drained.
 *
 * <p>Until this broker is registered and unfenced, the image it has may still be replaying the
 * metadata log after a restart: it then leads nothing and deletes nothing (a half-replayed image
 * lacks topics that exist), it only creates what the image already has.
 */
final class ClusterBroker implements ClusterView, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterBroker.class);
    /** How long a topic decision or a producer-id block may take before the request is answered REQUEST_TIMED_OUT. */
    static final long DECISION_TIMEOUT_MS = 30_000;

    private final ClusterMember member;
    private final Topics topics;
    private final int nodeId;
    private final ExecutorService thread;
    private final AtomicBoolean pending = new AtomicBoolean();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    /** Decisions waiting for their entry to be mirrored here, by applied index. */
    private final TreeMap<Long, List<CompletableFuture<Void>>> waiting = new TreeMap<>();
    private volatile ImageView view = ImageView.EMPTY;
    private volatile io.brook.server.node.TxnPeers txnPeers;
    private volatile QuorumDescription quorum;
    private volatile ReplicaFetchers fetchers;
    private volatile ReplicationThrottle throttle;
    /** Registered and unfenced once: the image has caught up with the log. */
    private volatile boolean caughtUp;
    private volatile boolean closed;

    ClusterBroker(ClusterMember member, Topics topics) {
        this.member = member;
        this.topics = topics;
        this.nodeId = member.nodeId();
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "brook-cluster-" + nodeId);
            t.setDaemon(true);
            return t;
        });
    }

    void start() {
        member.onChange(this::changed);
        member.unfenced().whenComplete((v, e) -> {
            if (e == null) {
                caughtUp = true;
                LOG.info("Node {} is registered and unfenced (broker epoch {})", nodeId, member.brokerEpoch());
                changed();
            }
        });
        changed();
    }

    int nodeId() {
        return nodeId;
    }

    /** What {@link #txnPeers()} answers (set once, at start). */
    void txnPeers(io.brook.server.node.TxnPeers peers) {
        this.txnPeers = peers;
    }

    @Override
    public io.brook.server.node.TxnPeers txnPeers() {
        return txnPeers;
    }

    String clusterId() {
        return member.clusterId();
    }

    /** How {@link #quorum()} describes the metadata quorum (set once, at start). */
    void describeQuorumWith(QuorumDescription description) {
        this.quorum = description;
    }

    @Override
    public MetadataQuorum quorum() {
        QuorumDescription d = quorum;
        return d == null ? MetadataQuorum.UNKNOWN : d.describe();
    }

    @Override
    public CompletableFuture<MetadataQuorum> leaderQuorum() {
        QuorumDescription d = quorum;
        return d == null ? CompletableFuture.completedFuture(MetadataQuorum.UNKNOWN) : d.describeFromLeader();
    }

    /** The fetchers that copy and drain moved partitions for this node (set once, before {@link #start}). */
    void replicateWith(ReplicaFetchers f) {
        this.fetchers = f;
    }

    /** The replication throttles of this node, whose leader side {@link #throttledToReplica} applies (set once, before {@link #start}). */
    void throttleWith(ReplicationThrottle t) {
        this.throttle = t;
    }

    /** The member applied an entry: mirror it, on this class's thread. */
    void changed() {
        if (!closed && pending.compareAndSet(false, true)) {
            try {
                thread.execute(this::refresh);
            } catch (RejectedExecutionException e) {
                pending.set(false); // closing
            }
        }
    }

    private void refresh() {
        pending.set(false);
        boolean complete = caughtUp;
        long index = member.lastAppliedIndex();
        ImageView next = member.read(image -> ImageView.of(image, index, nodeId));
        ReplicaFetchers replicas = fetchers;
        Set<FetchTarget> targets = complete ? fetchTargets(next) : Set.of();
        if (replicas != null) {
            replicas.retain(targets);
        }
        mirror(next, complete);
        fenceDrained(next);
        view = next;
        if (replicas != null) {
            replicas.start(targets);
        }
        List<CompletableFuture<Void>> done = new ArrayList<>();
        synchronized (waiting) {
            if (complete) {
                Map<Long, List<CompletableFuture<Void>>> head = waiting.headMap(index, true);
                head.values().forEach(done::addAll);
                head.clear();
            }
        }
        done.forEach(f -> f.complete(null));
        for (Runnable l : listeners) {
            try {
                l.run();
            } catch (RuntimeException e) {
                LOG.warn("A metadata change listener failed", e);
            }
        }
    }

    private void mirror(ImageView v, boolean complete) {
        for (TopicState t : v.topicsByName.values()) {
            try {
                topics.mirror(t.name(), t.id(), t.partitions().size(), t.configs(),
                        complete ? v.hosted(t) : hostedOrKept(v, t));
            } catch (RuntimeException e) {
                LOG.error("Cannot mirror topic {} from the metadata image", LogSafe.escape(t.name()), e);
            }
        }
        if (!complete) {
            return;
        }
        for (Topic local : topics.all()) {
            if (!v.topicsByName.containsKey(local.name()) && !local.isInternal()) {
                LOG.info("Deleting topic {}: the metadata image no longer has it", LogSafe.escape(local.name()));
                try {
                    topics.delete(local.name());
                } catch (RuntimeException e) {
                    LOG.error("Cannot delete topic {}", LogSafe.escape(local.name()), e);
                }
            }
        }
    }

    /**
     * What this node fetches for moved partitions: a copy of each partition it is being added
     * to, from its leader, and a drain of each partition it leads whose former leader is still
     * being removed (from the first of them: with one replica per partition there is one).
     */
    private Set<FetchTarget> fetchTargets(ImageView v) {
        Set<FetchTarget> out = new java.util.HashSet<>();
        for (Reassignment m : v.reassignments) {
            PartitionState p = v.partition(m.topic(), m.partition());
            if (p == null) {
                continue;
            }
            if (m.adding().contains(nodeId) && p.leader() >= 0 && p.leader() != nodeId) {
                out.add(new FetchTarget(m.topic(), m.partition(), p.leader(), p.leaderEpoch(), false));
            } else if (v.draining(m.topic(), p)) {
                out.add(new FetchTarget(m.topic(), m.partition(), m.removing().get(0), p.leaderEpoch(), true));
            }
        }
        return out;
    }

    /**
     * Fences the log of each partition this node led until a move, at the new leader's epoch: no
     * append lands after the end the new leader drains (and a flush is asked for, so that end
     * becomes durable); the log stays until the image drops this node from the replicas.
     */
    private void fenceDrained(ImageView v) {
        for (Reassignment m : v.reassignments) {
            PartitionState p = v.partition(m.topic(), m.partition());
            Log log = p != null && v.drainedHere(m.topic(), p) ? topics.log(m.topic(), m.partition()) : null;
            if (log != null && log.fencedEpoch() < p.leaderEpoch()) {
                long end = log.fence(p.leaderEpoch());
                log.whenDurable(end);
                LOG.info("Node {}: fenced {}-{} at leader epoch {}, end offset {}, for its new leader {}", nodeId,
                        LogSafe.escape(m.topic()), m.partition(), p.leaderEpoch(), end, p.leader());
            }
        }
    }

    /** Before the image caught up: the partitions it says this node hosts, and every log it has already. */
    private Set<Integer> hostedOrKept(ImageView v, TopicState t) {
        Set<Integer> out = new java.util.TreeSet<>(v.hosted(t));
        Topic local = topics.get(t.name());
        for (int p = 0; local != null && local.id().equals(t.id()) && p < local.partitions(); p++) {
            if (topics.log(t.name(), p) != null) {
                out.add(p);
            }
        }
        return out;
    }

    /** Completes once the image as of {@code index} is mirrored here (and the broker has caught up). */
    private CompletableFuture<Void> mirrored(long index) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        synchronized (waiting) {
            if (caughtUp && view.appliedIndex >= index) {
                return CompletableFuture.completedFuture(null);
            }
            waiting.computeIfAbsent(index, k -> new ArrayList<>()).add(f);
        }
        changed(); // in case the entry was mirrored between the check above and the registration
        return f;
    }

    /** A decision asked of the controller, completed once mirrored here, failed with Kafka's error. */
    private CompletableFuture<Void> decided(CompletableFuture<?> decision) {
        return decision.handle((v, e) -> e)
                .thenCompose(e -> e != null ? CompletableFuture.<Void>failedFuture(translate(e))
                        : mirrored(member.lastAppliedIndex()))
                .orTimeout(DECISION_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .handle((v, e) -> {
                    if (e != null) {
                        throw translate(e);
                    }
                    return v;
                });
    }

    static ClusterAdminException translate(Throwable e) {
        Throwable c = e;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        if (c instanceof ClusterAdminException a) {
            return a;
        }
        if (c instanceof ControllerException ce) {
            return new ClusterAdminException(Errors.forCode(ce.error().code()), ce.getMessage());
        }
        if (c instanceof TimeoutException) {
            return new ClusterAdminException(Errors.REQUEST_TIMED_OUT, "The controller did not answer in time.");
        }
        return new ClusterAdminException(Errors.UNKNOWN_SERVER_ERROR, String.valueOf(c.getMessage()));
    }

    /**
     * The next producer-id block for this node, from the controller, asked once this node is
     * registered (the controller gives blocks to registered brokers only); fails with Kafka's error.
     */
    CompletableFuture<ProducerIdAllocator.Block> producerIdBlock() {
        return member.unfenced().thenCompose(registered -> member.allocateProducerIds())
                .orTimeout(DECISION_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .handle((ProducerIdBlock b, Throwable e) -> {
                    if (e != null) {
                        throw translate(e);
                    }
                    return new ProducerIdAllocator.Block(b.firstId(), b.size());
                });
    }

    // ---- PartitionLeadership

    @Override
    public Set<Integer> ledPartitions(String topic) {
        return caughtUp ? view.led(topic) : Set.of();
    }

    @Override
    public void onChange(Runnable listener) {
        listeners.add(listener);
    }

    @Override
    public Leader leaderOf(String topic, int partition, String listenerName) {
        PartitionState p = view.partition(topic, partition);
        if (p == null || p.leader() < 0) {
            return Leader.UNKNOWN;
        }
        BrokerInfo b = view.brokers.get(p.leader());
        Endpoint e = b == null ? null : endpoint(b, listenerName);
        return e == null ? Leader.UNKNOWN : new Leader(b.id(), p.leaderEpoch(), e.host(), e.port(), b.rack());
    }

    @Override
    public Errors check(String topic, int partition, int currentLeaderEpoch) {
        PartitionState p = view.partition(topic, partition);
        if (p == null) {
            return Errors.NOT_LEADER_OR_FOLLOWER;
        }
        Errors epoch = PartitionLeadership.checkEpoch(p.leaderEpoch(), currentLeaderEpoch);
        if (epoch != Errors.NONE) {
            return epoch;
        }
        ImageView v = view;
        return caughtUp && p.leader() == nodeId && !v.draining(topic, p) ? Errors.NONE : Errors.NOT_LEADER_OR_FOLLOWER;
    }

    @Override
    public Errors checkReplica(String topic, int partition, int replicaId, int currentLeaderEpoch) {
        ImageView v = view;
        PartitionState p = v.partition(topic, partition);
        boolean leads = p != null && caughtUp && p.leader() == nodeId && !v.draining(topic, p);
        boolean drainedBy = p != null && p.leader() == replicaId && v.drainedHere(topic, p);
        if (p == null || replicaId == nodeId || !p.replicas().contains(replicaId) || !(leads || drainedBy)) {
            // Kafka's answer to a replica it does not know (or a node that serves no replica of this partition)
            return currentLeaderEpoch >= 0 ? Errors.UNKNOWN_LEADER_EPOCH : Errors.NOT_LEADER_OR_FOLLOWER;
        }
        return PartitionLeadership.checkEpoch(p.leaderEpoch(), currentLeaderEpoch);
    }

    @Override
    public boolean drainedByNewLeader(String topic, int partition) {
        ImageView v = view;
        PartitionState p = v.partition(topic, partition);
        return p != null && v.drainedHere(topic, p);
    }

    @Override
    public boolean throttledToReplica(String topic, int partition, int replicaId, long bytes) {
        ReplicationThrottle t = throttle;
        PartitionState p = view.partition(topic, partition);
        // Kafka's rule: only a replica out of the ISR (a copy, not the new leader draining this node) is throttled
        return t != null && p != null && !p.isr().contains(replicaId) && t.leaderDelayMs(topic, partition, bytes) > 0;
    }

    @Override
    public long replicationThrottleWaits() {
        ReplicationThrottle t = throttle;
        return t == null ? 0 : t.waits();
    }

    @Override
    public int leaderEpoch(String topic, int partition) {
        ImageView v = view;
        PartitionState p = v.partition(topic, partition);
        return p != null && p.leader() == nodeId && !v.draining(topic, p) ? p.leaderEpoch() : -1;
    }

    // ---- ClusterView

    @Override
    public int controllerId() {
        // clients send admin requests to the node named here, so it must be a broker they can
        // reach: a controller-only leader is not (Kafka names a live broker then, too); every
        // broker hands such requests to the controller itself
        int leader = member.controllerId();
        Map<Integer, BrokerInfo> brokers = view.brokers;
        if (live(brokers.get(leader))) {
            return leader;
        }
        if (live(brokers.get(nodeId))) {
            return nodeId;
        }
        for (BrokerInfo b : brokers.values()) {
            if (live(b)) {
                return b.id();
            }
        }
        return leader;
    }

    private static boolean live(BrokerInfo b) {
        return b != null && !b.fenced();
    }

    /** Kafka's controller gauges as this node's image has them (the active controller: this node leads). */
    ControllerCounts controllerCounts() {
        return view.controllerCounts(member.controllerId() == nodeId);
    }

    @Override
    public List<BrokerNode> brokers(String listenerName) {
        List<BrokerNode> out = new ArrayList<>();
        for (BrokerInfo b : view.brokers.values()) {
            Endpoint e = b.fenced() ? null : endpoint(b, listenerName);
            if (e != null) {
                out.add(new BrokerNode(b.id(), e.host(), e.port(), b.rack()));
            }
        }
        return out;
    }

    /** Node {@code id}'s address on {@code listenerName} as the image has it (fenced or not), or null. */
    java.net.InetSocketAddress address(int id, String listenerName) {
        BrokerInfo b = view.brokers.get(id);
        Endpoint e = b == null ? null : endpoint(b, listenerName);
        return e == null ? null : java.net.InetSocketAddress.createUnresolved(e.host(), e.port());
    }

    /** The broker's endpoint on {@code listenerName}; its first one when the name is null. */
    private static Endpoint endpoint(BrokerInfo b, String listenerName) {
        for (Endpoint e : b.listeners()) {
            if (listenerName == null || e.name().equalsIgnoreCase(listenerName)) {
                return e;
            }
        }
        return null;
    }

    @Override
    public List<TopicState> topics() {
        return List.copyOf(view.topicsByName.values());
    }

    @Override
    public TopicState topic(String name) {
        return name == null ? null : view.topicsByName.get(name);
    }

    @Override
    public TopicState topic(UUID id) {
        return id == null ? null : view.topicsById.get(id);
    }

    @Override
    public CompletableFuture<Void> createTopic(String name, int partitions, int replicationFactor,
            Map<String, String> configs) {
        return decided(member.createTopic(name, partitions, replicationFactor, configs));
    }

    @Override
    public CompletableFuture<Void> createTopic(String name, List<List<Integer>> assignment,
            Map<String, String> configs) {
        return decided(member.createTopic(name, assignment, configs));
    }

    @Override
    public CompletableFuture<Void> deleteTopic(String name) {
        return decided(member.deleteTopic(name));
    }

    @Override
    public CompletableFuture<Void> createPartitions(String name, int totalCount) {
        return decided(member.createPartitions(name, totalCount));
    }

    @Override
    public CompletableFuture<Void> createPartitions(String name, int totalCount, List<List<Integer>> assignment) {
        return decided(member.createPartitions(name, totalCount, assignment));
    }

    @Override
    public CompletableFuture<Void> replaceTopicConfigs(String topic, Map<String, String> configs) {
        return decided(member.replaceTopicConfigs(topic, configs));
    }

    @Override
    public CompletableFuture<Void> replaceTopicConfigs(String topic, Map<String, String> expected,
                                                       Map<String, String> configs) {
        return decided(member.replaceTopicConfigs(topic, expected, configs));
    }

    @Override
    public List<Reassignment> reassignments() {
        return view.reassignments;
    }

    @Override
    public CompletableFuture<Void> alterPartitionReassignment(String topic, int partition, List<Integer> target) {
        return decided(member.alterPartitionReassignment(topic, partition, target));
    }

    @Override
    public CompletableFuture<Void> electLeader(String topic, int partition, boolean unclean) {
        return decided(member.electLeader(topic, partition, unclean));
    }

    @Override
    public CompletableFuture<Void> addVoter(int id, UUID directoryId) {
        ClusterAdminException wrong = otherDirectory(id, directoryId);
        return wrong != null ? CompletableFuture.failedFuture(wrong) : voters(member.addVoter(id));
    }

    @Override
    public CompletableFuture<Void> removeVoter(int id, UUID directoryId) {
        ClusterAdminException wrong = otherDirectory(id, directoryId);
        return wrong != null ? CompletableFuture.failedFuture(wrong) : voters(member.removeVoter(id));
    }

    /**
     * VOTER_NOT_FOUND when node {@code id} reported another directory id than {@code directoryId}
     * (KIP-853 names a voter by both, and Kafka finds no such voter); null when it matches or the
     * node reported none.
     */
    private ClusterAdminException otherDirectory(int id, UUID directoryId) {
        UUID known = member.read(image -> image.directories().get(id));
        if (known == null || known.equals(directoryId)) {
            return null;
        }
        return new ClusterAdminException(Errors.VOTER_NOT_FOUND, "node " + id + " has directory id "
                + BrokerMeta.kafkaUuid(known) + ", not " + BrokerMeta.kafkaUuid(directoryId));
    }

    @Override
    public CompletableFuture<Void> unregisterBroker(int brokerId) {
        return decided(member.unregisterBroker(brokerId));
    }

    /**
     * A change of the quorum's voters: a Ratis configuration entry, committed when it completes,
     * which changes no image this node mirrors; failed with Kafka's error.
     */
    private static CompletableFuture<Void> voters(CompletableFuture<Void> change) {
        return change.orTimeout(DECISION_TIMEOUT_MS, TimeUnit.MILLISECONDS).handle((v, e) -> {
            if (e != null) {
                throw translate(e);
            }
            return v;
        });
    }

    @Override
    public void close() {
        close(true);
    }

    /** Closes; without {@code controlled} shutdown the controller fences this node only after its session. */
    void close(boolean controlled) {
        closed = true;
        thread.shutdownNow();
        ReplicaFetchers replicas = fetchers;
        if (replicas != null) {
            replicas.close();
        }
        try {
            if (controlled) {
                member.close();
            } else {
                member.closeWithoutShutdown();
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("Node {}: the cluster member did not close cleanly", nodeId, e);
        }
        List<CompletableFuture<Void>> left = new ArrayList<>();
        synchronized (waiting) {
            waiting.values().forEach(left::addAll);
            waiting.clear();
        }
        left.forEach(f -> f.completeExceptionally(
                new ClusterAdminException(Errors.NOT_CONTROLLER, "The broker is shutting down.")));
    }
}
