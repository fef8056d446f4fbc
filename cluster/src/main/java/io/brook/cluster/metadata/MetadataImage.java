package io.brook.cluster.metadata;

import io.brook.cluster.metadata.MetadataRecord.AccessControlEntry;
import io.brook.cluster.metadata.MetadataRecord.ClientQuota;
import io.brook.cluster.metadata.MetadataRecord.Config;
import io.brook.cluster.metadata.MetadataRecord.Configs;
import io.brook.cluster.metadata.MetadataRecord.DelegationToken;
import io.brook.cluster.metadata.MetadataRecord.FenceBroker;
import io.brook.cluster.metadata.MetadataRecord.NodeDirectory;
import io.brook.cluster.metadata.MetadataRecord.Partition;
import io.brook.cluster.metadata.MetadataRecord.PartitionChange;
import io.brook.cluster.metadata.MetadataRecord.PartitionReassignment;
import io.brook.cluster.metadata.MetadataRecord.ProducerIds;
import io.brook.cluster.metadata.MetadataRecord.RegisterBroker;
import io.brook.cluster.metadata.MetadataRecord.RemoveTopic;
import io.brook.cluster.metadata.MetadataRecord.Topic;
import io.brook.cluster.metadata.MetadataRecord.UnfenceBroker;
import io.brook.cluster.metadata.MetadataRecord.UnregisterBroker;
import io.brook.cluster.metadata.MetadataRecord.UserScramCredential;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The cluster's metadata as of some point of the metadata log: brokers, topics and partitions,
 * configs, the producer-id high-water mark, and the security settings every node shares: ACL
 * entries, SCRAM credentials, client quotas, delegation tokens and the groups' own settings
 * (docs/cluster.md, "The metadata image").
 *
 * <p>{@link #apply(MetadataRecord)} is deterministic: the new state depends only on the image and
 * the record (no clock, no randomness, no hash order: every map is sorted). It checks the whole
 * record before it changes anything, so a rejected record leaves the image as it was, and every
 * node that applies the same log rejects the same records.
 *
 * <p>Threading: not thread-safe. One thread applies (the state machine's, under its lock);
 * readers hold the same lock.
 */
public final class MetadataImage {

    /** Kafka's rule for topic names (Topic.validate): at most 249 of [a-zA-Z0-9._-], not "." or "..". */
    private static final Pattern LEGAL_TOPIC_NAME = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    private final TreeMap<Integer, BrokerInfo> brokers = new TreeMap<>();
    private final TreeMap<UUID, TopicInfo> topics = new TreeMap<>();
    private final TreeMap<String, UUID> topicIdsByName = new TreeMap<>();
    private final TreeMap<ConfigResource, TreeMap<String, String>> configs = new TreeMap<>();
    /** Each node's data directory id (KIP-853), as the node reported it. */
    private final TreeMap<Integer, UUID> directories = new TreeMap<>();
    /** Which partitions each broker is a replica of: fencing and unfencing visit only those. */
    private final ReplicaIndex replicaIndex = new ReplicaIndex();
    /** Partitions fencing and unfencing looked at, ever: what tests check the index by. */
    private long partitionsVisited;
    private long nextProducerId;
    /** The broker and epoch the last producer-id block went to; -1 before any. */
    private int lastProducerIdsBroker = -1;
    private long lastProducerIdsEpoch = -1;
    /** ACL entries, SCRAM credentials, client quotas, delegation tokens and group settings. */
    private final SecurityImage security = new SecurityImage();

    /**
     * Applies one batch record by record, as a node applies a committed entry: a rejected record is
     * skipped and the ones after it still apply. Returns, per record, whether it applied.
     */
    public List<Boolean> applyBatch(List<? extends MetadataRecord> records) {
        List<Boolean> applied = new ArrayList<>(records.size());
        for (MetadataRecord r : records) {
            try {
                apply(r);
                applied.add(true);
            } catch (RejectedRecordException e) {
                applied.add(false);
            }
        }
        return applied;
    }

    /** Applies one record, or throws {@link RejectedRecordException} and changes nothing. */
    public void apply(MetadataRecord record) {
        if (record instanceof RegisterBroker r) {
            registerBroker(r);
        } else if (record instanceof UnregisterBroker r) {
            BrokerInfo b = requireBroker(r.brokerId(), r.brokerEpoch());
            if (!b.fenced()) {
                throw new RejectedRecordException("broker " + r.brokerId() + " must be fenced before it is unregistered");
            }
            brokers.remove(r.brokerId());
        } else if (record instanceof FenceBroker r) {
            BrokerInfo b = requireBroker(r.brokerId(), r.brokerEpoch());
            if (b.fenced()) {
                throw new RejectedRecordException("broker " + r.brokerId() + " is already fenced");
            }
            fence(b);
        } else if (record instanceof UnfenceBroker r) {
            BrokerInfo b = requireBroker(r.brokerId(), r.brokerEpoch());
            if (!b.fenced()) {
                throw new RejectedRecordException("broker " + r.brokerId() + " is not fenced");
            }
            unfence(b);
        } else if (record instanceof Topic r) {
            createTopic(r);
        } else if (record instanceof Partition r) {
            createPartition(r);
        } else if (record instanceof PartitionChange r) {
            changePartition(r);
        } else if (record instanceof PartitionReassignment r) {
            reassignPartition(r);
        } else if (record instanceof RemoveTopic r) {
            TopicInfo t = topics.get(r.topicId());
            if (t == null) {
                throw new RejectedRecordException("no topic with id " + r.topicId());
            }
            topics.remove(r.topicId());
            replicaIndex.topicRemoved(t);
            topicIdsByName.remove(t.name());
            configs.remove(new ConfigResource(MetadataRecord.RESOURCE_TOPIC, t.name()));
        } else if (record instanceof Config r) {
            setConfig(r);
        } else if (record instanceof Configs r) {
            ConfigResource resource = checkConfigResource(r.resourceType(), r.resourceName());
            r.changes().forEach((k, v) -> setConfig(resource, k, v));
        } else if (record instanceof ProducerIds r) {
            if (r.nextProducerId() <= nextProducerId) {
                throw new RejectedRecordException("producer ids must move forward: next " + r.nextProducerId()
                        + " is not above " + nextProducerId);
            }
            nextProducerId = r.nextProducerId();
            lastProducerIdsBroker = r.brokerId();
            lastProducerIdsEpoch = r.brokerEpoch();
        } else if (record instanceof NodeDirectory r) {
            if (r.directoryId().equals(new UUID(0, 0))) {
                throw new RejectedRecordException("node " + r.nodeId() + " reported no directory id");
            }
            directories.put(r.nodeId(), r.directoryId());
        } else if (MetadataRecord.isSecurity(record.type())) {
            security.apply(record);
        } else {
            throw new RejectedRecordException("unknown record " + record);
        }
    }

    private void registerBroker(RegisterBroker r) {
        if (r.brokerId() < 0) {
            throw new RejectedRecordException("negative broker id " + r.brokerId());
        }
        BrokerInfo old = brokers.get(r.brokerId());
        if (old != null && r.brokerEpoch() <= old.epoch()) {
            throw new RejectedRecordException("broker " + r.brokerId() + " registers with epoch " + r.brokerEpoch()
                    + ", not above its current epoch " + old.epoch());
        }
        if (old != null && !old.fenced()) {
            // the broker restarted: what it led before is no longer served until it is unfenced
            fence(old);
        }
        brokers.put(r.brokerId(), new BrokerInfo(r.brokerId(), r.incarnationId(), r.brokerEpoch(),
                r.listeners(), r.rack(), true));
    }

    private BrokerInfo requireBroker(int id, long epoch) {
        BrokerInfo b = brokers.get(id);
        if (b == null) {
            throw new RejectedRecordException("no broker " + id);
        }
        if (b.epoch() != epoch) {
            throw new RejectedRecordException("broker " + id + " has epoch " + b.epoch() + ", not " + epoch);
        }
        return b;
    }

    /**
     * Fences a broker: each partition it leads gets the first other ISR member (in replica order)
     * that is registered and unfenced as leader, and loses it from its ISR; with no such member the
     * partition has no leader and keeps its ISR (its last in-sync replica). From the ISR of the
     * partitions it follows it is removed, unless it is the last member. Only the broker's own
     * partitions are visited (the ISR is within the replicas), through the {@link ReplicaIndex}.
     */
    private void fence(BrokerInfo b) {
        brokers.put(b.id(), b.withFenced(true));
        for (ReplicaIndex.Key k : replicaIndex.partitionsOf(b.id())) {
            TopicInfo t = topics.get(k.topicId());
            PartitionInfo p = t.partitions().get(k.partition());
            partitionsVisited++;
            if (!p.isr().contains(b.id())) {
                continue;
            }
            List<Integer> isrWithout = new ArrayList<>(p.isr());
            isrWithout.remove(Integer.valueOf(b.id()));
            if (p.leader() == b.id()) {
                int next = firstLiveReplica(p.replicas(), isrWithout);
                t.put(k.partition(), next == MetadataRecord.NO_LEADER
                        ? p.change(MetadataRecord.NO_LEADER, p.isr())
                        : p.change(next, isrWithout));
            } else if (!isrWithout.isEmpty()) {
                t.put(k.partition(), p.change(p.leader(), isrWithout));
            }
        }
    }

    private int firstLiveReplica(List<Integer> replicas, List<Integer> candidates) {
        for (int r : replicas) {
            BrokerInfo b = brokers.get(r);
            if (candidates.contains(r) && b != null && !b.fenced()) {
                return r;
            }
        }
        return MetadataRecord.NO_LEADER;
    }

    /** Unfences a broker: partitions without a leader whose ISR holds it get it as leader. */
    private void unfence(BrokerInfo b) {
        brokers.put(b.id(), b.withFenced(false));
        for (ReplicaIndex.Key k : replicaIndex.partitionsOf(b.id())) {
            TopicInfo t = topics.get(k.topicId());
            PartitionInfo p = t.partitions().get(k.partition());
            partitionsVisited++;
            if (p.leader() == MetadataRecord.NO_LEADER && p.isr().contains(b.id())) {
                t.put(k.partition(), p.change(b.id(), p.isr()));
            }
        }
    }

    private void createTopic(Topic r) {
        String name = r.name();
        if (!LEGAL_TOPIC_NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
            throw new RejectedRecordException("illegal topic name '" + name + "'");
        }
        if (topicIdsByName.containsKey(name)) {
            throw new RejectedRecordException("topic '" + name + "' already exists");
        }
        if (topics.containsKey(r.topicId()) || r.topicId().equals(new UUID(0, 0))) {
            throw new RejectedRecordException("topic id " + r.topicId() + " is taken or reserved");
        }
        topics.put(r.topicId(), new TopicInfo(name, r.topicId(), replicaIndex));
        topicIdsByName.put(name, r.topicId());
    }

    private void createPartition(Partition r) {
        TopicInfo t = requireTopic(r.topicId());
        if (r.partition() < 0 || t.partitions().containsKey(r.partition())) {
            throw new RejectedRecordException("partition " + r.partition() + " of topic " + t.name()
                    + " is negative or exists");
        }
        checkReplicas(r.replicas(), "replicas");
        checkLeaderAndIsr(r.replicas(), r.leader(), r.isr());
        if (r.leaderEpoch() < 0 || r.partitionEpoch() < 0) {
            throw new RejectedRecordException("negative epoch in " + r);
        }
        t.put(r.partition(), new PartitionInfo(r.replicas(), r.isr(), r.leader(), r.leaderEpoch(), r.partitionEpoch()));
    }

    private void changePartition(PartitionChange r) {
        TopicInfo t = requireTopic(r.topicId());
        PartitionInfo p = t.partitions().get(r.partition());
        if (p == null) {
            throw new RejectedRecordException("no partition " + r.partition() + " of topic " + t.name());
        }
        checkLeaderAndIsr(p.replicas(), r.leader(), r.isr());
        t.put(r.partition(), p.change(r.leader(), r.isr()));
    }

    private void reassignPartition(PartitionReassignment r) {
        TopicInfo t = requireTopic(r.topicId());
        PartitionInfo p = t.partitions().get(r.partition());
        if (p == null) {
            throw new RejectedRecordException("no partition " + r.partition() + " of topic " + t.name());
        }
        checkReplicas(r.replicas(), "replicas");
        checkLeaderAndIsr(r.replicas(), r.leader(), r.isr());
        if (!r.replicas().containsAll(r.addingReplicas()) || !r.replicas().containsAll(r.removingReplicas())
                || r.addingReplicas().stream().anyMatch(r.removingReplicas()::contains)
                || new HashSet<>(r.addingReplicas()).size() != r.addingReplicas().size()
                || new HashSet<>(r.removingReplicas()).size() != r.removingReplicas().size()
                || r.removingReplicas().size() == r.replicas().size()) {
            throw new RejectedRecordException("adding " + r.addingReplicas() + " and removing " + r.removingReplicas()
                    + " must be distinct members of the replicas " + r.replicas());
        }
        t.put(r.partition(), p.reassign(r.replicas(), r.isr(), r.leader(), r.addingReplicas(), r.removingReplicas()));
    }

    private static void checkReplicas(List<Integer> replicas, String what) {
        if (replicas.isEmpty()) {
            throw new RejectedRecordException("no " + what);
        }
        Set<Integer> seen = new HashSet<>();
        for (int id : replicas) {
            if (id < 0 || !seen.add(id)) {
                throw new RejectedRecordException(what + " " + replicas + " hold a negative or repeated broker id");
            }
        }
    }

    private static void checkLeaderAndIsr(List<Integer> replicas, int leader, List<Integer> isr) {
        checkReplicas(isr, "isr");
        if (!replicas.containsAll(isr)) {
            throw new RejectedRecordException("isr " + isr + " is not within the replicas " + replicas);
        }
        if (leader != MetadataRecord.NO_LEADER && !isr.contains(leader)) {
            throw new RejectedRecordException("leader " + leader + " is not in the isr " + isr);
        }
    }

    private TopicInfo requireTopic(UUID id) {
        TopicInfo t = topics.get(id);
        if (t == null) {
            throw new RejectedRecordException("no topic with id " + id);
        }
        return t;
    }

    private void setConfig(Config r) {
        setConfig(checkConfigResource(r.resourceType(), r.resourceName()), r.key(), r.value());
    }

    /** The resource a config record names, or rejected: a topic that exists, or a broker. */
    private ConfigResource checkConfigResource(byte type, String name) {
        if (type == MetadataRecord.RESOURCE_TOPIC) {
            if (!topicIdsByName.containsKey(name)) {
                throw new RejectedRecordException("config for unknown topic '" + name + "'");
            }
        } else if (type != MetadataRecord.RESOURCE_BROKER) {
            throw new RejectedRecordException("unsupported config resource type " + type);
        }
        return new ConfigResource(type, name);
    }

    private void setConfig(ConfigResource resource, String key, String value) {
        if (value == null) {
            TreeMap<String, String> values = configs.get(resource);
            if (values != null) {
                values.remove(key);
                if (values.isEmpty()) {
                    configs.remove(resource);
                }
            }
        } else {
            configs.computeIfAbsent(resource, k -> new TreeMap<>()).put(key, value);
        }
    }

    /** The registered brokers by id, read-only. */
    public NavigableMap<Integer, BrokerInfo> brokers() {
        return Collections.unmodifiableNavigableMap(brokers);
    }

    /** The topics by id, read-only. */
    public NavigableMap<UUID, TopicInfo> topics() {
        return Collections.unmodifiableNavigableMap(topics);
    }

    /** The id of the topic of that name, or null. */
    public UUID topicId(String name) {
        return topicIdsByName.get(name);
    }

    /** The configs of a topic or broker, read-only and possibly empty. */
    public NavigableMap<String, String> configs(ConfigResource resource) {
        TreeMap<String, String> values = configs.get(resource);
        return values == null ? Collections.emptyNavigableMap() : Collections.unmodifiableNavigableMap(values);
    }

    /** How many partitions {@code brokerId} is a replica of (from the index fencing uses). */
    public int replicaCount(int brokerId) {
        return replicaIndex.count(brokerId);
    }

    /** How many partitions fencing and unfencing brokers have looked at since this image was created. */
    long partitionsVisited() {
        return partitionsVisited;
    }

    /** Each node's data directory id, by node id, read-only (nodes that never reported one are absent). */
    public NavigableMap<Integer, UUID> directories() {
        return Collections.unmodifiableNavigableMap(directories);
    }

    /** The first producer id no broker has been given. */
    public long nextProducerId() {
        return nextProducerId;
    }

    /** The ACL entries, sorted by resource type, resource name, pattern type, principal, host, operation, permission. */
    public List<AccessControlEntry> acls() {
        return security.acls();
    }

    /** The SCRAM credentials, sorted by user and then mechanism. */
    public List<UserScramCredential> scramCredentials() {
        return security.scramCredentials();
    }

    /**
     * The client quotas, one record per entity and key (the value never null), sorted by entity
     * (part by part, default names first) and then key.
     */
    public List<ClientQuota> clientQuotas() {
        return security.clientQuotas();
    }

    /** The delegation tokens, sorted by token id. */
    public List<DelegationToken> delegationTokens() {
        return security.delegationTokens();
    }

    /**
     * The groups' own settings (Kafka's group configs), group by group, each a map of key to value;
     * sorted, read-only and a copy. Groups without settings are absent.
     */
    public SortedMap<String, SortedMap<String, String>> groupConfigs() {
        return security.groupConfigs();
    }

    /**
     * How many security records (types 14 to 22) this image instance has applied, including those
     * that changed nothing: a listener compares it to tell cheaply whether ACLs, credentials,
     * quotas, tokens or group settings may have changed. Counted by this node, from 0 for each new image (one
     * loaded from a snapshot counts the snapshot's records); not state, so neither in {@link
     * #equals} nor in the snapshot.
     */
    public long securityChanges() {
        return security.changes();
    }

    /**
     * The records that rebuild this image when applied in order to an empty one: brokers (fenced
     * on registration, then unfenced where they are), the nodes' directory ids, topics with their
     * partitions, configs, ACL entries, SCRAM credentials, client quotas, delegation tokens, the
     * groups' own settings, and the producer-id high-water mark. Deterministic: two images with
     * the same state give equal lists, which is how snapshots are written and how tests compare
     * images.
     */
    public List<MetadataRecord> toRecords() {
        List<MetadataRecord> out = new ArrayList<>();
        for (BrokerInfo b : brokers.values()) {
            out.add(new RegisterBroker(b.id(), b.incarnationId(), b.epoch(), b.listeners(), b.rack()));
            if (!b.fenced()) {
                out.add(new UnfenceBroker(b.id(), b.epoch()));
            }
        }
        directories.forEach((node, directory) -> out.add(new NodeDirectory(node, directory)));
        for (TopicInfo t : topics.values()) {
            out.add(new Topic(t.name(), t.id()));
            for (Map.Entry<Integer, PartitionInfo> e : t.partitions().entrySet()) {
                PartitionInfo p = e.getValue();
                if (p.reassigning()) {
                    // the reassignment record bumps the partition epoch (and keeps the leader): start one below
                    out.add(new Partition(t.id(), e.getKey(), p.replicas(), p.isr(), p.leader(), p.leaderEpoch(),
                            p.partitionEpoch() - 1));
                    out.add(new PartitionReassignment(t.id(), e.getKey(), p.replicas(), p.isr(), p.leader(),
                            p.addingReplicas(), p.removingReplicas()));
                } else {
                    out.add(new Partition(t.id(), e.getKey(), p.replicas(), p.isr(), p.leader(), p.leaderEpoch(),
                            p.partitionEpoch()));
                }
            }
        }
        for (Map.Entry<ConfigResource, TreeMap<String, String>> e : configs.entrySet()) {
            for (Map.Entry<String, String> kv : e.getValue().entrySet()) {
                out.add(new Config(e.getKey().type(), e.getKey().name(), kv.getKey(), kv.getValue()));
            }
        }
        security.addRecords(out);
        if (nextProducerId > 0) {
            out.add(new ProducerIds(lastProducerIdsBroker, lastProducerIdsEpoch, nextProducerId));
        }
        return out;
    }

    /**
     * Two images are equal when they hold the same state: the same brokers, topics with their
     * partitions, configs, producer-id high-water mark (with the broker and epoch it went to), ACL
     * entries, SCRAM credentials, client quotas, delegation tokens and group settings ({@link
     * #securityChanges()} is not state). Nodes that applied the same log, and an image rebuilt
     * from {@link #toRecords()}, are equal.
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof MetadataImage m && brokers.equals(m.brokers) && topics.equals(m.topics)
                && topicIdsByName.equals(m.topicIdsByName) && configs.equals(m.configs)
                && directories.equals(m.directories) && nextProducerId == m.nextProducerId && lastProducerIdsBroker == m.lastProducerIdsBroker
                && lastProducerIdsEpoch == m.lastProducerIdsEpoch && security.equals(m.security);
    }

    @Override
    public int hashCode() {
        return Objects.hash(brokers, topics, configs, nextProducerId, security);
    }
}
