package io.brook.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.metadata.MetadataRecord.Config;
import io.brook.cluster.metadata.MetadataRecord.FenceBroker;
import io.brook.cluster.metadata.MetadataRecord.Partition;
import io.brook.cluster.metadata.MetadataRecord.PartitionChange;
import io.brook.cluster.metadata.MetadataRecord.PartitionReassignment;
import io.brook.cluster.metadata.MetadataRecord.ProducerIds;
import io.brook.cluster.metadata.MetadataRecord.RegisterBroker;
import io.brook.cluster.metadata.MetadataRecord.RemoveTopic;
import io.brook.cluster.metadata.MetadataRecord.Topic;
import io.brook.cluster.metadata.MetadataRecord.UnfenceBroker;
import io.brook.cluster.metadata.MetadataRecord.UnregisterBroker;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class MetadataCodecTest {

    private static final UUID TOPIC_ID = new UUID(0x1234, 0x5678);

    static final List<MetadataRecord> ONE_OF_EACH = List.of(
            new RegisterBroker(1, new UUID(7, 8), 3L,
                    List.of(new Endpoint("PLAINTEXT", "host-1", 9092), new Endpoint("SSL", "host-1", 9093)), "rack-a"),
            new RegisterBroker(2, new UUID(9, 10), 1L, List.of(), null),
            new UnregisterBroker(2, 1L),
            new FenceBroker(1, 3L),
            new UnfenceBroker(1, 3L),
            new Topic("orders", TOPIC_ID),
            new Partition(TOPIC_ID, 0, List.of(1, 2, 3), List.of(1, 3), 3, 4, 9),
            new PartitionChange(TOPIC_ID, 0, -1, List.of(1)),
            new Config(MetadataRecord.RESOURCE_TOPIC, "orders", "retention.ms", "1000"),
            new Config(MetadataRecord.RESOURCE_BROKER, "1", "log.retention.ms", null),
            new RemoveTopic(TOPIC_ID),
            new ProducerIds(1, 3L, 2000L),
            new PartitionReassignment(TOPIC_ID, 0, List.of(4, 1), List.of(1), 1, List.of(4), List.of(1)),
            new MetadataRecord.NodeDirectory(4, new UUID(0x4d, 0x1d)),
            new MetadataRecord.AccessControlEntry((byte) 2, "orders", (byte) 3, "User:alice", "*", (byte) 3, (byte) 3),
            new MetadataRecord.RemoveAccessControlEntry((byte) 4, "cluster", (byte) 4, "User:bob", "10.0.0.1", (byte) 7,
                    (byte) 2),
            new MetadataRecord.UserScramCredential("alice", (byte) 1, 4096, new byte[] {1, 2, 3}, new byte[] {4, 5},
                    new byte[] {6}),
            new MetadataRecord.RemoveUserScramCredential("bob", (byte) 2),
            SecurityRecordsCodecTest.quota("alice", "app", "producer_byte_rate", 1024.5),
            SecurityRecordsCodecTest.quota(null, null, "request_percentage", null),
            new MetadataRecord.DelegationToken("tok-1", "User:alice", "User:admin", List.of("User:bob", "User:carol"),
                    1_000L, 604_801_000L, 86_401_000L),
            new MetadataRecord.RemoveDelegationToken("tok-2"),
            new MetadataRecord.DelegationTokenExpiry("tok-1", 90_001_000L),
            new MetadataRecord.GroupConfig("orders-app", "consumer.session.timeout.ms", "50000"),
            new MetadataRecord.GroupConfig("orders-app", "consumer.heartbeat.interval.ms", null));

    @Test
    void roundTripsEveryRecordType() {
        byte[] bytes = MetadataCodec.encodeBatch(ONE_OF_EACH);

        assertThat(MetadataCodec.decodeBatch(ByteBuffer.wrap(bytes))).isEqualTo(ONE_OF_EACH);
        assertThat(ONE_OF_EACH.stream().map(MetadataRecord::type).distinct().count()).as("every type").isEqualTo(21);
    }

    @Test
    void roundTripsAnEmptyBatch() {
        assertThat(MetadataCodec.decodeBatch(ByteBuffer.wrap(MetadataCodec.encodeBatch(List.of())))).isEmpty();
    }

    @Test
    void rejectsEveryTruncation() {
        byte[] bytes = MetadataCodec.encodeBatch(ONE_OF_EACH);
        for (int length = 0; length < bytes.length; length++) {
            ByteBuffer truncated = ByteBuffer.wrap(Arrays.copyOf(bytes, length));
            assertThatThrownBy(() -> MetadataCodec.decodeBatch(truncated))
                    .as("batch cut to %d of %d bytes", length, bytes.length)
                    .isInstanceOf(CorruptMetadataException.class);
        }
    }

    @Test
    void rejectsTrailingBytes() {
        byte[] bytes = Arrays.copyOf(MetadataCodec.encodeBatch(ONE_OF_EACH), MetadataCodec.encodeBatch(ONE_OF_EACH).length + 1);

        assertThatThrownBy(() -> MetadataCodec.decodeBatch(ByteBuffer.wrap(bytes)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("after the last");
    }

    @Test
    void rejectsARecordCountBeyondTheBytesBeforeAllocating() {
        ByteBuffer b = ByteBuffer.allocate(MetadataCodec.BATCH_HEADER_BYTES);
        b.put(MetadataCodec.MAGIC_0).put(MetadataCodec.MAGIC_1).put(MetadataCodec.FORMAT_VERSION).putInt(Integer.MAX_VALUE).flip();

        assertThatThrownBy(() -> MetadataCodec.decodeBatch(b))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("only 0 bytes remain");
    }

    @Test
    void rejectsAnIntListCountBeyondThePayload() {
        ByteBuffer payload = ByteBuffer.allocate(16 + 4 + 4);
        payload.putLong(1).putLong(2).putInt(0).putInt(1_000_000).flip();
        ByteBuffer batch = batchOf(MetadataRecord.PARTITION, MetadataCodec.RECORD_VERSION, payload);

        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batch))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("1000000 replicas");
    }

    @Test
    void rejectsANegativeStringLength() {
        ByteBuffer payload = ByteBuffer.allocate(2 + 16);
        payload.putShort((short) -5).putLong(1).putLong(2).flip();

        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.TOPIC, MetadataCodec.RECORD_VERSION, payload)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("negative length");
    }

    @Test
    void rejectsUnknownTypesVersionsMagicAndUnreadPayload() {
        ByteBuffer removeTopic = ByteBuffer.allocate(16).putLong(1).putLong(2).flip();
        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf((byte) 99, MetadataCodec.RECORD_VERSION, removeTopic.duplicate())))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("unknown metadata record type 99");
        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.REMOVE_TOPIC, (byte) 2, removeTopic.duplicate())))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("unsupported version 2");
        ByteBuffer longer = ByteBuffer.allocate(17).putLong(1).putLong(2).put((byte) 0).flip();
        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.REMOVE_TOPIC, MetadataCodec.RECORD_VERSION, longer)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("1 unread payload bytes");

        byte[] bytes = MetadataCodec.encodeBatch(ONE_OF_EACH);
        bytes[0] = 'X';
        assertThatThrownBy(() -> MetadataCodec.decodeBatch(ByteBuffer.wrap(bytes)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("bad magic");
        bytes[0] = MetadataCodec.MAGIC_0;
        bytes[2] = 7;
        assertThatThrownBy(() -> MetadataCodec.decodeBatch(ByteBuffer.wrap(bytes)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("format version 7");
    }

    @Test
    void rejectsAPortOutOfRange() {
        ByteBuffer payload = ByteBuffer.allocate(4 + 16 + 8 + 4 + 2 + 1 + 2 + 1 + 4 + 2);
        payload.putInt(1).putLong(0).putLong(1).putLong(1).putInt(1)
                .putShort((short) 1).put((byte) 'P').putShort((short) 1).put((byte) 'h').putInt(70_000)
                .putShort((short) -1).flip();

        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.REGISTER_BROKER, MetadataCodec.RECORD_VERSION, payload)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("port out of range");
    }

    private static ByteBuffer batchOf(byte type, byte version, ByteBuffer payload) {
        ByteBuffer b = ByteBuffer.allocate(MetadataCodec.BATCH_HEADER_BYTES + MetadataCodec.RECORD_HEADER_BYTES + payload.remaining());
        b.put(MetadataCodec.MAGIC_0).put(MetadataCodec.MAGIC_1).put(MetadataCodec.FORMAT_VERSION).putInt(1)
                .put(type).put(version).putInt(payload.remaining()).put(payload).flip();
        return b;
    }
}
