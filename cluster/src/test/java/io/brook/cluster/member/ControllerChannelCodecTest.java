package io.brook.cluster.member;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.controller.Controller;
import io.brook.cluster.controller.ControllerError;
import io.brook.cluster.controller.ProducerIdBlock;
import io.brook.cluster.metadata.CorruptMetadataException;
import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.metadata.MetadataCodec;
import io.brook.cluster.metadata.MetadataRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The controller channel's request and reply formats: round trips, and every malformed input refused. */
class ControllerChannelCodecTest {

    private static final MetadataRecord.AccessControlEntry ACL = new MetadataRecord.AccessControlEntry((byte) 2, "t",
            (byte) 3, "User:alice", "*", (byte) 3, (byte) 3);

    private static final List<ControllerRequest> REQUESTS = List.of(
            new ControllerRequest.Register(7, new UUID(1, 2), List.of(new Endpoint("PLAINTEXT", "h", 9092),
                    new Endpoint("SSL", "h2", 9093)), "rack-a"),
            new ControllerRequest.Register(8, new UUID(3, 4), List.of(), null),
            new ControllerRequest.Heartbeat(7, 42),
            new ControllerRequest.CreateTopic("t", 3, 2, Map.of("retention.ms", "1", "cleanup.policy", "compact")),
            new ControllerRequest.CreateTopicAssigned("t", List.of(List.of(2), List.of(3, 1)),
                    Map.of("retention.ms", "1")),
            new ControllerRequest.CreateTopicAssigned("t", List.of(List.of()), Map.of()),
            new ControllerRequest.CreatePartitions("t", 9),
            new ControllerRequest.CreatePartitionsAssigned("t", 9, List.of(List.of(1), List.of(2, 3))),
            new ControllerRequest.DeleteTopic("t"),
            new ControllerRequest.AlterTopicConfig("t", "retention.ms", "5"),
            new ControllerRequest.AlterTopicConfig("t", "retention.ms", null),
            new ControllerRequest.AllocateProducerIds(7, 42),
            new ControllerRequest.AlterReassignment("t", 2, List.of(3, 1)),
            new ControllerRequest.AlterReassignment("t", 2, null),
            new ControllerRequest.ReplicaCaughtUp(7, 42, "t", 2),
            new ControllerRequest.ReplicaDrained(7, 42, "t", 2),
            new ControllerRequest.ElectLeader("t", 2, true),
            new ControllerRequest.ElectLeader("t", 2, false),
            new ControllerRequest.ReplaceTopicConfigs("t", Map.of("retention.ms", "5", "cleanup.policy", "compact")),
            new ControllerRequest.ReplaceTopicConfigs("t", Map.of()),
            new ControllerRequest.ReplaceTopicConfigs("t", Map.of("retention.ms", "5"), Map.of("retention.ms", "6")),
            new ControllerRequest.ReplaceTopicConfigs("t", Map.of(), Map.of()),
            new ControllerRequest.DescribeQuorum(),
            new ControllerRequest.ReadBarrier(),
            new ControllerRequest.UnregisterBroker(7),
            new ControllerRequest.NodeDirectory(7, new UUID(5, 6)),
            new ControllerRequest.WriteSecurity(List.of(ACL, MetadataRecord.RemoveAccessControlEntry.of(ACL),
                    new MetadataRecord.UserScramCredential("alice", (byte) 2, 8192, new byte[] {1, 2}, new byte[] {3},
                            new byte[] {4}),
                    new MetadataRecord.RemoveUserScramCredential("bob", (byte) 1),
                    new MetadataRecord.ClientQuota(new TreeMap<>(Map.of("user", "alice")), "producer_byte_rate", 1e6),
                    new MetadataRecord.DelegationToken("tok", "User:alice", "User:admin", List.of("User:bob"), 1, 3, 2),
                    new MetadataRecord.RemoveDelegationToken("old"),
                    new MetadataRecord.GroupConfig("g", "consumer.session.timeout.ms", "50000"),
                    new MetadataRecord.GroupConfig("g", "consumer.heartbeat.interval.ms", null))));

    private static final List<ControllerReply> REPLIES = List.of(
            ControllerReply.decided(10, null),
            ControllerReply.decided(11, 77L),
            ControllerReply.decided(12, new UUID(5, 6)),
            ControllerReply.decided(13, new ProducerIdBlock(7, 1000, 1000)),
            ControllerReply.decided(-1, new QuorumStatus(2, 5, 40, List.of(new QuorumStatus.Replica(1, 39, 100, -1),
                    new QuorumStatus.Replica(2, 40, 200, 200)), List.of(new QuorumStatus.Replica(4, 40, 150, -1)))),
            ControllerReply.decided(14, List.of(true, false, true)),
            ControllerReply.decided(15, List.of()),
            ControllerReply.refused(ControllerError.TOPIC_ALREADY_EXISTS, "topic 't' already exists"),
            ControllerReply.noController("node 2 is not the controller"));

    @Test
    void everyRequestAndReplyRoundTrips() {
        for (ControllerRequest r : REQUESTS) {
            assertThat(ControllerRequest.decode(ByteBuffer.wrap(r.encode()))).isEqualTo(r);
        }
        for (ControllerReply r : REPLIES) {
            assertThat(ControllerReply.decode(ByteBuffer.wrap(r.encode()))).isEqualTo(r);
        }
    }

    @Test
    void everyTruncationAndEveryTrailingByteIsRefused() {
        for (ControllerRequest r : REQUESTS) {
            byte[] bytes = r.encode();
            for (int len = 0; len < bytes.length; len++) {
                byte[] cut = Arrays.copyOf(bytes, len);
                assertThatThrownBy(() -> ControllerRequest.decode(ByteBuffer.wrap(cut)))
                        .isInstanceOf(CorruptMetadataException.class);
            }
            byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
            assertThatThrownBy(() -> ControllerRequest.decode(ByteBuffer.wrap(longer)))
                    .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("left over");
        }
        for (ControllerReply r : REPLIES) {
            byte[] bytes = r.encode();
            for (int len = 0; len < bytes.length; len++) {
                byte[] cut = Arrays.copyOf(bytes, len);
                assertThatThrownBy(() -> ControllerReply.decode(ByteBuffer.wrap(cut)))
                        .isInstanceOf(CorruptMetadataException.class);
            }
        }
    }

    @Test
    void unknownMagicVersionTypeAndHugeCountsAreRefusedBeforeAnythingIsAllocated() {
        assertThatThrownBy(() -> ControllerRequest.decode(ByteBuffer.wrap(new byte[] {'X', 'C', 1, 2})))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("not a controller request");
        assertThatThrownBy(() -> ControllerRequest.decode(ByteBuffer.wrap(new byte[] {'B', 'C', 9, 2})))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("version 9 is unknown");
        assertThatThrownBy(() -> ControllerRequest.decode(ByteBuffer.wrap(new byte[] {'B', 'C', 1, 0})))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("unknown controller request type 0");
        // a CreateTopic claiming two billion configs in a few bytes
        ByteBuffer huge = ByteBuffer.allocate(4 + 3 + 4 + 4 + 4);
        huge.put(new byte[] {'B', 'C', 1, 3}).putShort((short) 1).put((byte) 't').putInt(1).putInt(1)
                .putInt(Integer.MAX_VALUE).flip();
        assertThatThrownBy(() -> ControllerRequest.decode(huge))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("configs");
        // a reply with an error code this node does not know
        ByteBuffer unknownError = ByteBuffer.allocate(4 + 2 + 2);
        unknownError.put(new byte[] {'B', 'R', 1, 1}).putShort((short) 9999).putShort((short) -1).flip();
        assertThatThrownBy(() -> ControllerReply.decode(unknownError))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("unknown error code 9999");
    }

    private static ByteBuffer writeSecurityOf(List<MetadataRecord> records) {
        byte[] batch = MetadataCodec.encodeBatch(records);
        ByteBuffer b = ByteBuffer.allocate(4 + 4 + batch.length);
        b.put(new byte[] {'B', 'C', 1, 17}).putInt(batch.length).put(batch).flip();
        return b;
    }

    @Test
    void aSecurityWriteOfNoRecordsTooManyOrOtherRecordsIsRefused() {
        assertThatThrownBy(() -> ControllerRequest.decode(writeSecurityOf(List.of())))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("of 0 records");
        List<MetadataRecord> tooMany = Collections.nCopies(Controller.MAX_SECURITY_RECORDS + 1, ACL);
        assertThatThrownBy(() -> ControllerRequest.decode(writeSecurityOf(tooMany)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("of 10001 records");
        assertThat(ControllerRequest.decode(writeSecurityOf(tooMany.subList(0, Controller.MAX_SECURITY_RECORDS))))
                .isEqualTo(new ControllerRequest.WriteSecurity(tooMany.subList(0, Controller.MAX_SECURITY_RECORDS)));
        List<MetadataRecord> mixed = List.of(ACL, new MetadataRecord.Config(MetadataRecord.RESOURCE_BROKER, "1", "k",
                "v"));
        assertThatThrownBy(() -> ControllerRequest.decode(writeSecurityOf(mixed)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("record of type 9");
        // a batch length beyond the request's bytes
        ByteBuffer huge = ByteBuffer.allocate(4 + 4 + 3);
        huge.put(new byte[] {'B', 'C', 1, 17}).putInt(1_000_000).put(new byte[3]).flip();
        assertThatThrownBy(() -> ControllerRequest.decode(huge))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("needs 1000000 bytes");
        // bytes that are not a metadata batch
        ByteBuffer notABatch = ByteBuffer.allocate(4 + 4 + 3);
        notABatch.put(new byte[] {'B', 'C', 1, 17}).putInt(3).put(new byte[] {'X', 'Y', 1}).flip();
        assertThatThrownBy(() -> ControllerRequest.decode(notABatch))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("bad magic");
    }

    @Test
    void appliedFlagsOtherThanZeroOrOneOrTooManyAreRefused() {
        ByteBuffer badFlag = ByteBuffer.allocate(4 + 8 + 1 + 4 + 2);
        badFlag.put(new byte[] {'B', 'R', 1, 0}).putLong(3).put((byte) 5).putInt(2).put((byte) 1).put((byte) 2).flip();
        assertThatThrownBy(() -> ControllerReply.decode(badFlag))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("applied flag 2");

        int count = Controller.MAX_SECURITY_RECORDS + 1;
        ByteBuffer tooMany = ByteBuffer.allocate(4 + 8 + 1 + 4 + count);
        tooMany.put(new byte[] {'B', 'R', 1, 0}).putLong(3).put((byte) 5).putInt(count).put(new byte[count]).flip();
        assertThatThrownBy(() -> ControllerReply.decode(tooMany))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("10001 applied flags");

        ByteBuffer beyond = ByteBuffer.allocate(4 + 8 + 1 + 4 + 1);
        beyond.put(new byte[] {'B', 'R', 1, 0}).putLong(3).put((byte) 5).putInt(2).put((byte) 1).flip();
        assertThatThrownBy(() -> ControllerReply.decode(beyond))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("applied flags");
        List<Boolean> flags = new ArrayList<>(List.of(true, false));
        assertThat(ControllerReply.decode(ByteBuffer.wrap(ControllerReply.decided(3, flags).encode())).value())
                .isEqualTo(flags);
    }
}
