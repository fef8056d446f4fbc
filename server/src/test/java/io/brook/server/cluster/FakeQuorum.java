package io.brook.server.cluster;

import io.brook.cluster.controller.Controller;
import io.brook.cluster.controller.ControllerError;
import io.brook.cluster.controller.ControllerException;
import io.brook.cluster.controller.ProducerIdBlock;
import io.brook.cluster.member.ClusterMember;
import io.brook.cluster.member.QuorumStatus;
import io.brook.cluster.metadata.BrokerInfo;
import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataRecord.FenceBroker;
import io.brook.cluster.raft.AppendResult;
import io.brook.cluster.raft.MetadataLog;
import io.brook.testkit.MutableClock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A metadata quorum without Raft for server tests: one image that every batch is applied to at
 * once, the real {@link Controller} deciding over it, and in-memory {@link ClusterMember}s for
 * the brokers of one JVM (each registers and heartbeats once at start, so it is unfenced at once).
 */
public final class FakeQuorum implements MetadataLog {

    private final MetadataImage image = new MetadataImage();
    private final MutableClock clock = new MutableClock(0);
    private final Controller controller = new Controller(clock, Controller.DEFAULT_SESSION_TIMEOUT_MS, this,
            UUID::randomUUID);
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private long index = -1;
    private volatile int controllerId = 1;
    private volatile ControllerError securityRefusal;
    /** Appends wait for this: {@link #hold()} makes the quorum slow until {@link #release()}. */
    private volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);

    @Override
    public synchronized <T> T read(Function<MetadataImage, T> reader) {
        return reader.apply(image);
    }

    @Override
    public synchronized long lastAppliedIndex() {
        return index;
    }

    @Override
    public CompletableFuture<AppendResult> append(List<? extends MetadataRecord> records) {
        CompletableFuture<Void> g = gate;
        if (!g.isDone()) {
            return g.thenCompose(v -> append(records));
        }
        AppendResult result;
        synchronized (this) {
            List<Boolean> applied = image.applyBatch(records);
            result = new AppendResult(++index, applied);
        }
        listeners.forEach(Runnable::run);
        return CompletableFuture.completedFuture(result);
    }

    /** The members start through this. */
    public MemberFactory members() {
        return (quorum, endpoints, rack, heartbeat, session, c) -> new Member(quorum.nodeId(), endpoints, rack);
    }

    /** From now on appends (and so every decision that writes) wait until {@link #release()}. */
    public void hold() {
        gate = new CompletableFuture<>();
    }

    /** Lets the held appends through, in order. */
    public void release() {
        gate.complete(null);
    }

    /** Fences a broker as the controller does when its session times out. */
    public void fence(int brokerId) {
        BrokerInfo b = read(i -> i.brokers().get(brokerId));
        append(List.of(new FenceBroker(brokerId, b.epoch()))).join();
    }

    /** Unfences a broker as its next heartbeat does. */
    public void unfence(int brokerId) {
        BrokerInfo b = read(i -> i.brokers().get(brokerId));
        controller.heartbeat(brokerId, b.epoch()).join();
    }

    /** From now on security writes fail with {@code error} (null: they are decided again). */
    public void refuseSecurityWrites(ControllerError error) {
        this.securityRefusal = error;
    }

    public void controllerId(int id) {
        this.controllerId = id;
    }

    final class Member implements ClusterMember {
        private final int nodeId;
        private final CompletableFuture<Void> unfenced;
        private volatile long epoch = -1;

        Member(int nodeId, List<Endpoint> endpoints, String rack) {
            this.nodeId = nodeId;
            this.unfenced = controller.registerBroker(nodeId, UUID.randomUUID(), endpoints, rack)
                    .thenCompose(e -> {
                        epoch = e;
                        return controller.heartbeat(nodeId, e);
                    });
        }

        @Override
        public int nodeId() {
            return nodeId;
        }

        @Override
        public String clusterId() {
            return "fake-cluster";
        }

        @Override
        public <T> T read(Function<MetadataImage, T> reader) {
            return FakeQuorum.this.read(reader);
        }

        @Override
        public long lastAppliedIndex() {
            return FakeQuorum.this.lastAppliedIndex();
        }

        @Override
        public void onChange(Runnable listener) {
            listeners.add(listener);
        }

        @Override
        public int controllerId() {
            return controllerId;
        }

        @Override
        public long brokerEpoch() {
            return epoch;
        }

        @Override
        public CompletableFuture<Void> unfenced() {
            return unfenced;
        }

        @Override
        public CompletableFuture<UUID> createTopic(String name, int partitions, int replicationFactor,
                Map<String, String> configs) {
            return controller.createTopic(name, partitions, replicationFactor, configs);
        }

        @Override
        public CompletableFuture<UUID> createTopic(String name, List<List<Integer>> assignment,
                Map<String, String> configs) {
            return controller.createTopic(name, assignment, configs);
        }

        @Override
        public CompletableFuture<Void> createPartitions(String name, int totalCount) {
            return controller.createPartitions(name, totalCount);
        }

        @Override
        public CompletableFuture<Void> createPartitions(String name, int totalCount, List<List<Integer>> assignment) {
            return controller.createPartitions(name, totalCount, assignment);
        }

        @Override
        public CompletableFuture<Void> deleteTopic(String name) {
            return controller.deleteTopic(name);
        }

        @Override
        public CompletableFuture<Void> alterTopicConfig(String topic, String key, String value) {
            return controller.alterTopicConfig(topic, key, value);
        }

        @Override
        public CompletableFuture<Void> replaceTopicConfigs(String topic, Map<String, String> configs) {
            return controller.replaceTopicConfigs(topic, configs);
        }

        @Override
        public CompletableFuture<Void> replaceTopicConfigs(String topic, Map<String, String> expected,
                                                           Map<String, String> configs) {
            return controller.replaceTopicConfigs(topic, expected, configs);
        }

        @Override
        public CompletableFuture<ProducerIdBlock> allocateProducerIds() {
            return controller.allocateProducerIds(nodeId, epoch);
        }

        @Override
        public CompletableFuture<List<Boolean>> writeSecurity(List<MetadataRecord> records) {
            ControllerError refusal = securityRefusal;
            return refusal == null ? controller.writeSecurity(records)
                    : CompletableFuture.failedFuture(new ControllerException(refusal, "refused by the test"));
        }

        /** Every member shares the one image: nothing to catch up with. */
        @Override
        public CompletableFuture<Void> readBarrier() {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public QuorumStatus quorumStatus() {
            return new QuorumStatus(controllerId, 1, lastAppliedIndex(), List.of(), List.of());
        }

        @Override
        public CompletableFuture<Void> shutDownBroker() {
            return controller.controlledShutdown(nodeId, epoch);
        }

        @Override
        public CompletableFuture<QuorumStatus> leaderQuorumStatus() {
            return CompletableFuture.completedFuture(quorumStatus());
        }

        @Override
        public void close() {
            // nothing runs in the background
        }
    }
}
