package io.brook.wire.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;

import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.RequestHeader;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Hostile input for the request path ({@code RequestHeader.read} + {@code ApiMessages.readRequest}):
 * whatever the bytes, decoding either succeeds or throws {@code ProtocolDecodeException}, and never
 * allocates more than {@link DecodingAllocation#bound(int)} (which also rules out OutOfMemoryError).
 *
 * <p>Three sources of frames: random bytes; random bodies under a valid header of every API key
 * (and of versions just outside our range); and valid frames written by kafka-clients, mutated
 * (bytes flipped, truncated, lengths replaced by huge or negative values). The last one also runs
 * as an exhaustive sweep that plants hostile lengths at every offset of one frame per API version.
 * Properties run with fixed seeds so that a run is reproducible; jqwik prints the seed and the
 * shrunk sample on failure.
 */
class DecoderFuzzTest {

    /** One kafka-written request frame per (api, version) the oracle covers. */
    private static final List<Frame> CORPUS = buildCorpus();

    /** int32 values that, planted where a length or count is, must be rejected before use. */
    private static final int[] HOSTILE_INT32 = {
        Integer.MAX_VALUE, Integer.MIN_VALUE, -2, 0x0010_0000, 0x0100_0000, 0x7FFF_FFF0
    };
    private static final short[] HOSTILE_INT16 = {Short.MAX_VALUE, Short.MIN_VALUE, -2};
    /** Unsigned varints: 2^31-1, 2^32-1, 2^20, and an over-long 6-byte encoding. */
    private static final byte[][] HOSTILE_VARINTS = {
        {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07},
        {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F},
        {(byte) 0x80, (byte) 0x80, 0x40},
        {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x01},
    };

    record Frame(String name, byte[] bytes) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static List<Frame> buildCorpus() {
        List<Frame> frames = new ArrayList<>();
        for (ApiKey key : ApiKey.values()) {
            ApiMessageType type = ApiMessageType.fromApiKey(key.id());
            for (short v = OracleCoverage.oracleFrom(key); v <= OracleCoverage.oracleTo(key); v++) {
                String name = OracleCoverage.pair(key, v);
                org.apache.kafka.common.protocol.ApiMessage body =
                        new KafkaMessageFiller(OracleSeeds.seed(name)).fill(type.newRequest(), v);
                frames.add(new Frame(name, frame(key, v, KafkaWire.write(body, v))));
            }
        }
        // first decode of every message class loads and initialises it; keep that out of the measurements
        for (Frame f : frames) {
            DecodingAllocation.decode(f.bytes());
        }
        return frames;
    }

    static byte[] frame(ApiKey key, short version, byte[] body) {
        short headerVersion = ApiKeys.valueOf(key.name()).requestHeaderVersion(version);
        byte[] header = KafkaWire.write(new RequestHeaderData().setRequestApiKey(key.id())
                .setRequestApiVersion(version).setCorrelationId(42).setClientId("fuzz"), headerVersion);
        byte[] frame = Arrays.copyOf(header, header.length + body.length);
        System.arraycopy(body, 0, frame, header.length, body.length);
        return frame;
    }

    private static void assertDecodesSafely(byte[] frame, String what) {
        DecodingAllocation.Outcome outcome = DecodingAllocation.decode(frame);
        if (outcome.unexpected() != null) {
            throw new AssertionError(what + ": decoding threw " + outcome.unexpected()
                    + "\n  frame: " + HexFormat.of().formatHex(frame), outcome.unexpected());
        }
        assertThat(outcome.allocatedBytes())
                .as("%s: bytes allocated decoding a %d-byte frame (failure: %s)\n  frame: %s", what, frame.length,
                        outcome.failure(), HexFormat.of().formatHex(frame))
                .isLessThanOrEqualTo(DecodingAllocation.bound(frame.length));
    }

    @Test
    void validFramesDecodeAndStayFarBelowTheAllocationBound() {
        double worst = 0;
        String worstName = "";
        for (Frame f : CORPUS) {
            DecodingAllocation.Outcome outcome = DecodingAllocation.decode(f.bytes());
            assertThat(outcome.failure()).as(f.name()).isNull();
            double perByte = (double) outcome.allocatedBytes() / f.bytes().length;
            if (perByte > worst) {
                worst = perByte;
                worstName = f.name() + " (" + f.bytes().length + " bytes, " + outcome.allocatedBytes() + " allocated)";
            }
        }
        System.out.printf("largest allocation per input byte on valid frames: %.1f at %s%n", worst, worstName);
        assertThat(worst).as(worstName).isLessThan(DecodingAllocation.BYTES_PER_INPUT_BYTE / 2.0);
    }

    /**
     * The measurement itself must be able to fail: a decoder that sizes a list from the count it
     * was sent exceeds the bound (or runs out of memory), where ours rejects the same frame cheaply.
     */
    @Test
    void allocationBoundCatchesADecoderThatTrustsACount() {
        Consumer<ByteBuffer> trusting = buffer -> {
            RequestHeader.read(buffer);
            int count = buffer.getInt();
            List<Object> topics = new ArrayList<>(count);
            topics.add(buffer);
        };
        byte[] body = ByteBuffer.allocate(8).putInt(0, 0x0010_0000).array();
        byte[] frame = frame(ApiKey.METADATA, (short) 4, body);
        DecodingAllocation.Outcome naive = DecodingAllocation.measure(frame, trusting);
        assertThat(naive.allocatedBytes()).isGreaterThan(DecodingAllocation.bound(frame.length));

        byte[] hugeCount = frame(ApiKey.METADATA, (short) 4, ByteBuffer.allocate(8).putInt(0, 0x7FFF_FFF0).array());
        assertThat(DecodingAllocation.measure(hugeCount, trusting).unexpected()).isInstanceOf(OutOfMemoryError.class);

        assertDecodesSafely(frame, "count 2^20 with 4 bytes left");
        assertDecodesSafely(hugeCount, "count 2^31-16 with 4 bytes left");
    }

    @Property(tries = 2000, seed = "20261130")
    void randomBytesOnlyRaiseDecodeException(@ForAll @Size(max = 96) byte[] frame) {
        assertDecodesSafely(frame, "random frame");
    }

    @Property(tries = 4000, seed = "20261131")
    void randomBodiesUnderValidHeadersOnlyRaiseDecodeException(@ForAll("randomBodies") byte[] frame) {
        assertDecodesSafely(frame, "random body");
    }

    @Provide
    Arbitrary<byte[]> randomBodies() {
        return Combinators.combine(
                Arbitraries.of(ApiKey.values()),
                Arbitraries.integers().between(-1, 20),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(200))
            .as((key, offset, body) -> frame(key, (short) (key.oldestVersion() + offset), body));
    }

    @Property(tries = 6000, seed = "20261132")
    void mutatedValidFramesOnlyRaiseDecodeException(@ForAll("mutatedFrames") byte[] frame) {
        assertDecodesSafely(frame, "mutated frame");
    }

    @Provide
    Arbitrary<byte[]> mutatedFrames() {
        return Combinators.combine(Arbitraries.of(CORPUS), Arbitraries.longs())
                .as((base, seed) -> mutate(base.bytes(), new Random(seed)));
    }

    private static byte[] mutate(byte[] base, Random random) {
        byte[] frame = base.clone();
        int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations && frame.length > 0; m++) {
            int at = random.nextInt(frame.length);
            switch (random.nextInt(5)) {
                case 0 -> frame[at] ^= (byte) (1 << random.nextInt(8));
                case 1 -> frame = Arrays.copyOf(frame, at);
                case 2 -> frame = plantInt32(frame, at, HOSTILE_INT32[random.nextInt(HOSTILE_INT32.length)]);
                case 3 -> frame = plantInt16(frame, at, HOSTILE_INT16[random.nextInt(HOSTILE_INT16.length)]);
                default -> frame = plantVarint(frame, at, HOSTILE_VARINTS[random.nextInt(HOSTILE_VARINTS.length)]);
            }
        }
        return frame;
    }

    private static byte[] plantInt32(byte[] base, int at, int value) {
        byte[] frame = base.clone();
        if (at + 4 <= frame.length) {
            ByteBuffer.wrap(frame).putInt(at, value);
        }
        return frame;
    }

    private static byte[] plantInt16(byte[] base, int at, short value) {
        byte[] frame = base.clone();
        if (at + 2 <= frame.length) {
            ByteBuffer.wrap(frame).putShort(at, value);
        }
        return frame;
    }

    /** Replaces the byte at {@code at} (a one-byte varint in a valid frame) by {@code varint}. */
    private static byte[] plantVarint(byte[] base, int at, byte[] varint) {
        byte[] frame = new byte[base.length - 1 + varint.length];
        System.arraycopy(base, 0, frame, 0, at);
        System.arraycopy(varint, 0, frame, at, varint.length);
        System.arraycopy(base, at + 1, frame, at + varint.length, base.length - at - 1);
        return frame;
    }

    /** Every offset of one valid frame per API version gets every hostile length, one at a time. */
    @TestFactory
    Stream<DynamicTest> hostileLengthsAtEveryOffsetAreRejectedBeforeUse() {
        return CORPUS.stream().map(f -> DynamicTest.dynamicTest(f.name(), () -> {
            byte[] base = f.bytes();
            for (int at = 0; at < base.length; at++) {
                for (int value : HOSTILE_INT32) {
                    assertDecodesSafely(plantInt32(base, at, value), f.name() + " int32 " + value + " at " + at);
                }
                for (short value : HOSTILE_INT16) {
                    assertDecodesSafely(plantInt16(base, at, value), f.name() + " int16 " + value + " at " + at);
                }
                for (byte[] varint : HOSTILE_VARINTS) {
                    assertDecodesSafely(plantVarint(base, at, varint),
                            f.name() + " varint " + HexFormat.of().formatHex(varint) + " at " + at);
                }
                assertDecodesSafely(Arrays.copyOf(base, at), f.name() + " truncated to " + at);
            }
        }));
    }
}
