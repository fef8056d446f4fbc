package io.brook.wire.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.ProtocolDecodeException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Hostile input must only ever produce {@link ProtocolDecodeException}: never an
 * OutOfMemoryError, IndexOutOfBounds, BufferUnderflow or an endless loop.
 */
class MalformedInputTest {

    record Sample(ApiMessage message, short version, boolean request) {
        ByteBuffer encoded() {
            return message.toByteBuffer(version);
        }

        ApiMessage decode(ByteBuffer buf) {
            return request ? ApiMessages.readRequest(message.apiKey(), version, buf)
                    : ApiMessages.readResponse(message.apiKey(), version, buf);
        }
    }

    static List<Sample> samples() {
        List<Sample> samples = new ArrayList<>();
        for (short v : new short[] {3, 7, 9, 12}) {
            samples.add(new Sample(MessageCodecTest.produce(false), v, true));
        }
        samples.add(new Sample(MessageCodecTest.produce(true), (short) 13, true));
        for (short v : new short[] {7, 11, 12}) {
            samples.add(new Sample(MessageCodecTest.fetchResponse(v >= 12), v, false));
        }
        MetadataResponse metadata = new MetadataResponse().clusterId("c").controllerId(1);
        metadata.brokers().add(new MetadataResponse.MetadataResponseBroker().nodeId(1).host("localhost").port(9092));
        MetadataResponse.MetadataResponseTopic topic = new MetadataResponse.MetadataResponseTopic().name("t")
                .topicId(UUID.randomUUID());
        topic.partitions().add(new MetadataResponse.MetadataResponsePartition().leaderId(1)
                .replicaNodes(new ArrayList<>(List.of(1))).isrNodes(new ArrayList<>(List.of(1))));
        metadata.topics().add(topic);
        for (short v : new short[] {4, 9, 12}) {
            samples.add(new Sample(metadata, v, false));
        }
        JoinGroupRequest join = new JoinGroupRequest().groupId("g").sessionTimeoutMs(45000).memberId("")
                .protocolType("consumer").reason("because");
        join.protocols().add(new JoinGroupRequest.JoinGroupRequestProtocol().name("range").metadata(new byte[] {1, 2, 3}));
        for (short v : new short[] {0, 5, 9}) {
            samples.add(new Sample(join, v, true));
        }
        ApiVersionsResponse versions = MessageCodecTest.apiVersions().finalizedFeaturesEpoch(3);
        for (short v : new short[] {0, 3}) {
            samples.add(new Sample(versions, v, false));
        }
        ConsumerGroupDescribeResponse describe = new ConsumerGroupDescribeResponse();
        ConsumerGroupDescribeResponse.DescribedGroup group = new ConsumerGroupDescribeResponse.DescribedGroup().groupId("g");
        ConsumerGroupDescribeResponse.Member member = new ConsumerGroupDescribeResponse.Member().memberId("m");
        member.assignment().topicPartitions().add(new ConsumerGroupDescribeResponse.TopicPartitions().topicName("t")
                .partitions(new ArrayList<>(List.of(0, 1))));
        group.members().add(member);
        describe.groups().add(group);
        samples.add(new Sample(describe, (short) 1, false));
        return samples;
    }

    @Test
    void shouldRejectEveryTruncationWithADecodeException() {
        for (Sample s : samples()) {
            ByteBuffer full = s.encoded();
            assertThat(s.decode(full.duplicate()).toByteBuffer(s.version())).isEqualTo(full); // re-encodes identically
            for (int length = 0; length < full.remaining(); length++) {
                ByteBuffer cut = full.duplicate().limit(length);
                int len = length;
                assertThatThrownBy(() -> s.decode(cut))
                        .as("%s v%d cut at %d", s.message().getClass().getSimpleName(), s.version(), len)
                        .isInstanceOf(ProtocolDecodeException.class);
            }
        }
    }

    @Test
    void shouldSurviveRandomCorruptionWithOnlyDecodeExceptions() {
        Random random = new Random(20240611L); // fixed seed: deterministic
        for (Sample s : samples()) {
            ByteBuffer full = s.encoded();
            for (int round = 0; round < 2000; round++) {
                ByteBuffer copy = ByteBuffer.allocate(full.remaining()).put(full.duplicate()).flip();
                int flips = 1 + random.nextInt(4);
                for (int i = 0; i < flips; i++) {
                    int pos = random.nextInt(copy.limit());
                    copy.put(pos, random.nextBoolean() ? (byte) random.nextInt() : (byte) 0xFF);
                }
                try {
                    s.decode(copy);
                } catch (ProtocolDecodeException expected) {
                    assertThat(expected.getMessage()).contains(":");
                } catch (RuntimeException | Error e) {
                    fail(s.message().getClass().getSimpleName() + " v" + s.version() + " threw " + e, e);
                }
            }
        }
    }

    @Test
    void shouldRejectHugeArrayCountsBeforeAllocating() {
        // ProduceRequest v9: transactional_id null, acks, timeout, then a compact array count of 2^31 - 2
        ByteBuffer buf = ByteBuffer.wrap(new byte[] {0, 0, 1, 0, 0, 0, 1, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF,
            (byte) 0xFF, 0x07, 1, 2});
        assertThatThrownBy(() -> ProduceRequest.read(buf, (short) 9))
                .isInstanceOf(ProtocolDecodeException.class)
                .hasMessage("ProduceRequest.topicData: array length 2147483646 of elements of at least 3 bytes"
                        + " exceeds remaining 2 bytes");
        // classic int32 count
        ByteBuffer classic = ByteBuffer.wrap(new byte[] {(byte) 0xFF, (byte) 0xFF, 0, 1, 0, 0, 0, 1, 0x7F, (byte) 0xFF,
            (byte) 0xFF, (byte) 0xFF, 0});
        assertThatThrownBy(() -> ProduceRequest.read(classic, (short) 3))
                .isInstanceOf(ProtocolDecodeException.class)
                .hasMessage("ProduceRequest.topicData: array length 2147483647 of elements of at least 6 bytes"
                        + " exceeds remaining 1 bytes");
    }

    @Test
    void shouldCheckArrayCountsInsideKnownTaggedFieldsAtTheirElementsSize() {
        // ProduceResponse v10: no responses, throttle 0, then one tagged field (tag 0, NodeEndpoints)
        // of 40 bytes whose count says 30 endpoints of at least 11 bytes each
        ByteBuffer buf = ByteBuffer.allocate(48).put((byte) 1).putInt(0).put((byte) 1).put((byte) 0).put((byte) 40)
                .put((byte) 31).rewind();
        assertThatThrownBy(() -> ProduceResponse.read(buf, (short) 10))
                .isInstanceOf(ProtocolDecodeException.class)
                .hasMessage("ProduceResponse.nodeEndpoints: array length 30 of elements of at least 11 bytes"
                        + " exceeds remaining 39 bytes");
    }

    @Test
    void shouldRejectNullForNonNullableStringWithFieldName() {
        // JoinGroupRequest v0: group_id with length -1
        ByteBuffer buf = ByteBuffer.wrap(new byte[] {(byte) 0xFF, (byte) 0xFF, 0, 0, 0, 0});
        assertThatThrownBy(() -> JoinGroupRequest.read(buf, (short) 0))
                .isInstanceOf(ProtocolDecodeException.class)
                .hasMessageStartingWith("JoinGroupRequest.groupId:");
    }

    @Test
    void shouldRejectUnsupportedVersionsOfEveryKey() {
        for (ApiKey key : ApiKey.values()) {
            assertThatThrownBy(() -> ApiMessages.readRequest(key, (short) -1, ByteBuffer.allocate(0)))
                    .isInstanceOf(ProtocolDecodeException.class)
                    .hasMessageContaining("unsupported version -1");
        }
    }

    @Test
    void shouldDecodeRandomBytesOfEveryKeyAndVersionWithOnlyDecodeExceptions() {
        Random random = new Random(7L);
        for (ApiKey key : ApiKey.values()) {
            for (short v = key.oldestVersion(); v <= key.latestVersion(); v++) {
                for (int round = 0; round < 100; round++) {
                    byte[] junk = new byte[random.nextInt(48)];
                    random.nextBytes(junk);
                    if (round % 3 == 0 && junk.length > 0) {
                        junk[random.nextInt(junk.length)] = (byte) 0xFF; // invite -1 / huge lengths
                    }
                    for (boolean request : new boolean[] {true, false}) {
                        ByteBuffer buf = ByteBuffer.wrap(junk);
                        try {
                            if (request) {
                                ApiMessages.readRequest(key, v, buf);
                            } else {
                                ApiMessages.readResponse(key, v, buf);
                            }
                        } catch (ProtocolDecodeException expected) {
                            // the only acceptable failure
                        } catch (RuntimeException | Error e) {
                            fail(key + " v" + v + (request ? " request" : " response") + " threw " + e, e);
                        }
                    }
                }
            }
        }
    }
}
