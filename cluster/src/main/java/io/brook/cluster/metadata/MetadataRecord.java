package io.brook.cluster.metadata;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The records of the metadata log (docs/cluster.md, "Record types"). A decision of the controller
 * is one or more of these, committed together as one Raft log entry and applied in order by
 * {@link MetadataImage#apply(MetadataRecord)} on every node.
 *
 * <p>The numeric {@link #type()} of each record is part of the binary format ({@link
 * MetadataCodec}) and never changes meaning; a changed layout gets a new record version there.
 */
public sealed interface MetadataRecord {

    byte REGISTER_BROKER = 1;
    byte UNREGISTER_BROKER = 2;
    byte FENCE_BROKER = 3;
    byte UNFENCE_BROKER = 4;
    byte TOPIC = 5;
    byte PARTITION = 6;
    byte PARTITION_CHANGE = 7;
    byte REMOVE_TOPIC = 8;
    byte CONFIG = 9;
    byte PRODUCER_IDS = 10;
    byte PARTITION_REASSIGNMENT = 11;
    byte CONFIGS = 12;
    byte NODE_DIRECTORY = 13;
    byte ACCESS_CONTROL_ENTRY = 14;
    byte REMOVE_ACCESS_CONTROL_ENTRY = 15;
    byte USER_SCRAM_CREDENTIAL = 16;
    byte REMOVE_USER_SCRAM_CREDENTIAL = 17;
    byte CLIENT_QUOTA = 18;
    byte DELEGATION_TOKEN = 19;
    byte REMOVE_DELEGATION_TOKEN = 20;
    byte DELEGATION_TOKEN_EXPIRY = 21;
    byte GROUP_CONFIG = 22;

    /** Kafka's ConfigResource type codes, used as the resource types of {@link Config}. */
    byte RESOURCE_TOPIC = 2;
    byte RESOURCE_BROKER = 4;

    /** A partition without a leader (Kafka's -1, LeaderAndIsr.NO_LEADER). */
    int NO_LEADER = -1;

    /** This record's type code in the binary format. */
    byte type();

    /**
     * Whether records of {@code type} are security settings (ACL entries, SCRAM credentials,
     * client quotas, delegation tokens: types 14 to 21), the only ones a security write may carry.
     * The groups' own settings (type 22) count among them: they are small settings an operator
     * changes through any node, so they travel by the same write and are kept beside the others.
     */
    static boolean isSecurity(byte type) {
        return type >= ACCESS_CONTROL_ENTRY && type <= GROUP_CONFIG;
    }

    /** A broker (re)registers; it starts fenced, with an epoch above any it had. */
    record RegisterBroker(int brokerId, UUID incarnationId, long brokerEpoch, List<Endpoint> listeners, String rack)
            implements MetadataRecord {
        public RegisterBroker {
            Objects.requireNonNull(incarnationId, "incarnationId");
            listeners = List.copyOf(listeners);
        }

        @Override
        public byte type() {
            return REGISTER_BROKER;
        }
    }

    /** A fenced broker leaves the cluster. */
    record UnregisterBroker(int brokerId, long brokerEpoch) implements MetadataRecord {
        @Override
        public byte type() {
            return UNREGISTER_BROKER;
        }
    }

    /** A broker is fenced (its session timed out): it leads nothing. */
    record FenceBroker(int brokerId, long brokerEpoch) implements MetadataRecord {
        @Override
        public byte type() {
            return FENCE_BROKER;
        }
    }

    /** A fenced broker is back: it may lead again. */
    record UnfenceBroker(int brokerId, long brokerEpoch) implements MetadataRecord {
        @Override
        public byte type() {
            return UNFENCE_BROKER;
        }
    }

    /** A topic is created (its partitions follow as {@link Partition} records). */
    record Topic(String name, UUID topicId) implements MetadataRecord {
        public Topic {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(topicId, "topicId");
        }

        @Override
        public byte type() {
            return TOPIC;
        }
    }

    /** A partition of an existing topic, with its whole state. */
    record Partition(UUID topicId, int partition, List<Integer> replicas, List<Integer> isr, int leader,
                     int leaderEpoch, int partitionEpoch) implements MetadataRecord {
        public Partition {
            Objects.requireNonNull(topicId, "topicId");
            replicas = List.copyOf(replicas);
            isr = List.copyOf(isr);
        }

        @Override
        public byte type() {
            return PARTITION;
        }
    }

    /** A partition's leader and ISR are replaced; the image bumps its epochs. */
    record PartitionChange(UUID topicId, int partition, int leader, List<Integer> isr) implements MetadataRecord {
        public PartitionChange {
            Objects.requireNonNull(topicId, "topicId");
            isr = List.copyOf(isr);
        }

        @Override
        public byte type() {
            return PARTITION_CHANGE;
        }
    }

    /** A topic is deleted with its partitions and configs. */
    record RemoveTopic(UUID topicId) implements MetadataRecord {
        public RemoveTopic {
            Objects.requireNonNull(topicId, "topicId");
        }

        @Override
        public byte type() {
            return REMOVE_TOPIC;
        }
    }

    /** A topic or broker config is set, or removed when {@code value} is null. */
    record Config(byte resourceType, String resourceName, String key, String value) implements MetadataRecord {
        public Config {
            Objects.requireNonNull(resourceName, "resourceName");
            Objects.requireNonNull(key, "key");
        }

        @Override
        public byte type() {
            return CONFIG;
        }
    }

    /**
     * Several configs of one topic or broker changed together (a value of null removes the key):
     * one AlterConfigs or IncrementalAlterConfigs resource, applied all or nothing. Keys in order.
     */
    record Configs(byte resourceType, String resourceName, SortedMap<String, String> changes)
            implements MetadataRecord {
        public Configs {
            Objects.requireNonNull(resourceName, "resourceName");
            for (String key : changes.keySet()) {
                Objects.requireNonNull(key, "key");
            }
            changes = Collections.unmodifiableSortedMap(new TreeMap<>(changes));
        }

        /** The changes of a resource, from any map (copied, sorted by key). */
        public static Configs of(byte resourceType, String resourceName, Map<String, String> changes) {
            return new Configs(resourceType, resourceName, new TreeMap<>(changes));
        }

        @Override
        public byte type() {
            return CONFIGS;
        }
    }

    /** The producer ids below {@code nextProducerId}, from the previous high-water mark, go to a broker. */
    record ProducerIds(int brokerId, long brokerEpoch, long nextProducerId) implements MetadataRecord {
        @Override
        public byte type() {
            return PRODUCER_IDS;
        }
    }

    /**
     * A step of a partition's reassignment (start, completion or cancellation): its replicas,
     * ISR, leader and the replicas being added and removed are replaced; the image bumps its
     * epochs as {@link PartitionChange} does. Empty adding and removing lists mean no reassignment
     * is under way.
     */
    record PartitionReassignment(UUID topicId, int partition, List<Integer> replicas, List<Integer> isr, int leader,
                                 List<Integer> addingReplicas, List<Integer> removingReplicas)
            implements MetadataRecord {
        public PartitionReassignment {
            Objects.requireNonNull(topicId, "topicId");
            replicas = List.copyOf(replicas);
            isr = List.copyOf(isr);
            addingReplicas = List.copyOf(addingReplicas);
            removingReplicas = List.copyOf(removingReplicas);
        }

        @Override
        public byte type() {
            return PARTITION_REASSIGNMENT;
        }
    }

    /**
     * A node's data directory id (KIP-853's {@code directory.id} in its meta.properties), which
     * DescribeQuorum reports and AddRaftVoter and RemoveRaftVoter check; a node reports it once
     * registered, and it stays when the broker is unregistered (it names the directory, not the
     * registration).
     */
    record NodeDirectory(int nodeId, UUID directoryId) implements MetadataRecord {
        public NodeDirectory {
            Objects.requireNonNull(directoryId, "directoryId");
        }

        @Override
        public byte type() {
            return NODE_DIRECTORY;
        }
    }

    /**
     * An ACL entry is added, in Kafka's codes (resource type, pattern type, operation and
     * permission as Kafka's {@code AclBinding} numbers them); adding one that exists changes
     * nothing and still applies.
     */
    record AccessControlEntry(byte resourceType, String resourceName, byte patternType, String principal, String host,
                              byte operation, byte permission) implements MetadataRecord {
        @Override
        public byte type() {
            return ACCESS_CONTROL_ENTRY;
        }
    }

    /** An ACL entry is removed; rejected when the image does not hold it. */
    record RemoveAccessControlEntry(byte resourceType, String resourceName, byte patternType, String principal,
                                    String host, byte operation, byte permission) implements MetadataRecord {

        /** The removal of {@code e}. */
        public static RemoveAccessControlEntry of(AccessControlEntry e) {
            return new RemoveAccessControlEntry(e.resourceType(), e.resourceName(), e.patternType(), e.principal(),
                    e.host(), e.operation(), e.permission());
        }

        /** The entry this record removes. */
        public AccessControlEntry entry() {
            return new AccessControlEntry(resourceType, resourceName, patternType, principal, host, operation,
                    permission);
        }

        @Override
        public byte type() {
            return REMOVE_ACCESS_CONTROL_ENTRY;
        }
    }

    /**
     * A user's salted SCRAM credential for one mechanism (1 SCRAM-SHA-256, 2 SCRAM-SHA-512), set or
     * replaced: the salt, iteration count and the keys derived from the password, never the
     * password. The arrays are copied in and out, compared by content, and {@link #toString()}
     * leaves them out.
     */
    @SuppressWarnings("ArrayRecordComponent") // copied defensively; equals and hashCode compare contents
    record UserScramCredential(String user, byte mechanism, int iterations, byte[] salt, byte[] storedKey,
                               byte[] serverKey) implements MetadataRecord {
        public UserScramCredential {
            salt = Objects.requireNonNull(salt, "salt").clone();
            storedKey = Objects.requireNonNull(storedKey, "storedKey").clone();
            serverKey = Objects.requireNonNull(serverKey, "serverKey").clone();
        }

        @Override
        public byte[] salt() {
            return salt.clone();
        }

        @Override
        public byte[] storedKey() {
            return storedKey.clone();
        }

        @Override
        public byte[] serverKey() {
            return serverKey.clone();
        }

        @Override
        public byte type() {
            return USER_SCRAM_CREDENTIAL;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof UserScramCredential c && Objects.equals(user, c.user) && mechanism == c.mechanism
                    && iterations == c.iterations && Arrays.equals(salt, c.salt) && Arrays.equals(storedKey, c.storedKey)
                    && Arrays.equals(serverKey, c.serverKey);
        }

        @Override
        public int hashCode() {
            return Objects.hash(user, mechanism, iterations, Arrays.hashCode(salt), Arrays.hashCode(storedKey),
                    Arrays.hashCode(serverKey));
        }

        /** The user, mechanism and iterations only: the salt and keys stay out of logs. */
        @Override
        public String toString() {
            return "UserScramCredential[user=" + user + ", mechanism=" + mechanism + ", iterations=" + iterations + "]";
        }
    }

    /** A user's credential for one mechanism is removed; rejected when the image does not hold it. */
    record RemoveUserScramCredential(String user, byte mechanism) implements MetadataRecord {
        @Override
        public byte type() {
            return REMOVE_USER_SCRAM_CREDENTIAL;
        }
    }

    /**
     * One client-quota setting of one entity. The entity maps entity types ({@code "user"},
     * {@code "client-id"}, {@code "ip"}) to names, a null name being that type's default entity
     * ({@code <default>}); a null {@code value} removes the key (removing a key that is not set
     * applies and changes nothing).
     */
    record ClientQuota(SortedMap<String, String> entity, String key, Double value) implements MetadataRecord {
        public ClientQuota {
            Objects.requireNonNull(entity, "entity");
            TreeMap<String, String> copy = new TreeMap<>();
            entity.forEach((type, name) -> copy.put(Objects.requireNonNull(type, "entity type"), name));
            entity = Collections.unmodifiableSortedMap(copy);
        }

        @Override
        public byte type() {
            return CLIENT_QUOTA;
        }
    }

    /**
     * A delegation token (KIP-48) is created, or replaced whole (snapshots carry tokens this way;
     * renewals and expiries are {@link DelegationTokenExpiry}): its id, the principals that own it, asked for it and may renew it (written
     * {@code User:alice}), and its times in epoch milliseconds. Its password is an HMAC of the id
     * under a key every broker is configured with, so no secret is in the log.
     */
    record DelegationToken(String tokenId, String owner, String requester, List<String> renewers,
                           long issueTimestampMs, long maxTimestampMs, long expiryTimestampMs)
            implements MetadataRecord {
        public DelegationToken {
            renewers = List.copyOf(renewers);
        }

        @Override
        public byte type() {
            return DELEGATION_TOKEN;
        }
    }

    /**
     * A delegation token is removed. Removing one the image does not hold applies and changes
     * nothing: every node drops the tokens it finds expired, so several may remove the same one.
     */
    record RemoveDelegationToken(String tokenId) implements MetadataRecord {
        @Override
        public byte type() {
            return REMOVE_DELEGATION_TOKEN;
        }
    }

    /**
     * The expiry (epoch milliseconds) of an existing delegation token moves: a renewal, or an
     * expiry with a period of 0 or more. Rejected when the image does not hold the token, so that a renewal that races the
     * token's removal through another node cannot bring it back, and when the new expiry is after
     * the token's maximum time.
     */
    record DelegationTokenExpiry(String tokenId, long expiryTimestampMs) implements MetadataRecord {
        @Override
        public byte type() {
            return DELEGATION_TOKEN_EXPIRY;
        }
    }

    /**
     * One setting of one group's own configuration (Kafka's group configs, {@code kafka-configs.sh
     * --entity-type groups}), set, or removed when {@code value} is null (removing a key the group
     * does not have applies and changes nothing). The image keeps the strings as they are: the
     * broker checks the keys and values before it writes them.
     */
    record GroupConfig(String group, String key, String value) implements MetadataRecord {
        @Override
        public byte type() {
            return GROUP_CONFIG;
        }
    }
}
