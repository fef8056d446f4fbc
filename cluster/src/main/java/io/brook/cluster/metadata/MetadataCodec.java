package io.brook.cluster.metadata;

import io.brook.cluster.metadata.MetadataRecord.AccessControlEntry;
import io.brook.cluster.metadata.MetadataRecord.ClientQuota;
import io.brook.cluster.metadata.MetadataRecord.Config;
import io.brook.cluster.metadata.MetadataRecord.Configs;
import io.brook.cluster.metadata.MetadataRecord.DelegationToken;
import io.brook.cluster.metadata.MetadataRecord.DelegationTokenExpiry;
import io.brook.cluster.metadata.MetadataRecord.FenceBroker;
import io.brook.cluster.metadata.MetadataRecord.GroupConfig;
import io.brook.cluster.metadata.MetadataRecord.NodeDirectory;
import io.brook.cluster.metadata.MetadataRecord.Partition;
import io.brook.cluster.metadata.MetadataRecord.PartitionChange;
import io.brook.cluster.metadata.MetadataRecord.PartitionReassignment;
import io.brook.cluster.metadata.MetadataRecord.ProducerIds;
import io.brook.cluster.metadata.MetadataRecord.RegisterBroker;
import io.brook.cluster.metadata.MetadataRecord.RemoveAccessControlEntry;
import io.brook.cluster.metadata.MetadataRecord.RemoveDelegationToken;
import io.brook.cluster.metadata.MetadataRecord.RemoveTopic;
import io.brook.cluster.metadata.MetadataRecord.RemoveUserScramCredential;
import io.brook.cluster.metadata.MetadataRecord.Topic;
import io.brook.cluster.metadata.MetadataRecord.UnfenceBroker;
import io.brook.cluster.metadata.MetadataRecord.UnregisterBroker;
import io.brook.cluster.metadata.MetadataRecord.UserScramCredential;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The binary format of the metadata log: a batch (one Raft log entry) of records.
 *
 * <pre>
 * batch:  magic 'B' 'M' (2) | format version u8 = 1 | record count i32 | records
 * record: type u8 | record version u8 = 1 | payload size i32 | payload
 * </pre>
 *
 * Payloads, big-endian, strings as i16 length (-1 null) + UTF-8, UUIDs as 16 bytes, int lists as
 * i32 count + elements, byte arrays as i32 length + bytes:
 * <pre>
 * RegisterBroker   broker id i32, incarnation uuid, epoch i64, listeners, rack string?
 * UnregisterBroker broker id i32, epoch i64        (so FenceBroker, UnfenceBroker)
 * Topic            name string, topic id uuid
 * Partition        topic id uuid, partition i32, replicas, isr, leader i32, leader epoch i32, partition epoch i32
 * PartitionChange  topic id uuid, partition i32, leader i32, isr
 * RemoveTopic      topic id uuid
 * Config           resource type u8, resource name string, key string, value string?
 * ProducerIds      broker id i32, broker epoch i64, next producer id i64
 * PartitionReassignment topic id uuid, partition i32, replicas, isr, leader i32, adding, removing
 * Configs          resource type u8, resource name string, count i32, count x (key string, value string?)
 *                  (type 12, added after the first release: keys unique, in order)
 * NodeDirectory    node id i32, directory id uuid (type 13, added after the first release)
 * AccessControlEntry resource type u8, resource name string, pattern type u8, principal string, host string,
 *                  operation u8, permission u8   (so RemoveAccessControlEntry; types 14 and 15)
 * UserScramCredential user string, mechanism u8, iterations i32, salt bytes, stored key bytes,
 *                  server key bytes              (type 16)
 * RemoveUserScramCredential user string, mechanism u8 (type 17)
 * ClientQuota      count i32, count x (entity type string, entity name string?), key string,
 *                  value: flag u8 (0 null, 1 present) [f64]   (type 18; entity types unique)
 *                  (types 14 to 18 were added after the first release)
 * DelegationToken  token id string?, owner string?, requester string?, count i32, count x renewer string,
 *                  issue time i64, max time i64, expiry time i64   (type 19; times in epoch ms)
 * RemoveDelegationToken token id string?   (type 20; types 19 and 20 were added after 14 to 18)
 * DelegationTokenExpiry token id string?, expiry time i64   (type 21, added after 19 and 20; epoch ms)
 * GroupConfig      group string?, key string?, value string?   (type 22, added after 21; a null value
 *                  removes the key)
 * </pre>
 *
 * Decoding checks every length and count against what remains, requires each payload to be
 * consumed exactly and the batch to end with its last record, and refuses unknown magic, format
 * versions, types and record versions: a node never skips what it cannot read.
 */
public final class MetadataCodec {

    static final byte MAGIC_0 = 'B';
    static final byte MAGIC_1 = 'M';
    static final byte FORMAT_VERSION = 1;
    static final byte RECORD_VERSION = 1;
    /** Magic, version and count. */
    static final int BATCH_HEADER_BYTES = 2 + 1 + 4;
    /** Type, version and payload size. */
    static final int RECORD_HEADER_BYTES = 1 + 1 + 4;

    private MetadataCodec() {
    }

    /** The bytes of one batch holding {@code records} in order. */
    public static byte[] encodeBatch(List<? extends MetadataRecord> records) {
        MetadataWriter w = new MetadataWriter();
        w.writeByte(MAGIC_0).writeByte(MAGIC_1).writeByte(FORMAT_VERSION).writeInt(records.size());
        for (MetadataRecord r : records) {
            byte[] payload = encodePayload(r);
            w.writeByte(r.type()).writeByte(RECORD_VERSION).writeInt(payload.length).writeBytes(payload);
        }
        return w.toByteArray();
    }

    /** The records of one batch; the whole of {@code buf}'s remaining bytes must be that batch. */
    public static List<MetadataRecord> decodeBatch(ByteBuffer buf) {
        MetadataReader r = new MetadataReader(buf.duplicate());
        byte m0 = r.readByte("magic");
        byte m1 = r.readByte("magic");
        if (m0 != MAGIC_0 || m1 != MAGIC_1) {
            throw new CorruptMetadataException("not a metadata batch: bad magic " + m0 + "," + m1);
        }
        byte version = r.readByte("format version");
        if (version != FORMAT_VERSION) {
            throw new CorruptMetadataException("unsupported metadata format version " + version
                    + " (this node reads version " + FORMAT_VERSION + ")");
        }
        int count = r.readCount("records", RECORD_HEADER_BYTES);
        List<MetadataRecord> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte type = r.readByte("record type");
            byte recordVersion = r.readByte("record version");
            if (recordVersion != RECORD_VERSION) {
                throw new CorruptMetadataException("record " + i + " of type " + type
                        + " has unsupported version " + recordVersion);
            }
            MetadataReader payload = r.slice(r.readInt("payload size"), "payload of record " + i);
            records.add(decodePayload(type, payload));
            if (payload.remaining() != 0) {
                throw new CorruptMetadataException("record " + i + " of type " + type + " has "
                        + payload.remaining() + " unread payload bytes");
            }
        }
        if (r.remaining() != 0) {
            throw new CorruptMetadataException(r.remaining() + " bytes after the last of " + count + " records");
        }
        return records;
    }

    private static byte[] encodePayload(MetadataRecord record) {
        MetadataWriter w = new MetadataWriter();
        if (record instanceof RegisterBroker r) {
            w.writeInt(r.brokerId()).writeUuid(r.incarnationId()).writeLong(r.brokerEpoch())
                    .writeEndpoints(r.listeners()).writeNullableString(r.rack());
        } else if (record instanceof UnregisterBroker r) {
            w.writeInt(r.brokerId()).writeLong(r.brokerEpoch());
        } else if (record instanceof FenceBroker r) {
            w.writeInt(r.brokerId()).writeLong(r.brokerEpoch());
        } else if (record instanceof UnfenceBroker r) {
            w.writeInt(r.brokerId()).writeLong(r.brokerEpoch());
        } else if (record instanceof Topic r) {
            w.writeNullableString(r.name()).writeUuid(r.topicId());
        } else if (record instanceof Partition r) {
            w.writeUuid(r.topicId()).writeInt(r.partition()).writeIntList(r.replicas()).writeIntList(r.isr())
                    .writeInt(r.leader()).writeInt(r.leaderEpoch()).writeInt(r.partitionEpoch());
        } else if (record instanceof PartitionChange r) {
            w.writeUuid(r.topicId()).writeInt(r.partition()).writeInt(r.leader()).writeIntList(r.isr());
        } else if (record instanceof RemoveTopic r) {
            w.writeUuid(r.topicId());
        } else if (record instanceof Config r) {
            w.writeByte(r.resourceType()).writeNullableString(r.resourceName()).writeNullableString(r.key())
                    .writeNullableString(r.value());
        } else if (record instanceof ProducerIds r) {
            w.writeInt(r.brokerId()).writeLong(r.brokerEpoch()).writeLong(r.nextProducerId());
        } else if (record instanceof PartitionReassignment r) {
            w.writeUuid(r.topicId()).writeInt(r.partition()).writeIntList(r.replicas()).writeIntList(r.isr())
                    .writeInt(r.leader()).writeIntList(r.addingReplicas()).writeIntList(r.removingReplicas());
        } else if (record instanceof Configs r) {
            w.writeByte(r.resourceType()).writeNullableString(r.resourceName()).writeInt(r.changes().size());
            r.changes().forEach((k, v) -> w.writeNullableString(k).writeNullableString(v));
        } else if (record instanceof NodeDirectory r) {
            w.writeInt(r.nodeId()).writeUuid(r.directoryId());
        } else if (record instanceof AccessControlEntry r) {
            w.writeByte(r.resourceType()).writeNullableString(r.resourceName()).writeByte(r.patternType())
                    .writeNullableString(r.principal()).writeNullableString(r.host()).writeByte(r.operation())
                    .writeByte(r.permission());
        } else if (record instanceof RemoveAccessControlEntry r) {
            w.writeByte(r.resourceType()).writeNullableString(r.resourceName()).writeByte(r.patternType())
                    .writeNullableString(r.principal()).writeNullableString(r.host()).writeByte(r.operation())
                    .writeByte(r.permission());
        } else if (record instanceof UserScramCredential r) {
            w.writeNullableString(r.user()).writeByte(r.mechanism()).writeInt(r.iterations()).writeByteArray(r.salt())
                    .writeByteArray(r.storedKey()).writeByteArray(r.serverKey());
        } else if (record instanceof RemoveUserScramCredential r) {
            w.writeNullableString(r.user()).writeByte(r.mechanism());
        } else if (record instanceof ClientQuota r) {
            w.writeInt(r.entity().size());
            r.entity().forEach((type, name) -> w.writeNullableString(type).writeNullableString(name));
            w.writeNullableString(r.key()).writeByte(r.value() == null ? 0 : 1);
            if (r.value() != null) {
                w.writeDouble(r.value());
            }
        } else if (record instanceof DelegationToken r) {
            w.writeNullableString(r.tokenId()).writeNullableString(r.owner()).writeNullableString(r.requester())
                    .writeInt(r.renewers().size());
            r.renewers().forEach(w::writeNullableString);
            w.writeLong(r.issueTimestampMs()).writeLong(r.maxTimestampMs()).writeLong(r.expiryTimestampMs());
        } else if (record instanceof RemoveDelegationToken r) {
            w.writeNullableString(r.tokenId());
        } else if (record instanceof DelegationTokenExpiry r) {
            w.writeNullableString(r.tokenId()).writeLong(r.expiryTimestampMs());
        } else if (record instanceof GroupConfig r) {
            w.writeNullableString(r.group()).writeNullableString(r.key()).writeNullableString(r.value());
        } else {
            throw new IllegalArgumentException("unknown record " + record);
        }
        return w.toByteArray();
    }

    private static MetadataRecord decodePayload(byte type, MetadataReader r) {
        return switch (type) {
            case MetadataRecord.REGISTER_BROKER -> new RegisterBroker(r.readInt("broker id"), r.readUuid("incarnation id"),
                    r.readLong("broker epoch"), r.readEndpoints("listeners"), r.readNullableString("rack"));
            case MetadataRecord.UNREGISTER_BROKER -> new UnregisterBroker(r.readInt("broker id"), r.readLong("broker epoch"));
            case MetadataRecord.FENCE_BROKER -> new FenceBroker(r.readInt("broker id"), r.readLong("broker epoch"));
            case MetadataRecord.UNFENCE_BROKER -> new UnfenceBroker(r.readInt("broker id"), r.readLong("broker epoch"));
            case MetadataRecord.TOPIC -> new Topic(r.readString("topic name"), r.readUuid("topic id"));
            case MetadataRecord.PARTITION -> new Partition(r.readUuid("topic id"), r.readInt("partition"),
                    r.readIntList("replicas"), r.readIntList("isr"), r.readInt("leader"), r.readInt("leader epoch"),
                    r.readInt("partition epoch"));
            case MetadataRecord.PARTITION_CHANGE -> new PartitionChange(r.readUuid("topic id"), r.readInt("partition"),
                    r.readInt("leader"), r.readIntList("isr"));
            case MetadataRecord.REMOVE_TOPIC -> new RemoveTopic(r.readUuid("topic id"));
            case MetadataRecord.CONFIG -> new Config(r.readByte("resource type"), r.readString("resource name"),
                    r.readString("config key"), r.readNullableString("config value"));
            case MetadataRecord.PRODUCER_IDS -> new ProducerIds(r.readInt("broker id"), r.readLong("broker epoch"),
                    r.readLong("next producer id"));
            case MetadataRecord.PARTITION_REASSIGNMENT -> new PartitionReassignment(r.readUuid("topic id"),
                    r.readInt("partition"), r.readIntList("replicas"), r.readIntList("isr"), r.readInt("leader"),
                    r.readIntList("adding replicas"), r.readIntList("removing replicas"));
            case MetadataRecord.CONFIGS -> readConfigs(r);
            case MetadataRecord.NODE_DIRECTORY -> new NodeDirectory(r.readInt("node id"), r.readUuid("directory id"));
            case MetadataRecord.ACCESS_CONTROL_ENTRY -> new AccessControlEntry(r.readByte("resource type"),
                    r.readNullableString("resource name"), r.readByte("pattern type"), r.readNullableString("principal"),
                    r.readNullableString("host"), r.readByte("operation"), r.readByte("permission"));
            case MetadataRecord.REMOVE_ACCESS_CONTROL_ENTRY -> new RemoveAccessControlEntry(r.readByte("resource type"),
                    r.readNullableString("resource name"), r.readByte("pattern type"), r.readNullableString("principal"),
                    r.readNullableString("host"), r.readByte("operation"), r.readByte("permission"));
            case MetadataRecord.USER_SCRAM_CREDENTIAL -> new UserScramCredential(r.readNullableString("user"),
                    r.readByte("mechanism"), r.readInt("iterations"), r.readByteArray("salt"),
                    r.readByteArray("stored key"), r.readByteArray("server key"));
            case MetadataRecord.REMOVE_USER_SCRAM_CREDENTIAL -> new RemoveUserScramCredential(
                    r.readNullableString("user"), r.readByte("mechanism"));
            case MetadataRecord.CLIENT_QUOTA -> readClientQuota(r);
            case MetadataRecord.DELEGATION_TOKEN -> readDelegationToken(r);
            case MetadataRecord.REMOVE_DELEGATION_TOKEN -> new RemoveDelegationToken(r.readNullableString("token id"));
            case MetadataRecord.DELEGATION_TOKEN_EXPIRY -> new DelegationTokenExpiry(r.readNullableString("token id"),
                    r.readLong("token expiry time"));
            case MetadataRecord.GROUP_CONFIG -> new GroupConfig(r.readNullableString("group"),
                    r.readNullableString("group config key"), r.readNullableString("group config value"));
            default -> throw new CorruptMetadataException("unknown metadata record type " + type);
        };
    }

    private static Configs readConfigs(MetadataReader r) {
        byte resourceType = r.readByte("resource type");
        String resourceName = r.readString("resource name");
        // a key (2 bytes at least) and a value (2)
        int count = r.readCount("config changes", 4);
        TreeMap<String, String> changes = new TreeMap<>();
        String previous = null;
        for (int i = 0; i < count; i++) {
            String key = r.readString("config key");
            if (previous != null && key.compareTo(previous) <= 0) {
                throw new CorruptMetadataException("config keys out of order or repeated: '" + key + "' after '"
                        + previous + "'");
            }
            previous = key;
            changes.put(key, r.readNullableString("config value"));
        }
        return new Configs(resourceType, resourceName, changes);
    }

    private static DelegationToken readDelegationToken(MetadataReader r) {
        String tokenId = r.readNullableString("token id");
        String owner = r.readNullableString("token owner");
        String requester = r.readNullableString("token requester");
        // a renewer is a string of 2 bytes at least
        int count = r.readCount("token renewers", 2);
        List<String> renewers = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            renewers.add(r.readString("token renewer"));
        }
        return new DelegationToken(tokenId, owner, requester, renewers, r.readLong("token issue time"),
                r.readLong("token max time"), r.readLong("token expiry time"));
    }

    private static ClientQuota readClientQuota(MetadataReader r) {
        // an entity type (2 bytes at least) and a name (2)
        int count = r.readCount("quota entity parts", 4);
        TreeMap<String, String> entity = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            String type = r.readString("quota entity type");
            if (entity.containsKey(type)) {
                throw new CorruptMetadataException("quota entity type '" + type + "' appears twice");
            }
            entity.put(type, r.readNullableString("quota entity name"));
        }
        String key = r.readNullableString("quota key");
        byte present = r.readByte("quota value flag");
        if (present != 0 && present != 1) {
            throw new CorruptMetadataException("quota value flag " + present + " is neither 0 nor 1");
        }
        return new ClientQuota(entity, key, present == 1 ? r.readDouble("quota value") : null);
    }
}
