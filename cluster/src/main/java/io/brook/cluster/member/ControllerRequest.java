package io.brook.cluster.member;

import io.brook.cluster.controller.Controller;
import io.brook.cluster.metadata.CorruptMetadataException;
import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.metadata.MetadataCodec;
import io.brook.cluster.metadata.MetadataReader;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataWriter;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A request from any node to the controller, in the controller channel's own binary format
 * (docs/cluster.md, "How a node asks the controller"). Big-endian, with the primitives of the
 * metadata format:
 *
 * <pre>
 * magic 'B' 'C' | version u8 = 1 | type u8 | payload (per type), consumed exactly
 * </pre>
 *
 * Every length and count is checked against the bytes that remain before it is used; an unknown
 * magic, version or type is refused with {@link CorruptMetadataException}.
 */
sealed interface ControllerRequest {

    byte MAGIC_0 = 'B';
    byte MAGIC_1 = 'C';
    byte VERSION = 1;

    /** The type byte on the wire. */
    byte type();

    /** Writes the payload after the header. */
    void writePayload(MetadataWriter w);

    /** 1: a broker registers (or registers again) with its incarnation id, listeners and rack. */
    record Register(int brokerId, UUID incarnationId, List<Endpoint> listeners, String rack)
            implements ControllerRequest {
        public Register {
            listeners = List.copyOf(listeners);
        }

        @Override
        public byte type() {
            return 1;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeInt(brokerId).writeUuid(incarnationId).writeEndpoints(listeners).writeNullableString(rack);
        }
    }

    /** 2: a broker's heartbeat with its epoch. */
    record Heartbeat(int brokerId, long brokerEpoch) implements ControllerRequest {
        @Override
        public byte type() {
            return 2;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeInt(brokerId).writeLong(brokerEpoch);
        }
    }

    /** 3: create a topic. */
    record CreateTopic(String name, int partitions, int replicationFactor, Map<String, String> configs)
            implements ControllerRequest {
        public CreateTopic {
            configs = new TreeMap<>(configs);
        }

        @Override
        public byte type() {
            return 3;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeNullableString(name).writeInt(partitions).writeInt(replicationFactor).writeInt(configs.size());
            configs.forEach((k, v) -> w.writeNullableString(k).writeNullableString(v));
        }
    }

    /** 19: create a topic with the replicas of each partition given (Kafka's manual assignment). */
    record CreateTopicAssigned(String name, List<List<Integer>> assignment, Map<String, String> configs)
            implements ControllerRequest {
        public CreateTopicAssigned {
            assignment = assignment.stream().map(List::copyOf).toList();
            configs = new TreeMap<>(configs);
        }

        @Override
        public byte type() {
            return 19;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeNullableString(name).writeInt(assignment.size());
            assignment.forEach(w::writeIntList);
            w.writeInt(configs.size());
            configs.forEach((k, v) -> w.writeNullableString(k).writeNullableString(v));
        }
    }

    /** 20: grow a topic to a total partition count, the new partitions on the replicas given. */
    record CreatePartitionsAssigned(String name, int totalCount, List<List<Integer>> assignment)
            implements ControllerRequest {
        public CreatePartitionsAssigned {
            assignment = assignment.stream().map(List::copyOf).toList();
        }

        @Override
        public byte type() {
            return 20;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeNullableString(name).writeInt(totalCount).writeInt(assignment.size());
            assignment.forEach(w::writeIntList);
        }
    }

    /** 4: grow a topic to a total partition count. */
    record CreatePartitions(String name, int totalCount) implements ControllerRequest {
        @Override
        public byte type() {
            return 4;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeNullableString(name).writeInt(totalCount);
        }
    }

    /** 5: delete a topic. */
    record DeleteTopic(String name) implements ControllerRequest {
        @Override
        public byte type() {
            return 5;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeNullableString(name);
        }
    }

    /** 6: set (value non-null) or remove one topic config. */
    record AlterTopicConfig(String topic, String key, String value) implements ControllerRequest {
        @Override
        public byte type() {
            return 6;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeNullableString(topic).writeNullableString(key).writeNullableString(value);
        }
    }

    /** 7: a block of producer ids for a registered broker. */
    record AllocateProducerIds(int brokerId, long brokerEpoch) implements ControllerRequest {
        @Override
        public byte type() {
            return 7;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeInt(brokerId).writeLong(brokerEpoch);
        }
    }

    /**
     * 8: move a partition to the target replicas, or cancel its move (target null: written as a
     * flag byte 0, else 1 and the list).
     */
    record AlterReassignment(String topic, int partition, List<Integer> target) implements ControllerRequest {
        public AlterReassignment {
            target = target == null ? null : List.copyOf(target);
        }

        @Override
        public byte type() {
            return 8;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeNullableString(topic).writeInt(partition).writeByte(target == null ? 0 : 1);
            if (target != null) {
                w.writeIntList(target);
            }
        }
    }

    /** 9: a broker being added to a partition has copied its log. */
    record ReplicaCaughtUp(int brokerId, long brokerEpoch, String topic, int partition) implements ControllerRequest {
        @Override
        public byte type() {
            return 9;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeInt(brokerId).writeLong(brokerEpoch).writeNullableString(topic).writeInt(partition);
        }
    }

    /** 10: elect a partition's leader, preferred (unclean 0) or unclean (1). */
    record ElectLeader(String topic, int partition, boolean unclean) implements ControllerRequest {
        @Override
        public byte type() {
            return 10;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeNullableString(topic).writeInt(partition).writeByte(unclean ? 1 : 0);
        }
    }

    /**
     * 11: replace all of a topic's config overrides (values non-null) in one decision; only if they
     * are still {@code expected} when that is not null (compare-and-set). The payload ends with a
     * flag byte (0: unconditional, 1: an expected map follows).
     */
    record ReplaceTopicConfigs(String topic, Map<String, String> configs, Map<String, String> expected)
            implements ControllerRequest {
        public ReplaceTopicConfigs {
            configs = new TreeMap<>(configs);
            expected = expected == null ? null : new TreeMap<>(expected);
        }

        /** An unconditional replacement. */
        public ReplaceTopicConfigs(String topic, Map<String, String> configs) {
            this(topic, configs, null);
        }

        @Override
        public byte type() {
            return 11;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeNullableString(topic).writeInt(configs.size());
            configs.forEach((k, v) -> w.writeNullableString(k).writeNullableString(v));
            w.writeByte(expected == null ? 0 : 1);
            if (expected != null) {
                w.writeInt(expected.size());
                expected.forEach((k, v) -> w.writeNullableString(k).writeNullableString(v));
            }
        }
    }

    /** 12: the quorum as the leader sees it (DescribeQuorum); answered by the leader without a decision. */
    record DescribeQuorum() implements ControllerRequest {
        @Override
        public byte type() {
            return 12;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            // no payload
        }
    }

    /** 13: a broker that stops cleanly asks to be fenced now (Kafka's heartbeat with want_shut_down). */
    record ControlledShutdown(int brokerId, long brokerEpoch) implements ControllerRequest {
        @Override
        public byte type() {
            return 13;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeInt(brokerId).writeLong(brokerEpoch);
        }
    }

    /** 14: forget a broker's registration (Kafka's UnregisterBroker), fencing it first if it is live. */
    record UnregisterBroker(int brokerId) implements ControllerRequest {
        @Override
        public byte type() {
            return 14;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeInt(brokerId);
        }
    }

    /** 15: a node reports its data directory id (KIP-853), which the controller records. */
    record NodeDirectory(int nodeId, UUID directoryId) implements ControllerRequest {
        @Override
        public byte type() {
            return 15;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeInt(nodeId).writeUuid(directoryId);
        }
    }

    /**
     * 16: the new leader of a moved partition has read the former leader's log to its end: the
     * former leader leaves the replicas (and deletes its log).
     */
    record ReplicaDrained(int brokerId, long brokerEpoch, String topic, int partition) implements ControllerRequest {
        @Override
        public byte type() {
            return 16;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeInt(brokerId).writeLong(brokerEpoch).writeNullableString(topic).writeInt(partition);
        }
    }

    /**
     * 17: write ACL entries, SCRAM credentials, client quotas, delegation tokens and group settings
     * (records 14 to 22) as one log entry. The payload is one metadata batch ({@link MetadataCodec#encodeBatch})
     * as a byte array; decoding refuses an empty batch, more than {@link Controller#MAX_SECURITY_RECORDS} records
     * and records of any other type.
     */
    record WriteSecurity(List<MetadataRecord> records) implements ControllerRequest {
        public WriteSecurity {
            records = List.copyOf(records);
        }

        @Override
        public byte type() {
            return 17;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            w.writeByteArray(MetadataCodec.encodeBatch(records));
        }
    }

    /**
     * 18: how far the controller's image has applied (a read barrier). Answered by the controller
     * of the current term without a decision and without writing to the log, with its last applied
     * index: every decision answered before is at or below it, so a node that has applied that far
     * has seen every change any client was told is done.
     */
    record ReadBarrier() implements ControllerRequest {
        @Override
        public byte type() {
            return 18;
        }

        @Override
        public void writePayload(MetadataWriter w) {
            // no payload
        }
    }

    /** The request's bytes: header and payload. */
    default byte[] encode() {
        MetadataWriter w = new MetadataWriter().writeByte(MAGIC_0).writeByte(MAGIC_1).writeByte(VERSION)
                .writeByte(type());
        writePayload(w);
        return w.toByteArray();
    }

    /** Reads a request; the bytes must hold exactly one. */
    static ControllerRequest decode(ByteBuffer buf) {
        MetadataReader r = new MetadataReader(buf.duplicate());
        byte m0 = r.readByte("magic");
        byte m1 = r.readByte("magic");
        if (m0 != MAGIC_0 || m1 != MAGIC_1) {
            throw new CorruptMetadataException("not a controller request (magic " + m0 + " " + m1 + ")");
        }
        byte version = r.readByte("version");
        if (version != VERSION) {
            throw new CorruptMetadataException("controller request version " + version + " is unknown (this node reads "
                    + VERSION + ")");
        }
        byte type = r.readByte("type");
        ControllerRequest request = switch (type) {
            case 1 -> new Register(r.readInt("broker id"), r.readUuid("incarnation id"), r.readEndpoints("listeners"),
                    r.readNullableString("rack"));
            case 2 -> new Heartbeat(r.readInt("broker id"), r.readLong("broker epoch"));
            case 3 -> readCreateTopic(r);
            case 4 -> new CreatePartitions(r.readString("topic name"), r.readInt("total count"));
            case 5 -> new DeleteTopic(r.readString("topic name"));
            case 6 -> new AlterTopicConfig(r.readString("topic name"), r.readString("config key"),
                    r.readNullableString("config value"));
            case 7 -> new AllocateProducerIds(r.readInt("broker id"), r.readLong("broker epoch"));
            case 8 -> readAlterReassignment(r);
            case 10 -> readElectLeader(r);
            case 9 -> new ReplicaCaughtUp(r.readInt("broker id"), r.readLong("broker epoch"), r.readString("topic name"),
                    r.readInt("partition"));
            case 11 -> readReplaceTopicConfigs(r);
            case 12 -> new DescribeQuorum();
            case 13 -> new ControlledShutdown(r.readInt("broker id"), r.readLong("broker epoch"));
            case 14 -> new UnregisterBroker(r.readInt("broker id"));
            case 15 -> new NodeDirectory(r.readInt("node id"), r.readUuid("directory id"));
            case 16 -> new ReplicaDrained(r.readInt("broker id"), r.readLong("broker epoch"), r.readString("topic name"),
                    r.readInt("partition"));
            case 17 -> readWriteSecurity(r);
            case 18 -> new ReadBarrier();
            case 19 -> readCreateTopicAssigned(r);
            case 20 -> new CreatePartitionsAssigned(r.readString("topic name"), r.readInt("total count"),
                    readAssignment(r));
            default -> throw new CorruptMetadataException("unknown controller request type " + type);
        };
        if (r.remaining() != 0) {
            throw new CorruptMetadataException("controller request of type " + type + " has " + r.remaining()
                    + " bytes left over");
        }
        return request;
    }

    private static WriteSecurity readWriteSecurity(MetadataReader r) {
        List<MetadataRecord> records = MetadataCodec.decodeBatch(ByteBuffer.wrap(r.readByteArray("security records")));
        if (records.isEmpty() || records.size() > Controller.MAX_SECURITY_RECORDS) {
            throw new CorruptMetadataException("a security write of " + records.size() + " records: 1 to "
                    + Controller.MAX_SECURITY_RECORDS + " are allowed");
        }
        for (MetadataRecord record : records) {
            if (!MetadataRecord.isSecurity(record.type())) {
                throw new CorruptMetadataException("a security write holds a record of type " + record.type());
            }
        }
        return new WriteSecurity(records);
    }

    private static AlterReassignment readAlterReassignment(MetadataReader r) {
        String topic = r.readString("topic name");
        int partition = r.readInt("partition");
        byte hasTarget = r.readByte("target flag");
        if (hasTarget != 0 && hasTarget != 1) {
            throw new CorruptMetadataException("target flag " + hasTarget + " is neither 0 nor 1");
        }
        return new AlterReassignment(topic, partition, hasTarget == 1 ? r.readIntList("target replicas") : null);
    }

    private static ElectLeader readElectLeader(MetadataReader r) {
        String topic = r.readString("topic name");
        int partition = r.readInt("partition");
        byte unclean = r.readByte("election type");
        if (unclean != 0 && unclean != 1) {
            throw new CorruptMetadataException("election type " + unclean + " is neither 0 nor 1");
        }
        return new ElectLeader(topic, partition, unclean == 1);
    }

    private static ReplaceTopicConfigs readReplaceTopicConfigs(MetadataReader r) {
        String topic = r.readString("topic name");
        Map<String, String> configs = readConfigMap(r, "configs");
        byte conditional = r.readByte("expected configs flag");
        if (conditional != 0 && conditional != 1) {
            throw new CorruptMetadataException("expected configs flag " + conditional + " is neither 0 nor 1");
        }
        return new ReplaceTopicConfigs(topic, configs, conditional == 1 ? readConfigMap(r, "expected configs") : null);
    }

    private static Map<String, String> readConfigMap(MetadataReader r, String what) {
        // a key (2) and a value (2) at least
        int count = r.readCount(what, 4);
        Map<String, String> configs = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            String key = r.readString("config key");
            if (configs.put(key, r.readString("config value")) != null) {
                throw new CorruptMetadataException("config key '" + key + "' appears twice");
            }
        }
        return configs;
    }

    private static CreateTopicAssigned readCreateTopicAssigned(MetadataReader r) {
        String name = r.readString("topic name");
        return new CreateTopicAssigned(name, readAssignment(r), readTopicConfigs(r));
    }

    /** A manual assignment: a count of partitions, then each one's replica list. */
    private static List<List<Integer>> readAssignment(MetadataReader r) {
        // a replica list's count (4) at least
        int partitions = r.readCount("partitions", 4);
        List<List<Integer>> assignment = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            assignment.add(r.readIntList("replicas"));
        }
        return assignment;
    }

    private static CreateTopic readCreateTopic(MetadataReader r) {
        String name = r.readString("topic name");
        int partitions = r.readInt("partitions");
        int replicationFactor = r.readInt("replication factor");
        return new CreateTopic(name, partitions, replicationFactor, readTopicConfigs(r));
    }

    /** A new topic's configs: a count, then each key and (nullable) value. */
    private static Map<String, String> readTopicConfigs(MetadataReader r) {
        // a key (2) and a value (2) at least
        int count = r.readCount("configs", 4);
        Map<String, String> configs = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            configs.put(r.readString("config key"), r.readNullableString("config value"));
        }
        return configs;
    }
}
