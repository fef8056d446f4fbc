package io.brook.cluster.member;

import io.brook.cluster.controller.ControllerError;
import io.brook.cluster.controller.ControllerException;
import io.brook.cluster.controller.ProducerIdBlock;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.raft.MetadataQuorumNode;
import io.brook.cluster.raft.QuorumConfig;
import io.brook.cluster.raft.QuorumMembers;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ClusterMember} over the Ratis metadata quorum: this node is a voter ({@link
 * MetadataQuorumNode}); while it is the Ratis leader it is also the controller ({@link
 * ControllerService}); every node asks the controller through the controller channel ({@link
 * ControllerChannel}) and, if it has the broker role, registers and heartbeats as a broker.
 *
 * <p>Broker lifecycle: register at start, again after a back-off while no controller answers;
 * heartbeat every {@code broker.heartbeat.interval.ms}; register again (a new epoch) when the
 * controller answers STALE_BROKER_EPOCH or BROKER_ID_NOT_REGISTERED. {@link #close()} is a
 * controlled shutdown: it stops the heartbeats, asks the controller to fence this broker now and
 * waits for that up to {@link #shutdownWaitMs} (two heartbeat intervals, at least a second, at
 * most the session time-out: past that the controller fences it anyway), then stops the quorum node.
 *
 * <p>Threads: one scheduler thread runs the controller's {@code tick()} and this broker's
 * registration and heartbeats; decision futures complete on a separate callback pool, never on
 * Ratis' threads.
 */
public final class RatisClusterMember implements ClusterMember {
    private static final Logger LOG = LoggerFactory.getLogger(RatisClusterMember.class);

    /** How long a decision waits for a controller to take it (Kafka's default request.timeout.ms). */
    static final Duration DECISION_TIMEOUT = Duration.ofSeconds(30);
    private static final long FIRST_REGISTER_BACKOFF_MS = 100;

    private final QuorumConfig config;
    private final BrokerRegistration self;
    private final boolean broker;
    private final UUID incarnationId = UUID.randomUUID();
    private final MetadataQuorumNode node;
    private final ControllerService controllerService;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService callbacks;
    private final AppliedIndexWaiters waiters;
    private final ControllerChannel channel;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private final CompletableFuture<Void> unfenced = new CompletableFuture<>();
    private volatile long brokerEpoch = -1;
    private volatile boolean closed;
    private volatile boolean promotionLogged;
    private volatile boolean heartbeating = true;

    private RatisClusterMember(QuorumConfig config, BrokerRegistration self, MetadataQuorumNode node,
                               ControllerService controllerService, ScheduledExecutorService scheduler,
                               ExecutorService callbacks) {
        this.config = config;
        this.self = self;
        this.broker = config.processRoles().contains("broker");
        this.node = node;
        this.controllerService = controllerService;
        this.scheduler = scheduler;
        this.callbacks = callbacks;
        this.waiters = new AppliedIndexWaiters(node::lastAppliedIndex, callbacks);
        this.channel = new ControllerChannel(node, waiters, scheduler, callbacks, DECISION_TIMEOUT);
    }

    /**
     * Starts this node's quorum node and, if it has the broker role, its registration. A node in
     * {@code controller.quorum.voters} starts as a voter; any other node (a broker-only node, or
     * one that names the voters with {@code controller.quorum.bootstrap.servers}) follows the log
     * as a Ratis listener, and asks the leader, in the background until it is listed, to add it as
     * one (docs/cluster.md, section 6).
     *
     * @throws ClusterMembershipException if the node belongs to another cluster, another node id,
     *     or names other voters than the running voters
     */
    public static ClusterMember start(QuorumConfig config, BrokerRegistration self, Clock clock) throws IOException {
        ControllerService controllerService = new ControllerService(clock, self.sessionTimeoutMs());
        MetadataQuorumNode node = MetadataQuorumNode.start(config, controllerService::handle);
        controllerService.attach(node);
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "brook-cluster-member-" + config.nodeId());
            t.setDaemon(true);
            return t;
        });
        ExecutorService callbacks = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "brook-cluster-callback-" + config.nodeId());
            t.setDaemon(true);
            return t;
        });
        RatisClusterMember member = new RatisClusterMember(config, self, node, controllerService, scheduler, callbacks);
        node.stateMachine().addApplyListener(member::applied);
        scheduler.scheduleWithFixedDelay(member::tick, self.heartbeatIntervalMs(), self.heartbeatIntervalMs(),
                TimeUnit.MILLISECONDS);
        if (!node.members().voters().containsKey(config.nodeId())) {
            member.join(FIRST_REGISTER_BACKOFF_MS);
        }
        if (member.broker) {
            scheduler.execute(() -> member.register(FIRST_REGISTER_BACKOFF_MS));
        } else if (self.directoryId() != null) {
            // a controller-only node never registers, but it has a directory id for the voter changes
            scheduler.execute(() -> member.reportDirectory(FIRST_REGISTER_BACKOFF_MS));
        }
        return member;
    }

    /** Asks the leader to list this node as a listener, again after a back-off until it is listed. */
    private void join(long backoffMs) {
        if (closed) {
            return;
        }
        try {
            callbacks.execute(() -> {
                boolean listed;
                try {
                    listed = node.joinAsListener();
                } catch (IOException | RuntimeException e) {
                    LOG.debug("Node {} could not join the metadata quorum as a listener yet: {}", config.nodeId(),
                            e.toString());
                    listed = false;
                }
                if (listed) {
                    LOG.info("Node {} follows the metadata log as a listener at {}", config.nodeId(), node.address());
                } else {
                    schedule(() -> join(Math.min(backoffMs * 2, self.heartbeatIntervalMs())), backoffMs);
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("Node {} is closing; not joining", config.nodeId());
        }
    }

    private void applied() {
        waiters.applied();
        if (!promotionLogged && node.isListener() && node.members().voters().containsKey(config.nodeId())) {
            promotionLogged = true;
            LOG.info("Node {} is now a voter of the metadata quorum", config.nodeId());
        }
        for (Runnable l : listeners) {
            try {
                l.run();
            } catch (RuntimeException e) {
                LOG.warn("A metadata change listener failed", e);
            }
        }
    }

    private void tick() {
        try {
            controllerService.tick();
        } catch (RuntimeException e) {
            LOG.warn("Controller tick failed on node {}", config.nodeId(), e);
        }
    }

    private void register(long backoffMs) {
        if (closed) {
            return;
        }
        channel.ask(new ControllerRequest.Register(config.nodeId(), incarnationId, self.listeners(), self.rack()),
                Long.class).whenComplete((epoch, e) -> {
                    if (e == null) {
                        brokerEpoch = epoch;
                        LOG.info("Broker {} registered with epoch {}", config.nodeId(), epoch);
                        schedule(this::heartbeat, 0);
                        if (self.directoryId() != null) {
                            schedule(() -> reportDirectory(FIRST_REGISTER_BACKOFF_MS), 0);
                        }
                    } else {
                        LOG.warn("Broker {} could not register, trying again in {} ms: {}", config.nodeId(), backoffMs,
                                cause(e).getMessage());
                        schedule(() -> register(Math.min(backoffMs * 2, self.heartbeatIntervalMs())), backoffMs);
                    }
                });
    }

    /** Tells the controller this node's directory id, again after a back-off until it is recorded. */
    private void reportDirectory(long backoffMs) {
        if (closed) {
            return;
        }
        channel.ask(new ControllerRequest.NodeDirectory(config.nodeId(), self.directoryId()), Void.class)
                .whenComplete((v, e) -> {
                    if (e != null) {
                        LOG.debug("Node {} could not report its directory id yet: {}", config.nodeId(),
                                cause(e).toString());
                        schedule(() -> reportDirectory(Math.min(backoffMs * 2, self.heartbeatIntervalMs())), backoffMs);
                    }
                });
    }

    private void heartbeat() {
        if (closed || !heartbeating) {
            return;
        }
        long epoch = brokerEpoch;
        channel.ask(new ControllerRequest.Heartbeat(config.nodeId(), epoch), Object.class).whenComplete((v, e) -> {
            if (e == null) {
                if (unfenced.complete(null)) {
                    LOG.info("Broker {} is unfenced (epoch {})", config.nodeId(), epoch);
                }
                schedule(this::heartbeat, self.heartbeatIntervalMs());
                return;
            }
            Throwable cause = cause(e);
            if (cause instanceof ControllerException ce && (ce.error() == ControllerError.STALE_BROKER_EPOCH
                    || ce.error() == ControllerError.BROKER_ID_NOT_REGISTERED)) {
                LOG.info("Broker {} registers again: {}", config.nodeId(), ce.getMessage());
                brokerEpoch = -1;
                schedule(() -> register(FIRST_REGISTER_BACKOFF_MS), 0);
            } else {
                LOG.debug("Heartbeat of broker {} failed: {}", config.nodeId(), cause.toString());
                schedule(this::heartbeat, self.heartbeatIntervalMs());
            }
        });
    }

    private void schedule(Runnable task, long delayMs) {
        if (closed) {
            return;
        }
        try {
            scheduler.schedule(task, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("Node {} is closing; dropped a scheduled task", config.nodeId());
        }
    }

    /**
     * Asks the controller what only a registered broker may ask, stamped with this node's broker
     * epoch; fails with BROKER_ID_NOT_REGISTERED while the node has none.
     */
    private <T> CompletableFuture<T> askRegistered(java.util.function.LongFunction<ControllerRequest> request,
                                                   Class<T> type) {
        long epoch = brokerEpoch;
        if (epoch < 0) {
            return CompletableFuture.failedFuture(new ControllerException(ControllerError.BROKER_ID_NOT_REGISTERED,
                    "broker " + config.nodeId() + " is not registered yet"));
        }
        return channel.ask(request.apply(epoch), type);
    }

    private static Throwable cause(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    @Override
    public int nodeId() {
        return config.nodeId();
    }

    @Override
    public String clusterId() {
        return config.clusterId();
    }

    @Override
    public <T> T read(Function<MetadataImage, T> reader) {
        return node.read(reader);
    }

    @Override
    public long lastAppliedIndex() {
        return node.lastAppliedIndex();
    }

    @Override
    public void onChange(Runnable listener) {
        listeners.add(listener);
    }

    @Override
    public int controllerId() {
        return node.leaderId().orElse(-1);
    }

    @Override
    public long brokerEpoch() {
        return brokerEpoch;
    }

    @Override
    public CompletableFuture<Void> unfenced() {
        return unfenced.copy();
    }

    @Override
    public CompletableFuture<UUID> createTopic(String name, int partitions, int replicationFactor,
                                               Map<String, String> configs) {
        return channel.ask(new ControllerRequest.CreateTopic(name, partitions, replicationFactor, configs), UUID.class);
    }

    @Override
    public CompletableFuture<UUID> createTopic(String name, List<List<Integer>> assignment,
                                               Map<String, String> configs) {
        return channel.ask(new ControllerRequest.CreateTopicAssigned(name, assignment, configs), UUID.class);
    }

    @Override
    public CompletableFuture<Void> createPartitions(String name, int totalCount) {
        return channel.ask(new ControllerRequest.CreatePartitions(name, totalCount), Void.class);
    }

    @Override
    public CompletableFuture<Void> createPartitions(String name, int totalCount, List<List<Integer>> assignment) {
        return channel.ask(new ControllerRequest.CreatePartitionsAssigned(name, totalCount, assignment), Void.class);
    }

    @Override
    public CompletableFuture<Void> deleteTopic(String name) {
        return channel.ask(new ControllerRequest.DeleteTopic(name), Void.class);
    }

    @Override
    public CompletableFuture<Void> alterTopicConfig(String topic, String key, String value) {
        return channel.ask(new ControllerRequest.AlterTopicConfig(topic, key, value), Void.class);
    }

    @Override
    public CompletableFuture<Void> alterPartitionReassignment(String topic, int partition, List<Integer> target) {
        return channel.ask(new ControllerRequest.AlterReassignment(topic, partition, target), Void.class);
    }

    @Override
    public CompletableFuture<Void> electLeader(String topic, int partition, boolean unclean) {
        return channel.ask(new ControllerRequest.ElectLeader(topic, partition, unclean), Void.class);
    }

    @Override
    public CompletableFuture<Void> replicaCaughtUp(String topic, int partition) {
        return askRegistered(epoch -> new ControllerRequest.ReplicaCaughtUp(config.nodeId(), epoch, topic, partition),
                Void.class);
    }

    @Override
    public CompletableFuture<Void> replicaDrained(String topic, int partition) {
        return askRegistered(epoch -> new ControllerRequest.ReplicaDrained(config.nodeId(), epoch, topic, partition),
                Void.class);
    }

    @Override
    public CompletableFuture<Void> replaceTopicConfigs(String topic, Map<String, String> configs) {
        return channel.ask(new ControllerRequest.ReplaceTopicConfigs(topic, configs), Void.class);
    }

    @Override
    public CompletableFuture<Void> replaceTopicConfigs(String topic, Map<String, String> expected,
                                                       Map<String, String> configs) {
        return channel.ask(new ControllerRequest.ReplaceTopicConfigs(topic, configs, expected), Void.class);
    }

    @Override
    public CompletableFuture<ProducerIdBlock> allocateProducerIds() {
        return askRegistered(epoch -> new ControllerRequest.AllocateProducerIds(config.nodeId(), epoch),
                ProducerIdBlock.class);
    }

    @Override
    public QuorumStatus quorumStatus() {
        return QuorumStatuses.of(node);
    }

    @Override
    public Map<Integer, String> voterAddresses() {
        return node.members().voters();
    }

    @Override
    public CompletableFuture<Void> addVoter(int nodeId) {
        return changeMembers(current -> {
            if (current.voters().containsKey(nodeId)) {
                throw new ControllerException(ControllerError.DUPLICATE_VOTER, "node " + nodeId + " is a voter already");
            }
            String address = current.listeners().get(nodeId);
            if (address == null) {
                throw new ControllerException(ControllerError.VOTER_NOT_FOUND, "node " + nodeId + " does not follow "
                        + "the metadata log: start it with " + QuorumConfig.CONTROLLER_QUORUM_BOOTSTRAP_SERVERS
                        + " first, then make it a voter");
            }
            return current.withVoter(nodeId, address);
        });
    }

    @Override
    public CompletableFuture<Void> removeVoter(int nodeId) {
        return changeMembers(current -> {
            String address = current.voters().get(nodeId);
            if (address == null) {
                throw new ControllerException(ControllerError.VOTER_NOT_FOUND, "node " + nodeId + " is not a voter");
            }
            if (current.voters().size() == 1) {
                throw new ControllerException(ControllerError.INVALID_REQUEST, "node " + nodeId
                        + " is the last voter of the metadata quorum");
            }
            long led = node.read(image -> image.topics().values().stream()
                    .flatMap(t -> t.partitions().values().stream()).filter(p -> p.leader() == nodeId).count());
            if (led > 0) {
                throw new ControllerException(ControllerError.INVALID_REQUEST, "node " + nodeId + " still leads "
                        + led + " partitions: move them first");
            }
            return current.withListener(nodeId, address);
        });
    }

    /**
     * Changes the quorum's members, as {@code change} computes them from the leader's, through the
     * leader; off Ratis' and the scheduler's threads, since it waits for the change to commit.
     */
    private CompletableFuture<Void> changeMembers(java.util.function.UnaryOperator<QuorumMembers> change) {
        return CompletableFuture.runAsync(() -> {
            QuorumMembers current = node.leaderMembers();
            if (current == null) {
                throw new ControllerException(ControllerError.NOT_CONTROLLER, "no voter answers as the leader");
            }
            try {
                node.changeMembers(current, change.apply(current));
            } catch (IOException e) {
                throw new ControllerException(ControllerError.NOT_CONTROLLER, e.getMessage());
            }
        }, callbacks);
    }

    @Override
    public CompletableFuture<Void> unregisterBroker(int brokerId) {
        return channel.ask(new ControllerRequest.UnregisterBroker(brokerId), Void.class);
    }

    @Override
    public CompletableFuture<List<Boolean>> writeSecurity(List<MetadataRecord> records) {
        if (records.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        ControllerRequest.WriteSecurity request = new ControllerRequest.WriteSecurity(records);
        try {
            request.encode();
        } catch (IllegalArgumentException e) {
            // a string longer than the format's i16 length allows
            return CompletableFuture.failedFuture(new ControllerException(ControllerError.INVALID_REQUEST,
                    e.getMessage()));
        }
        return channel.ask(request, List.class).thenApply(RatisClusterMember::flags);
    }

    @Override
    public CompletableFuture<Void> readBarrier() {
        return channel.ask(new ControllerRequest.ReadBarrier(), Void.class);
    }

    private static List<Boolean> flags(List<?> reply) {
        return reply.stream().map(Boolean.class::cast).toList();
    }

    @Override
    public CompletableFuture<QuorumStatus> leaderQuorumStatus() {
        return channel.ask(new ControllerRequest.DescribeQuorum(), QuorumStatus.class);
    }

    @Override
    public CompletableFuture<Void> shutDownBroker() {
        heartbeating = false;
        long epoch = brokerEpoch;
        if (!broker || epoch < 0) {
            return CompletableFuture.completedFuture(null);
        }
        return channel.ask(new ControllerRequest.ControlledShutdown(config.nodeId(), epoch), Void.class);
    }

    /** How long {@link #close()} waits for the controller to fence this broker. */
    long shutdownWaitMs() {
        return Math.min(self.sessionTimeoutMs(), Math.max(1000, 2 * self.heartbeatIntervalMs()));
    }

    /** The controller channel's asking side, for tests that speak to the controller directly. */
    ControllerChannel channel() {
        return channel;
    }

    /** This node's quorum voter, for tests that send the controller raw bytes. */
    MetadataQuorumNode quorumNode() {
        return node;
    }

    @Override
    public void closeWithoutShutdown() throws IOException {
        closed = true;
        close();
    }

    @Override
    public void close() throws IOException {
        if (!closed) {
            try {
                shutDownBroker().get(shutdownWaitMs(), TimeUnit.MILLISECONDS);
                LOG.info("Broker {} is fenced for its shutdown", config.nodeId());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.info("Broker {} stops without a controlled shutdown (the controller fences it after {} ms): {}",
                        config.nodeId(), self.sessionTimeoutMs(), e.toString());
            }
        }
        closed = true;
        scheduler.shutdownNow();
        try {
            node.close();
        } finally {
            waiters.close();
            callbacks.shutdown();
        }
    }
}
