package io.brook.wire.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;

import io.brook.wire.message.ApiMessages;
import io.brook.wire.message.SmallestInstances;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.ProtocolDecodeException;
import io.brook.wire.protocol.ProtocolReader;
import org.junit.jupiter.api.Test;

/**
 * Decoding allocates in proportion to the bytes a request carries, not to the counts it claims
 * (docs/protocol.md, "Bounded decoding").
 *
 * <p>The frames: for every request API and version, and every array reachable from the top level
 * through single-element arrays (three levels deep), a body whose array holds {@value #ELEMENTS}
 * elements that each take the fewest bytes the version allows ({@code SmallestInstances}), so
 * that each element costs the decoder the most objects per input byte. Decoded whole, such a body
 * shows the worst per-element expansion; cut in half, its count claims elements the bytes cannot
 * hold, which must be rejected at the count, before a list or a single element is allocated.
 */
class DecodeAmplificationTest {

    private static final int ELEMENTS = 4096;
    /** What a rejection may cost: the exception, its message and stack trace. */
    private static final long REJECTION_BYTES = 8 * 1024;
    /**
     * Bytes allocated per input byte for a body of smallest elements, decoded whole. The worst
     * measured is 25.3: AlterClientQuotas v1's entries, each a struct of two empty arrays, 3 bytes
     * on the wire for a struct, two ArrayLists and a list slot (76 bytes); next is 22,
     * CreatePartitions v2's assignments (a struct of one empty array). The bound is the 26 of
     * one-character strings ({@link #oneCharacterStringsExpandTwentySixFold}), what
     * docs/protocol.md states a frame can cost. Empty strings, bytes and records cost nothing;
     * before they were shared constants, and before counts were checked at their elements' size,
     * the worst was 28.
     */
    private static final double WORST_EXPANSION = 26;
    /** What decoding allocates besides the estimate: the message object, the buffer's wrapper, the reader. */
    private static final long ESTIMATE_SLACK = 1024;

    private final SmallestInstances smallest = new SmallestInstances();

    record Body(String name, ApiKey key, short version, byte[] bytes) {
    }

    @Test
    void countsBeyondTheBytesPresentAreRejectedBeforeAllocating() {
        int frames = 0;
        for (Body body : bodies()) {
            byte[] cut = Arrays.copyOf(body.bytes(), body.bytes().length / 2);
            DecodingAllocation.Outcome outcome = decode(body, cut);
            assertThat(outcome.failure()).as(body.name()).isInstanceOf(ProtocolDecodeException.class);
            assertThat(outcome.allocatedBytes())
                    .as("%s cut to %d of %d bytes: %s", body.name(), cut.length, body.bytes().length,
                            outcome.failure().getMessage())
                    .isLessThanOrEqualTo(REJECTION_BYTES);
            frames++;
        }
        assertThat(frames).isGreaterThan(250);
    }

    @Test
    void bodiesOfSmallestElementsExpandByABoundedFactor() {
        Map<String, String> worstPerApi = new TreeMap<>();
        double worst = 0;
        String worstName = "";
        for (Body body : bodies()) {
            DecodingAllocation.Outcome outcome = decode(body, body.bytes());
            assertThat(outcome.failure()).as(body.name()).isNull();
            double perByte = (double) outcome.allocatedBytes() / body.bytes().length;
            worstPerApi.merge(body.key().name(), String.format("%.1f %s", perByte, body.name()),
                    (a, b) -> Double.parseDouble(a.split(" ")[0]) >= Double.parseDouble(b.split(" ")[0]) ? a : b);
            if (perByte > worst) {
                worst = perByte;
                worstName = body.name() + " (" + body.bytes().length + " bytes, " + outcome.allocatedBytes()
                        + " allocated)";
            }
        }
        worstPerApi.forEach((api, figure) -> System.out.println("bytes allocated per input byte, worst of " + api
                + ": " + figure));
        System.out.printf("largest allocation per input byte for smallest elements: %.1f at %s%n", worst, worstName);
        assertThat(worst).as(worstName).isLessThanOrEqualTo(WORST_EXPANSION);
    }

    /**
     * A reader's heap estimate stays above what decoding allocates, for every body of smallest
     * elements (the worst case per input byte), so a heap limit holds: the broker refuses a
     * request whose estimate passes it, and adds the estimate to its request budget.
     */
    @Test
    void theHeapEstimateIsAnUpperBoundOfWhatDecodingAllocates() {
        double tightest = Double.MAX_VALUE;
        String tightestName = "";
        for (Body body : bodies()) {
            long[] estimate = new long[1];
            DecodingAllocation.Outcome outcome = measureWarm(body.bytes(), b -> {
                ProtocolReader reader = new ProtocolReader(b);
                ApiMessages.readRequest(body.key(), body.version(), reader);
                estimate[0] = reader.heapEstimate();
            });
            assertThat(outcome.failure()).as(body.name()).isNull();
            assertThat(estimate[0] + ESTIMATE_SLACK).as("%s: estimate %d, allocated %d", body.name(), estimate[0],
                    outcome.allocatedBytes()).isGreaterThanOrEqualTo(outcome.allocatedBytes());
            double ratio = (double) estimate[0] / outcome.allocatedBytes();
            if (ratio < tightest) {
                tightest = ratio;
                tightestName = body.name();
            }
        }
        System.out.printf("tightest heap estimate: %.2f of the allocation at %s%n", tightest, tightestName);
    }

    @Test
    void aHeapLimitRefusesABodyBeforeItIsDecodedWhole() {
        List<String> groups = new ArrayList<>(Collections.nCopies(ELEMENTS, "g"));
        byte[] body = new io.brook.wire.message.DescribeGroupsRequest().groups(groups).toByteBuffer((short) 5).array();
        long limit = 64 * 1024;
        DecodingAllocation.Outcome outcome = measureWarm(body,
                b -> ApiMessages.readRequest(ApiKey.DESCRIBE_GROUPS, (short) 5, new ProtocolReader(b, limit)));
        assertThat(outcome.failure()).isInstanceOf(ProtocolDecodeException.class)
                .hasMessageContaining("decodes to more than 65536 bytes of heap");
        assertThat(outcome.allocatedBytes()).isLessThanOrEqualTo(limit + REJECTION_BYTES);
        assertThat(ApiMessages.readRequest(ApiKey.DESCRIBE_GROUPS, (short) 5,
                new ProtocolReader(ByteBuffer.wrap(body), 10L * 1024 * 1024))).isNotNull();
    }

    /**
     * The costliest element for its size is a one-character string in an array of strings: two
     * bytes on the wire (compact), a String and its byte[] on the heap (24 + 24 bytes) and a list
     * slot. This is the factor docs/protocol.md states for what a frame can cost.
     */
    @Test
    void oneCharacterStringsExpandTwentySixFold() {
        List<String> groups = new ArrayList<>(Collections.nCopies(ELEMENTS, "g"));
        byte[] body = new io.brook.wire.message.DescribeGroupsRequest().groups(groups).toByteBuffer((short) 5).array();
        DecodingAllocation.Outcome outcome = measureWarm(body,
                b -> ApiMessages.readRequest(ApiKey.DESCRIBE_GROUPS, (short) 5, b));
        assertThat(outcome.failure()).isNull();
        double perByte = (double) outcome.allocatedBytes() / body.length;
        System.out.printf("bytes allocated per input byte for one-character group names: %.1f%n", perByte);
        assertThat(perByte).isBetween(20.0, 27.0);
    }

    /**
     * A 1 KiB Metadata request whose topic count says 2^31-1, and a Produce request whose only
     * topic claims as many partitions as there are bytes left (which the plain "a count is at most
     * the remaining bytes" rule lets through): both are rejected at the count, for a few KiB.
     */
    @Test
    void hugeAndPlausibleCountsInASmallFrameAreRejectedCheaply() {
        ByteBuffer metadata = ByteBuffer.allocate(1024).putInt(Integer.MAX_VALUE).rewind(); // v4: topics, int32
        DecodingAllocation.Outcome outcome = measureWarm(metadata.array(),
                b -> ApiMessages.readRequest(ApiKey.METADATA, (short) 4, b));
        assertThat(outcome.failure()).isInstanceOf(ProtocolDecodeException.class)
                .hasMessage("MetadataRequest.topics: array length 2147483647 of elements of at least 2 bytes"
                        + " exceeds remaining 1020 bytes");
        assertThat(outcome.allocatedBytes()).isLessThanOrEqualTo(REJECTION_BYTES);

        // Produce v9: no transactional id, acks, timeout, one topic "t" claiming 1000 partitions
        // of at least 6 bytes (index, empty records, tagged fields), followed by 1004 zero bytes
        ByteBuffer produce = ByteBuffer.allocate(1024).put((byte) 0).putShort((short) -1).putInt(30_000)
                .put((byte) 2).put((byte) 2).put((byte) 't').put(new byte[] {(byte) 0xE9, 0x07});
        outcome = measureWarm(produce.array(), b -> ApiMessages.readRequest(ApiKey.PRODUCE, (short) 9, b));
        assertThat(outcome.failure()).isInstanceOf(ProtocolDecodeException.class)
                .hasMessage("ProduceRequest.TopicProduceData.partitionData: array length 1000 of elements of at least"
                        + " 6 bytes exceeds remaining 1012 bytes");
        assertThat(outcome.allocatedBytes()).isLessThanOrEqualTo(REJECTION_BYTES);
    }

    private static DecodingAllocation.Outcome decode(Body body, byte[] bytes) {
        return measureWarm(bytes, b -> ApiMessages.readRequest(body.key(), body.version(), b));
    }

    /** The second of two runs: the first links call sites and loads classes, which no input causes. */
    private static DecodingAllocation.Outcome measureWarm(byte[] bytes, Consumer<ByteBuffer> decoder) {
        DecodingAllocation.measure(bytes, decoder);
        return DecodingAllocation.measure(bytes, decoder);
    }

    private List<Body> bodies() {
        List<Body> bodies = new ArrayList<>();
        for (ApiKey key : ApiKey.values()) {
            for (short v = key.oldestVersion(); v <= key.latestVersion(); v++) {
                ApiMessage top = (ApiMessage) smallest.smallest(ApiMessages.newRequest(key).getClass(), v);
                collect(key, v, top, top, key.name() + " v" + v, 0, bodies);
            }
        }
        return bodies;
    }

    /** One body per array field of {@code struct} (filled), and of its struct elements (recursively). */
    private void collect(ApiKey key, short version, ApiMessage top, Object struct, String path, int depth,
            List<Body> out) {
        for (Field f : struct.getClass().getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) || f.getType() != List.class) {
                continue;
            }
            f.setAccessible(true);
            Class<?> element = (Class<?>) ((ParameterizedType) f.getGenericType()).getActualTypeArguments()[0];
            Object saved = get(f, struct);
            set(f, struct, new ArrayList<>(Collections.nCopies(ELEMENTS, smallestValue(element, version))));
            byte[] bytes = encode(top, version);
            if (bytes != null && bytes.length >= ELEMENTS) { // else the version cannot carry the field
                out.add(new Body(path + "." + f.getName(), key, version, bytes));
                if (depth < 2 && element.getEnclosingClass() != null) {
                    Object one = smallest.smallest(element, version);
                    set(f, struct, new ArrayList<>(List.of(one)));
                    collect(key, version, top, one, path + "." + f.getName() + "[0]", depth + 1, out);
                }
            }
            set(f, struct, saved);
        }
    }

    private Object smallestValue(Class<?> type, short version) {
        if (type == Integer.class) {
            return 0;
        } else if (type == Long.class) {
            return 0L;
        } else if (type == Short.class) {
            return (short) 0;
        } else if (type == Byte.class) {
            return (byte) 0;
        } else if (type == Boolean.class) {
            return false;
        } else if (type == UUID.class) {
            return new UUID(0, 0);
        } else if (type == String.class) {
            return "";
        } else if (type == byte[].class) {
            return new byte[0];
        }
        return smallest.smallest(type, version);
    }

    private static byte[] encode(ApiMessage message, short version) {
        try {
            return message.toByteBuffer(version).array();
        } catch (IllegalArgumentException refused) {
            return null;
        }
    }

    private static Object get(Field f, Object o) {
        try {
            return f.get(o);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void set(Field f, Object o, Object value) {
        try {
            f.set(o, value);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
