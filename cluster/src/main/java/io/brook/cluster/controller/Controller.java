package io.brook.cluster.controller;

import io.brook.cluster.metadata.BrokerInfo;
import io.brook.cluster.metadata.ConfigResource;
import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataRecord.Config;
import io.brook.cluster.metadata.MetadataRecord.Configs;
import io.brook.cluster.metadata.MetadataRecord.FenceBroker;
import io.brook.cluster.metadata.MetadataRecord.NodeDirectory;
import io.brook.cluster.metadata.MetadataRecord.Partition;
import io.brook.cluster.metadata.MetadataRecord.PartitionChange;
import io.brook.cluster.metadata.MetadataRecord.ProducerIds;
import io.brook.cluster.metadata.MetadataRecord.RegisterBroker;
import io.brook.cluster.metadata.MetadataRecord.RemoveTopic;
import io.brook.cluster.metadata.MetadataRecord.Topic;
import io.brook.cluster.metadata.MetadataRecord.UnfenceBroker;
import io.brook.cluster.metadata.MetadataRecord.UnregisterBroker;
import io.brook.cluster.metadata.PartitionInfo;
import io.brook.cluster.metadata.TopicInfo;
import io.brook.cluster.raft.AppendResult;
import io.brook.cluster.raft.MetadataLog;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The controller's decisions (docs/cluster.md, section 5): broker registration, heartbeats,
 * fencing and unfencing, placement of new partitions, topic deletion, configs, producer-id
 * blocks, and the writes of ACLs, SCRAM credentials, client quotas and delegation tokens. The
 * node that is the Ratis leader runs one; every decision is a batch of records appended to the
 * {@link MetadataLog}, and it takes effect, here as on every node, only when the batch is
 * committed and applied.
 *
 * <p>Decisions run one at a time, in the order they were asked for: each reads the image after
 * the previous one was applied, so two decisions never rest on the same stale state. A batch the
 * image rejects in part (possible only if another controller wrote in between) fails the decision
 * with NOT_CONTROLLER, except a security write, whose per-record outcome is its answer. At most {@link #MAX_QUEUED_DECISIONS} decisions wait at once (a slow quorum
 * must not let the queue, and the requests waiting on it, grow without end): beyond that a
 * decision is refused at once with NOT_CONTROLLER, which Kafka's clients retry after a back-off
 * (and nodes retry their registration, heartbeats and producer-id blocks anyway); nothing of it
 * was decided.
 *
 * <p>Time: {@link #tick()} fences the brokers not heard for {@code broker.session.timeout.ms}
 * by the injected clock; the caller schedules it (a broker would call it about every heartbeat
 * interval). Thread-safe: any thread may ask for decisions.
 */
public final class Controller {

    /** Kafka's default of broker.session.timeout.ms. */
    public static final long DEFAULT_SESSION_TIMEOUT_MS = 9000;

    private static final Pattern LEGAL_TOPIC_NAME = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    private final Clock clock;
    private final long sessionTimeoutMs;
    private final MetadataLog log;
    private final Supplier<UUID> topicIds;
    private final BrokerLiveness liveness = new BrokerLiveness();
    /** The epoch of each broker that asked for a controlled shutdown: its late heartbeats do not unfence it. */
    private final Map<Integer, Long> shuttingDown = new ConcurrentHashMap<>();
    private CompletableFuture<?> last = CompletableFuture.completedFuture(null);
    private final int maxQueued;
    /** Decisions asked for and not completed yet. */
    private final AtomicInteger queued = new AtomicInteger();

    /**
     * How many decisions may wait at once. Each waits for the ones before it to be committed (a
     * few milliseconds each on a healthy quorum, see docs/scaling.md), so 10 000 is tens of
     * seconds of work: more would only time out at the asking node.
     */
    public static final int MAX_QUEUED_DECISIONS = 10_000;

    /** At most this many records in one {@link #writeSecurity} (one request, one log entry). */
    public static final int MAX_SECURITY_RECORDS = 10_000;

    /**
     * @param topicIds where new topic ids come from ({@code UUID::randomUUID}; tests fix them)
     */
    public Controller(Clock clock, long sessionTimeoutMs, MetadataLog log, Supplier<UUID> topicIds) {
        this(clock, sessionTimeoutMs, log, topicIds, MAX_QUEUED_DECISIONS);
    }

    /** As the other constructor, with at most {@code maxQueued} decisions waiting at once (tests). */
    public Controller(Clock clock, long sessionTimeoutMs, MetadataLog log, Supplier<UUID> topicIds, int maxQueued) {
        if (maxQueued < 1) {
            throw new IllegalArgumentException("maxQueued must be positive: " + maxQueued);
        }
        this.maxQueued = maxQueued;
        this.clock = clock;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.log = log;
        this.topicIds = topicIds;
    }

    /**
     * Runs {@code decision} after every decision asked for before it has completed; refused at once
     * with NOT_CONTROLLER when {@link #MAX_QUEUED_DECISIONS} wait already.
     *
     * <p>Locking: the lock only orders the queue. A decision appends to the log through Ratis'
     * client, which completes its futures while it holds a lock of its own, so no decision runs,
     * and no completion waits, under this object's lock: the two locks taken in both orders
     * deadlocked the controller (a decision appending while a reply completed the previous one).
     */
    private <T> CompletableFuture<T> decide(Supplier<CompletableFuture<T>> decision) {
        CompletableFuture<Void> turn = new CompletableFuture<>();
        CompletableFuture<?> previous;
        CompletableFuture<T> next;
        synchronized (this) {
            if (queued.get() >= maxQueued) {
                return CompletableFuture.failedFuture(new ControllerException(ControllerError.NOT_CONTROLLER,
                        "the controller has " + queued.get() + " decisions waiting; try again later"));
            }
            queued.incrementAndGet();
            previous = last;
            next = turn.thenCompose(v -> {
                try {
                    return decision.get();
                } catch (RuntimeException e) {
                    return CompletableFuture.failedFuture(e);
                }
            });
            last = next;
        }
        next.whenComplete((v, e) -> queued.decrementAndGet());
        // outside the lock: when the previous decision is already done, this one runs here and now
        previous.whenComplete((v, e) -> turn.complete(null));
        return next;
    }

    /** Decisions asked for and not completed yet. */
    public int queuedDecisions() {
        return queued.get();
    }

    private CompletableFuture<AppendResult> append(List<MetadataRecord> records) {
        return log.append(records).thenApply(result -> {
            if (!result.allApplied()) {
                throw new ControllerException(ControllerError.NOT_CONTROLLER, "the metadata changed under the decision "
                        + records + " (applied " + result.applied() + "); another controller wrote in between");
            }
            return result;
        });
    }

    /**
     * Registers a broker (fenced, until its first heartbeat) and returns its new epoch, above its
     * old one and above every log index so far, so that an epoch is never given twice even after
     * the broker was unregistered. Refused with DUPLICATE_BROKER_REGISTRATION while another
     * process (another incarnation id) holds the id and heartbeats.
     */
    public CompletableFuture<Long> registerBroker(int brokerId, UUID incarnationId, List<Endpoint> listeners,
                                                  String rack) {
        return decide(() -> {
            long now = clock.millis();
            BrokerInfo old = log.read(image -> image.brokers().get(brokerId));
            if (old != null && !old.incarnationId().equals(incarnationId) && !old.fenced()
                    && liveness.alive(brokerId, now, sessionTimeoutMs)) {
                throw new ControllerException(ControllerError.DUPLICATE_BROKER_REGISTRATION, "broker id " + brokerId
                        + " is in use by another process (incarnation " + old.incarnationId() + ", heard "
                        + liveness.sinceHeard(brokerId, now) + " ms ago)");
            }
            long epoch = Math.max(old == null ? 0 : old.epoch(), log.lastAppliedIndex()) + 1;
            return append(List.of(new RegisterBroker(brokerId, incarnationId, epoch, listeners, rack)))
                    .thenApply(r -> {
                        liveness.heard(brokerId, now);
                        return epoch;
                    });
        });
    }

    /**
     * A broker's heartbeat: refreshes its session and unfences it if it was fenced. Completes
     * once the broker is unfenced; fails with STALE_BROKER_EPOCH for an epoch that is not its
     * current one (it must register again) or BROKER_ID_NOT_REGISTERED.
     *
     * <p>A heartbeat of a live broker writes nothing, so it does not wait behind the queued
     * decisions: it refreshes the session at once (a heartbeat queued behind some 600 decisions
     * would arrive after a {@link #tick()} had fenced a live broker, docs/scaling.md). Only the
     * unfencing of a fenced broker is a decision, queued like the others.
     */
    public CompletableFuture<Void> heartbeat(int brokerId, long brokerEpoch) {
        try {
            BrokerInfo live = requireBroker(brokerId, brokerEpoch);
            if (!live.fenced()) {
                liveness.heard(brokerId, clock.millis());
                return CompletableFuture.completedFuture(null);
            }
        } catch (ControllerException e) {
            return CompletableFuture.failedFuture(e);
        }
        return decide(() -> {
            BrokerInfo b = requireBroker(brokerId, brokerEpoch);
            liveness.heard(brokerId, clock.millis());
            if (!b.fenced() || Long.valueOf(brokerEpoch).equals(shuttingDown.get(brokerId))) {
                // a heartbeat sent before a controlled shutdown must not unfence the broker again
                return CompletableFuture.completedFuture(null);
            }
            return append(List.of(new UnfenceBroker(brokerId, brokerEpoch))).thenApply(r -> null);
        });
    }

    /**
     * A broker that stops cleanly (Kafka: a heartbeat with {@code want_shut_down}) is fenced at
     * once, so that its partitions move (or, with one replica, go leaderless) now rather than
     * after its session times out; it registers again when it comes back. Completes once the
     * fence is applied (at once if it is fenced already).
     */
    public CompletableFuture<Void> controlledShutdown(int brokerId, long brokerEpoch) {
        return decide(() -> {
            BrokerInfo b = requireBroker(brokerId, brokerEpoch);
            shuttingDown.put(brokerId, brokerEpoch);
            if (b.fenced()) {
                return CompletableFuture.completedFuture(null);
            }
            return append(List.of(new FenceBroker(brokerId, brokerEpoch))).thenApply(r -> null);
        });
    }

    /**
     * Forgets a broker's registration (Kafka's UnregisterBroker, {@code kafka-cluster.sh
     * unregister}): a live broker is fenced first, in the same batch, so that it leads nothing
     * when it is forgotten, as Kafka's controller does; its partitions keep it as an offline
     * replica. A broker that still runs registers again (with a new epoch) at its next heartbeat.
     * Fails with BROKER_ID_NOT_REGISTERED for an id the image does not have.
     */
    public CompletableFuture<Void> unregisterBroker(int brokerId) {
        return decide(() -> {
            BrokerInfo b = log.read(image -> image.brokers().get(brokerId));
            if (b == null) {
                throw new ControllerException(ControllerError.BROKER_ID_NOT_REGISTERED, "Broker ID " + brokerId
                        + " is not currently registered");
            }
            List<MetadataRecord> records = new ArrayList<>();
            if (!b.fenced()) {
                records.add(new FenceBroker(brokerId, b.epoch()));
            }
            records.add(new UnregisterBroker(brokerId, b.epoch()));
            shuttingDown.remove(brokerId);
            return append(records).thenApply(r -> null);
        });
    }

    /**
     * Records node {@code nodeId}'s data directory id (KIP-853), as the node reports it once
     * registered; nothing is written when the image has it already.
     */
    public CompletableFuture<Void> recordDirectory(int nodeId, UUID directoryId) {
        return decide(() -> {
            if (directoryId.equals(new UUID(0, 0))) {
                throw new ControllerException(ControllerError.INVALID_REQUEST, "node " + nodeId
                        + " reported no directory id");
            }
            if (directoryId.equals(log.read(image -> image.directories().get(nodeId)))) {
                return CompletableFuture.completedFuture(null);
            }
            return append(List.of(new NodeDirectory(nodeId, directoryId))).thenApply(r -> null);
        });
    }

    /**
     * Writes ACL entries, SCRAM credentials, client quotas, delegation tokens and group settings
     * (records 14 to 22, as the asking node built them from a CreateAcls, DeleteAcls,
     * AlterUserScramCredentials, AlterClientQuotas, one of the delegation token requests or a
     * change of a group's configs, or from its sweep of expired tokens) as one log entry, queued
     * with the other decisions; completes once it is applied here with, per record, whether the
     * image applied it (false for the removal of an ACL entry or a credential that is absent, the
     * new expiry of an absent token, or a record the image finds malformed; the removal of an
     * absent token or of an absent group setting applies): unlike the other decisions a record
     * rejected in part is an answer, not a failure. Refused with INVALID_REQUEST, nothing written,
     * when a record is of another type or there are more than {@link #MAX_SECURITY_RECORDS}; no
     * records complete at once with none.
     */
    public CompletableFuture<List<Boolean>> writeSecurity(List<MetadataRecord> records) {
        List<MetadataRecord> batch = List.copyOf(records);
        if (batch.size() > MAX_SECURITY_RECORDS) {
            return CompletableFuture.failedFuture(new ControllerException(ControllerError.INVALID_REQUEST,
                    batch.size() + " security records in one write; at most " + MAX_SECURITY_RECORDS));
        }
        for (MetadataRecord r : batch) {
            if (!MetadataRecord.isSecurity(r.type())) {
                return CompletableFuture.failedFuture(new ControllerException(ControllerError.INVALID_REQUEST,
                        "not a security record: " + r));
            }
        }
        if (batch.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        return decide(() -> log.append(batch).thenApply(AppendResult::applied));
    }

    private BrokerInfo requireBroker(int brokerId, long brokerEpoch) {
        BrokerInfo b = log.read(image -> image.brokers().get(brokerId));
        if (b == null) {
            throw new ControllerException(ControllerError.BROKER_ID_NOT_REGISTERED, "broker " + brokerId
                    + " is not registered");
        }
        if (b.epoch() != brokerEpoch) {
            throw new ControllerException(ControllerError.STALE_BROKER_EPOCH, "broker " + brokerId + " has epoch "
                    + b.epoch() + ", not " + brokerEpoch);
        }
        return b;
    }

    /**
     * Fences every unfenced broker not heard for longer than the session time-out; completes with
     * their ids (empty if none). The partitions they led move as {@code FenceBroker} says.
     */
    public CompletableFuture<List<Integer>> tick() {
        return decide(() -> {
            long now = clock.millis();
            List<MetadataRecord> fences = new ArrayList<>();
            List<Integer> ids = new ArrayList<>();
            for (BrokerInfo b : log.read(image -> List.copyOf(image.brokers().values()))) {
                if (!b.fenced() && !liveness.alive(b.id(), now, sessionTimeoutMs)) {
                    fences.add(new FenceBroker(b.id(), b.epoch()));
                    ids.add(b.id());
                }
            }
            if (fences.isEmpty()) {
                return CompletableFuture.completedFuture(List.of());
            }
            return append(fences).thenApply(r -> List.copyOf(ids));
        });
    }

    /**
     * Creates a topic: its partitions placed over the live brokers ({@link PartitionPlacer}), the
     * first replica leading, every replica in the ISR, and its configs, all in one batch.
     */
    public CompletableFuture<UUID> createTopic(String name, int partitions, int replicationFactor,
                                               Map<String, String> configs) {
        return create(name, configs, () -> {
            if (partitions < 1) {
                throw new ControllerException(ControllerError.INVALID_PARTITIONS, "partitions must be at least 1, not "
                        + partitions);
            }
        }, placement -> PartitionPlacer.place(0, partitions, replicationFactor, placement.live(), placement.start()));
    }

    /**
     * Creates a topic whose partition p has the replicas {@code assignment.get(p)} (Kafka's manual
     * assignment, {@code kafka-topics.sh --replica-assignment}), with Kafka's checks: a replica
     * list is not empty, names a broker at most once and only registered brokers, and not only
     * fenced ones; the first live replica leads, the live replicas are the ISR.
     */
    public CompletableFuture<UUID> createTopic(String name, List<List<Integer>> assignment,
                                               Map<String, String> configs) {
        return create(name, configs, () -> {
            if (assignment.isEmpty()) {
                throw new ControllerException(ControllerError.INVALID_PARTITIONS, "partitions must be at least 1, not 0");
            }
        }, placement -> checked(assignment, 0, placement.live(), placement.registered()));
    }

    /**
     * {@code assignment}, the replicas of partitions {@code first}, {@code first + 1}, ..., if it
     * passes Kafka's checks of a manual assignment, else the refusal: a list is not empty, names
     * only registered brokers and each at most once, and at least one live broker.
     */
    private static List<List<Integer>> checked(List<List<Integer>> assignment, int first, List<BrokerInfo> liveBrokers,
                                               Set<Integer> registered) {
        Set<Integer> live = ids(liveBrokers);
        for (int k = 0; k < assignment.size(); k++) {
            List<Integer> r = assignment.get(k);
            if (r.isEmpty()) {
                throw new ControllerException(ControllerError.INVALID_REPLICA_ASSIGNMENT,
                        "The manual partition assignment includes an empty replica list.");
            }
            for (int id : r) {
                if (!registered.contains(id)) {
                    throw new ControllerException(ControllerError.INVALID_REPLICA_ASSIGNMENT,
                            "The manual partition assignment includes broker " + id
                                    + ", but no such broker is registered.");
                }
            }
            if (new HashSet<>(r).size() != r.size()) {
                throw new ControllerException(ControllerError.INVALID_REPLICA_ASSIGNMENT,
                        "The manual partition assignment includes a broker more than once: " + r);
            }
            if (r.stream().noneMatch(live::contains)) {
                throw new ControllerException(ControllerError.INVALID_REPLICA_ASSIGNMENT, "All brokers specified"
                        + " in the manual partition assignment for partition " + (first + k)
                        + " are fenced or in controlled shutdown.");
            }
        }
        return assignment;
    }

    private static Set<Integer> ids(List<BrokerInfo> brokers) {
        Set<Integer> ids = new HashSet<>();
        brokers.forEach(b -> ids.add(b.id()));
        return ids;
    }

    /** Partition {@code index} of a topic on {@code replicas}: the first live one leading, the live ones the ISR. */
    private static Partition partition(UUID topicId, int index, List<Integer> replicas, Set<Integer> live) {
        List<Integer> isr = replicas.stream().filter(live::contains).toList();
        return new Partition(topicId, index, replicas, isr, isr.get(0), 0, 0);
    }

    /**
     * The common part of both creations: the name, {@code check}, that no topic has the name, then
     * one batch of the topic, its partitions as {@code place} places them (the first live replica
     * leading, the live ones in the ISR) and its configs.
     */
    private CompletableFuture<UUID> create(String name, Map<String, String> configs, Runnable check,
                                           Function<Placement, List<List<Integer>>> place) {
        return decide(() -> {
            if (!LEGAL_TOPIC_NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
                throw new ControllerException(ControllerError.INVALID_TOPIC_EXCEPTION, "illegal topic name '" + name + "'");
            }
            check.run();
            Placement placement = log.read(image -> {
                if (image.topicId(name) != null) {
                    throw new ControllerException(ControllerError.TOPIC_ALREADY_EXISTS, "topic '" + name + "' already exists");
                }
                return new Placement(liveBrokers(image), Set.copyOf(image.brokers().keySet()), totalPartitions(image),
                        newTopicId(image));
            });
            List<List<Integer>> replicas = place.apply(placement);
            Set<Integer> live = ids(placement.live());
            List<MetadataRecord> records = new ArrayList<>();
            records.add(new Topic(name, placement.topicId()));
            for (int p = 0; p < replicas.size(); p++) {
                records.add(partition(placement.topicId(), p, replicas.get(p), live));
            }
            configs.forEach((k, v) -> records.add(new Config(MetadataRecord.RESOURCE_TOPIC, name, k, v)));
            return append(records).thenApply(r -> placement.topicId());
        });
    }

    /** Adds partitions to a topic up to {@code totalCount}, with the replication factor of its partition 0. */
    public CompletableFuture<Void> createPartitions(String name, int totalCount) {
        return addPartitions(name, totalCount, t -> PartitionPlacer.place(t.count(), totalCount - t.count(),
                t.replicationFactor(), t.live(), t.start()));
    }

    /**
     * Adds partitions to a topic, new partition k on the replicas {@code assignment.get(k)}, up
     * to {@code totalCount} (which must be the topic's count plus the assignment's), with the
     * checks of a manual assignment.
     */
    public CompletableFuture<Void> createPartitions(String name, int totalCount, List<List<Integer>> assignment) {
        return addPartitions(name, totalCount, t -> {
            if (t.count() + assignment.size() != totalCount) {
                throw new ControllerException(ControllerError.INVALID_REPLICA_ASSIGNMENT, "Increasing the number of"
                        + " partitions by " + (totalCount - t.count()) + " but " + assignment.size()
                        + " assignments provided.");
            }
            return checked(assignment, t.count(), t.live(), t.registered());
        });
    }

    /** A topic that grows: its id, partition count, replication factor, and the brokers. */
    private record Existing(UUID id, int count, int replicationFactor, List<BrokerInfo> live, Set<Integer> registered,
                            int start) {
    }

    private CompletableFuture<Void> addPartitions(String name, int totalCount,
                                                  Function<Existing, List<List<Integer>>> place) {
        return decide(() -> {
            Existing t = log.read(image -> {
                TopicInfo topic = requireTopic(image, name);
                PartitionInfo first = topic.partitions().firstEntry().getValue();
                return new Existing(topic.id(), topic.partitions().size(), first.replicas().size(), liveBrokers(image),
                        Set.copyOf(image.brokers().keySet()), totalPartitions(image));
            });
            if (totalCount <= t.count()) {
                throw new ControllerException(ControllerError.INVALID_PARTITIONS, "topic '" + name + "' has "
                        + t.count() + " partitions; the new count " + totalCount + " must be larger");
            }
            List<List<Integer>> replicas = place.apply(t);
            Set<Integer> live = ids(t.live());
            List<MetadataRecord> records = new ArrayList<>();
            for (int k = 0; k < replicas.size(); k++) {
                records.add(partition(t.id(), t.count() + k, replicas.get(k), live));
            }
            return append(records).thenApply(r -> null);
        });
    }

    /** Deletes a topic with its partitions and configs. */
    public CompletableFuture<Void> deleteTopic(String name) {
        return decide(() -> {
            UUID id = log.read(image -> requireTopic(image, name).id());
            return append(List.of(new RemoveTopic(id))).thenApply(r -> null);
        });
    }

    /** Sets ({@code value} non-null) or removes a topic config. */
    public CompletableFuture<Void> alterTopicConfig(String topic, String key, String value) {
        return decide(() -> {
            log.read(image -> requireTopic(image, topic));
            return append(List.of(new Config(MetadataRecord.RESOURCE_TOPIC, topic, key, value))).thenApply(r -> null);
        });
    }

    /**
     * Replaces all of a topic's config overrides with {@code overrides} (AlterConfigs; an
     * IncrementalAlterConfigs resource once its operations are applied): one decision and one
     * {@code Configs} record with every key that changes, so that the change is applied all or
     * nothing and decided against the controller's image rather than the asking node's.
     */
    public CompletableFuture<Void> replaceTopicConfigs(String topic, Map<String, String> overrides) {
        return replaceTopicConfigs(topic, null, overrides);
    }

    /**
     * As {@link #replaceTopicConfigs(String, Map)}, only if the topic's overrides are still {@code
     * expected} (compare-and-set; null: whatever they are), else refused with
     * INVALID_UPDATE_VERSION: a change computed on a node from an image that missed another change
     * of the same topic must not undo it (an IncrementalAlterConfigs from two nodes at once).
     */
    public CompletableFuture<Void> replaceTopicConfigs(String topic, Map<String, String> expected,
                                                       Map<String, String> overrides) {
        return decide(() -> {
            Map<String, String> changes = log.read(image -> {
                requireTopic(image, topic);
                Map<String, String> current = image.configs(new ConfigResource(MetadataRecord.RESOURCE_TOPIC, topic));
                if (expected != null && !expected.equals(current)) {
                    throw new ControllerException(ControllerError.INVALID_UPDATE_VERSION, "the configs of topic "
                            + topic + " changed since the change was computed: compute it again");
                }
                Map<String, String> diff = new TreeMap<>();
                overrides.forEach((k, v) -> {
                    if (!v.equals(current.get(k))) {
                        diff.put(k, v);
                    }
                });
                current.keySet().forEach(k -> {
                    if (!overrides.containsKey(k)) {
                        diff.put(k, null);
                    }
                });
                return diff;
            });
            if (changes.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            return append(List.of(Configs.of(MetadataRecord.RESOURCE_TOPIC, topic, changes))).thenApply(r -> null);
        });
    }

    /**
     * Gives a registered broker the next block of {@link ProducerIdBlock#SIZE} producer ids. The
     * block is recorded before it is handed out, so no id is given twice, even across controllers.
     */
    public CompletableFuture<ProducerIdBlock> allocateProducerIds(int brokerId, long brokerEpoch) {
        return decide(() -> {
            requireBroker(brokerId, brokerEpoch);
            long first = log.read(MetadataImage::nextProducerId);
            ProducerIdBlock block = new ProducerIdBlock(brokerId, first, ProducerIdBlock.SIZE);
            return append(List.of(new ProducerIds(brokerId, brokerEpoch, block.nextBlockFirstId())))
                    .thenApply(r -> block);
        });
    }

    /**
     * Moves a partition to the {@code target} replicas, or cancels the move under way when
     * {@code target} is null ({@link Reassignments}: Kafka's rules, completed at once when the
     * target adds no replica).
     */
    public CompletableFuture<Void> alterPartitionReassignment(String topic, int partition, List<Integer> target) {
        return decide(() -> {
            MetadataRecord r = log.read(image -> {
                TopicInfo t = requireTopic(image, topic);
                PartitionInfo p = requirePartition(t, partition);
                return target == null ? Reassignments.cancel(t.id(), partition, p, image.brokers())
                        : Reassignments.start(t.id(), partition, p, target, image.brokers());
            });
            return append(List.of(r)).thenApply(v -> null);
        });
    }

    /**
     * A broker being added to a partition by a reassignment has copied its log: it joins the ISR,
     * and the reassignment completes (new leader, old replicas dropped) once the whole target is in.
     */
    public CompletableFuture<Void> replicaCaughtUp(int brokerId, long brokerEpoch, String topic, int partition) {
        return decide(() -> {
            requireBroker(brokerId, brokerEpoch);
            MetadataRecord r = log.read(image -> {
                TopicInfo t = requireTopic(image, topic);
                return Reassignments.caughtUp(t.id(), partition, requirePartition(t, partition), brokerId,
                        image.brokers());
            });
            return append(List.of(r)).thenApply(v -> null);
        });
    }

    /**
     * The new leader of a moved partition has read the former leader's log to its end: the
     * former leader leaves the replicas and the move is over ({@link Reassignments#drained}).
     */
    public CompletableFuture<Void> replicaDrained(int brokerId, long brokerEpoch, String topic, int partition) {
        return decide(() -> {
            requireBroker(brokerId, brokerEpoch);
            MetadataRecord r = log.read(image -> {
                TopicInfo t = requireTopic(image, topic);
                return Reassignments.drained(t.id(), partition, requirePartition(t, partition), brokerId);
            });
            return append(List.of(r)).thenApply(v -> null);
        });
    }

    /**
     * ElectLeaders for one partition ({@link Elections}): the preferred replica, or with
     * {@code unclean} any live replica of a partition without a leader.
     */
    public CompletableFuture<Void> electLeader(String topic, int partition, boolean unclean) {
        return decide(() -> {
            PartitionChange r = log.read(image -> {
                TopicInfo t = requireTopic(image, topic);
                PartitionInfo p = requirePartition(t, partition);
                return unclean ? Elections.unclean(t.id(), partition, p, image.brokers())
                        : Elections.preferred(t.id(), partition, p, image.brokers());
            });
            return append(List.of(r)).thenApply(v -> null);
        });
    }

    private static PartitionInfo requirePartition(TopicInfo t, int partition) {
        PartitionInfo p = t.partitions().get(partition);
        if (p == null) {
            throw new ControllerException(ControllerError.UNKNOWN_TOPIC_OR_PARTITION, "no partition " + partition
                    + " of topic '" + t.name() + "'");
        }
        return p;
    }

    private record Placement(List<BrokerInfo> live, Set<Integer> registered, int start, UUID topicId) {
    }

    private static List<BrokerInfo> liveBrokers(MetadataImage image) {
        List<BrokerInfo> live = new ArrayList<>();
        for (BrokerInfo b : image.brokers().values()) {
            if (!b.fenced()) {
                live.add(b);
            }
        }
        return live;
    }

    /** All partitions of all topics: where the next topic's first leader starts, to spread leaders over topics. */
    private static int totalPartitions(MetadataImage image) {
        int total = 0;
        for (TopicInfo t : image.topics().values()) {
            total += t.partitions().size();
        }
        return total;
    }

    private UUID newTopicId(MetadataImage image) {
        UUID id = topicIds.get();
        while (id.equals(new UUID(0, 0)) || image.topics().containsKey(id)) {
            id = topicIds.get();
        }
        return id;
    }

    private static TopicInfo requireTopic(MetadataImage image, String name) {
        UUID id = image.topicId(name);
        if (id == null) {
            throw new ControllerException(ControllerError.UNKNOWN_TOPIC_OR_PARTITION, "no topic '" + name + "'");
        }
        return image.topics().get(id);
    }
}
