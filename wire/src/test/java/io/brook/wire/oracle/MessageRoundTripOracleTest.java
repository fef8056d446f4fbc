package io.brook.wire.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import io.brook.wire.message.ApiMessages;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The message oracle: for every API key of ours, every version both we and kafka-clients (4.4.0)
 * speak, requests and responses: kafka-clients writes a randomly filled message, we read it (and
 * must consume every byte), we write it again (and must produce the very same bytes), and
 * kafka-clients reads our bytes back into a message equal to the one it started from.
 *
 * <p>Each case runs {@link #SAMPLES} messages; sample {@code i} of a case uses the seed
 * {@code OracleSeeds.seed(name) + i}, printed on failure. Re-run with {@code -Doracle.seed=<base>} and
 * {@code -Doracle.samples=<n>} to explore other inputs.
 */
class MessageRoundTripOracleTest {

    private static final int SAMPLES = Integer.getInteger("oracle.samples", 20);

    @TestFactory
    Stream<DynamicTest> kafkaBytesRoundTripThroughOurCodec() {
        List<DynamicTest> tests = new ArrayList<>();
        for (ApiKey key : ApiKey.values()) {
            for (short v = OracleCoverage.oracleFrom(key); v <= OracleCoverage.oracleTo(key); v++) {
                for (boolean request : new boolean[] {true, false}) {
                    short version = v;
                    String name = OracleCoverage.pair(key, v) + (request ? " request" : " response");
                    tests.add(DynamicTest.dynamicTest(name, () -> runCase(key, version, request, name)));
                }
            }
        }
        return tests.stream();
    }

    /**
     * A message built with our no-argument constructor encodes exactly like kafka-clients' default
     * message: the defaults (-1 offsets, INT32_MIN authorized operations, null vs empty, ...) are
     * what a handler sends for every field it does not set, and the round trip above cannot see
     * them because there all values come from kafka-clients.
     */
    @TestFactory
    Stream<DynamicTest> defaultMessagesEncodeLikeKafkaDefaults() {
        List<DynamicTest> tests = new ArrayList<>();
        for (ApiKey key : ApiKey.values()) {
            for (short v = OracleCoverage.oracleFrom(key); v <= OracleCoverage.oracleTo(key); v++) {
                for (boolean request : new boolean[] {true, false}) {
                    short version = v;
                    String name = OracleCoverage.pair(key, v) + (request ? " request" : " response") + " defaults";
                    tests.add(DynamicTest.dynamicTest(name, () -> {
                        ApiMessageType type = ApiMessageType.fromApiKey(key.id());
                        byte[] kafkaBytes = KafkaWire.write(request ? type.newRequest() : type.newResponse(), version);
                        ApiMessage ours = request ? ApiMessages.newRequest(key) : ApiMessages.newResponse(key);
                        ByteBuffer out = ours.toByteBuffer(version);
                        byte[] ourBytes = new byte[out.remaining()];
                        out.get(ourBytes);
                        if (!java.util.Arrays.equals(ourBytes, kafkaBytes)) {
                            fail(name + ": " + describeDifference(kafkaBytes, ourBytes) + "\n  ours: " + ours);
                        }
                    }));
                }
            }
        }
        return tests.stream();
    }

    /**
     * Readers must skip tagged fields they do not know (KIP-482): a top-level unknown tag, as a
     * newer client may send, is consumed and dropped, and the rest decodes as without it.
     */
    @TestFactory
    Stream<DynamicTest> unknownTaggedFieldsAreSkipped() {
        List<DynamicTest> tests = new ArrayList<>();
        for (ApiKey key : ApiKey.values()) {
            for (short v = OracleCoverage.oracleFrom(key); v <= OracleCoverage.oracleTo(key); v++) {
                if (!key.isFlexible(v)) {
                    continue;
                }
                for (boolean request : new boolean[] {true, false}) {
                    short version = v;
                    String name = OracleCoverage.pair(key, v) + (request ? " request" : " response")
                            + " with an unknown tag";
                    tests.add(DynamicTest.dynamicTest(name, () -> {
                        ApiMessageType type = ApiMessageType.fromApiKey(key.id());
                        long seed = OracleSeeds.seed(name);
                        org.apache.kafka.common.protocol.ApiMessage plain = new KafkaMessageFiller(seed)
                                .fill(request ? type.newRequest() : type.newResponse(), version);
                        byte[] plainBytes = KafkaWire.write(plain, version);
                        org.apache.kafka.common.protocol.ApiMessage tagged = new KafkaMessageFiller(seed)
                                .fill(request ? type.newRequest() : type.newResponse(), version);
                        tagged.unknownTaggedFields().add(new RawTaggedField(1000, new byte[] {1, 2, 3, 4, 5}));
                        byte[] taggedBytes = KafkaWire.write(tagged, version);

                        ByteBuffer in = ByteBuffer.wrap(taggedBytes);
                        ApiMessage ours = request ? ApiMessages.readRequest(key, version, in)
                                : ApiMessages.readResponse(key, version, in);
                        assertThat(in.remaining()).as(name).isZero();
                        ByteBuffer out = ours.toByteBuffer(version);
                        byte[] ourBytes = new byte[out.remaining()];
                        out.get(ourBytes);
                        assertThat(ourBytes).as(name + " (seed " + seed + ")").isEqualTo(plainBytes);
                    }));
                }
            }
        }
        return tests.stream();
    }

    /** The pairs the oracle cannot check are exactly the documented ones. */
    @Test
    void uncoveredVersionsAreExactlyTheDocumentedOnes() {
        Map<String, String> uncovered = new TreeMap<>();
        for (ApiKey key : ApiKey.values()) {
            for (short v = key.oldestVersion(); v <= key.latestVersion(); v++) {
                if (v < OracleCoverage.oracleFrom(key) || v > OracleCoverage.oracleTo(key)) {
                    uncovered.put(OracleCoverage.pair(key, v), "?");
                }
            }
        }
        assertThat(uncovered.keySet()).containsExactlyInAnyOrderElementsOf(
                OracleCoverage.NOT_IN_KAFKA_CLIENTS.keySet());
    }

    @Test
    void knownFailuresNameExistingCases() {
        for (String name : OracleCoverage.KNOWN_CODEC_FAILURES.keySet()) {
            String[] parts = name.split(" ");
            ApiKey key = ApiKey.valueOf(parts[0]);
            short version = Short.parseShort(parts[1].substring(1));
            assertThat(version).as(name).isBetween(OracleCoverage.oracleFrom(key), OracleCoverage.oracleTo(key));
            assertThat(parts[2]).as(name).isIn("request", "response");
        }
    }

    private static void runCase(ApiKey key, short version, boolean request, String name) {
        String knownFailure = OracleCoverage.KNOWN_CODEC_FAILURES.get(name);
        try {
            long caseSeed = OracleSeeds.seed(name);
            int nonDefault = 0;
            for (int i = 0; i < SAMPLES; i++) {
                nonDefault += roundTrip(key, version, request, caseSeed + i, name) ? 1 : 0;
            }
            // guards the harness: a case whose messages are all defaults would check almost nothing
            assertThat(nonDefault).as("%s: samples that differ from the default message", name)
                    .isGreaterThanOrEqualTo(hasFields(key, version, request) ? SAMPLES / 4 : 0);
        } catch (AssertionError | RuntimeException e) {
            if (knownFailure != null) {
                Assumptions.abort("known codec failure: " + knownFailure + " (now: " + e.getMessage() + ")");
            }
            throw e;
        }
        if (knownFailure != null) {
            fail(name + " passes now; remove it from OracleCoverage.KNOWN_CODEC_FAILURES");
        }
    }

    private static boolean hasFields(ApiKey key, short version, boolean request) {
        ApiMessageType type = ApiMessageType.fromApiKey(key.id());
        Class<?> cls = (request ? type.newRequest() : type.newResponse()).getClass();
        return KafkaMessageFiller.schemaOf(cls, version).numFields() > (key.isFlexible(version) ? 1 : 0);
    }

    /** One sample; returns whether the message differed from the all-defaults message. */
    private static boolean roundTrip(ApiKey key, short version, boolean request, long seed, String name) {
        String what = name + " (seed " + seed + ")";
        ApiMessageType type = ApiMessageType.fromApiKey(key.id());
        org.apache.kafka.common.protocol.ApiMessage empty = request ? type.newRequest() : type.newResponse();
        org.apache.kafka.common.protocol.ApiMessage original = new KafkaMessageFiller(seed).fill(empty, version);
        byte[] kafkaBytes = KafkaWire.write(original, version);

        ByteBuffer in = ByteBuffer.wrap(kafkaBytes);
        ApiMessage ours;
        try {
            ours = request ? ApiMessages.readRequest(key, version, in) : ApiMessages.readResponse(key, version, in);
        } catch (RuntimeException e) {
            throw new AssertionError(what + ": our codec cannot read kafka-clients' bytes: " + e
                    + "\n  message: " + original + "\n  bytes: " + HexFormat.of().formatHex(kafkaBytes), e);
        }
        assertThat(ours.apiKey()).as(what).isEqualTo(key);
        assertThat(in.remaining()).as("%s: bytes left unread of %d\n  message: %s", what, kafkaBytes.length, original)
                .isZero();

        byte[] ourBytes;
        try {
            ByteBuffer out = ours.toByteBuffer(version);
            ourBytes = new byte[out.remaining()];
            out.get(ourBytes);
        } catch (RuntimeException e) {
            throw new AssertionError(what + ": our codec cannot write what it read: " + e + "\n  message: " + original, e);
        }
        if (!java.util.Arrays.equals(ourBytes, kafkaBytes)) {
            fail(what + ": re-encoded bytes differ " + describeDifference(kafkaBytes, ourBytes)
                    + "\n  message: " + original);
        }

        org.apache.kafka.common.protocol.ApiMessage back = KafkaWire.read(type, request, ourBytes, version);
        assertThat(back).as(what).isEqualTo(original);

        // the server reads from direct buffers, at arbitrary positions, sometimes read-only views
        ByteBuffer direct = ByteBuffer.allocateDirect(kafkaBytes.length + 11);
        direct.position(7);
        direct.put(kafkaBytes).flip().position(7);
        ByteBuffer view = direct.asReadOnlyBuffer();
        ApiMessage fromDirect = request ? ApiMessages.readRequest(key, version, view)
                : ApiMessages.readResponse(key, version, view);
        assertThat(view.remaining()).as(what + ": direct buffer, bytes left").isZero();
        assertThat(fromDirect).as(what + ": decoded from a direct read-only buffer").isEqualTo(ours);
        return !original.equals(empty);
    }

    static String describeDifference(byte[] expected, byte[] actual) {
        int n = Math.min(expected.length, actual.length);
        int at = 0;
        while (at < n && expected[at] == actual[at]) {
            at++;
        }
        int from = Math.max(0, at - 8);
        HexFormat hex = HexFormat.of();
        return "(kafka " + expected.length + " bytes, ours " + actual.length + " bytes; first difference at offset "
                + at + ")\n  kafka from " + from + ": " + hex.formatHex(expected, from, Math.min(expected.length, at + 16))
                + "\n  ours  from " + from + ": " + hex.formatHex(actual, from, Math.min(actual.length, at + 16));
    }
}
