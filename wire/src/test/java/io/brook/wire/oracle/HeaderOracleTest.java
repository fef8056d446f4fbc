package io.brook.wire.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ByteBufferWriter;
import io.brook.wire.protocol.RequestHeader;
import io.brook.wire.protocol.ResponseHeader;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Request header v1/v2 and response header v0/v1 against kafka-clients' header classes. */
class HeaderOracleTest {

    private static final String[] CLIENT_IDS = {null, "", "producer-1", "clïent-日本-\uD83D\uDE00"};

    @TestFactory
    Stream<DynamicTest> requestHeaderMatchesKafkaForEveryKeyAndVersion() {
        List<DynamicTest> tests = new ArrayList<>();
        for (ApiKey key : ApiKey.values()) {
            ApiKeys kafkaKey = ApiKeys.valueOf(key.name());
            short from = (short) Math.max(key.oldestVersion(), kafkaKey.oldestVersion());
            short to = (short) Math.min(key.latestVersion(), kafkaKey.latestVersion(true));
            for (short v = from; v <= to; v++) {
                short version = v;
                tests.add(DynamicTest.dynamicTest(key + " v" + v, () -> {
                    for (String clientId : CLIENT_IDS) {
                        assertRequestHeaderRoundTrip(kafkaKey, version, clientId);
                    }
                }));
            }
        }
        return tests.stream();
    }

    /** KIP-511: an ApiVersions request newer than we know has its header read as v2. */
    @ParameterizedTest
    @ValueSource(shorts = {6, 42, Short.MAX_VALUE})
    void apiVersionsRequestNewerThanKnownIsReadAsHeaderV2(short version) {
        assertRequestHeaderRoundTrip(ApiKeys.API_VERSIONS, version, "librdkafka");
    }

    @Test
    void unknownApiKeyIsReadAsHeaderV1() {
        ByteBuffer buf = ByteBuffer.allocate(64);
        buf.putShort((short) 4).putShort((short) 7).putInt(99).putShort((short) 3).put("abc".getBytes());
        buf.put((byte) 0x55).flip();
        RequestHeader header = RequestHeader.read(buf);
        assertThat(header.apiKey()).isNull();
        assertThat(header.apiKeyId()).isEqualTo((short) 4);
        assertThat(header.apiVersion()).isEqualTo((short) 7);
        assertThat(header.correlationId()).isEqualTo(99);
        assertThat(header.clientId()).isEqualTo("abc");
        assertThat(buf.remaining()).as("the byte after a v1 header belongs to the body").isEqualTo(1);
    }

    private static void assertRequestHeaderRoundTrip(ApiKeys kafkaKey, short version, String clientId) {
        int correlationId = new Random(version * 31L + kafkaKey.id).nextInt();
        short headerVersion = kafkaKey.requestHeaderVersion(version);
        RequestHeaderData data = new RequestHeaderData().setRequestApiKey(kafkaKey.id)
                .setRequestApiVersion(version).setCorrelationId(correlationId).setClientId(clientId);
        byte[] kafkaBytes = KafkaWire.write(data, headerVersion);
        String what = kafkaKey + " v" + version + " header v" + headerVersion + " clientId " + clientId;

        ByteBuffer in = ByteBuffer.wrap(kafkaBytes);
        RequestHeader ours = RequestHeader.read(in);
        assertThat(in.remaining()).as(what + ": bytes left").isZero();
        assertThat(ours.apiKeyId()).isEqualTo(kafkaKey.id);
        assertThat(ours.apiVersion()).isEqualTo(version);
        assertThat(ours.correlationId()).isEqualTo(correlationId);
        assertThat(ours.clientId()).isEqualTo(clientId);
        assertThat(ours.headerVersion()).as(what).isEqualTo(headerVersion);

        ByteBuffer out = ByteBuffer.allocate(ours.size(headerVersion));
        ours.write(new ByteBufferWriter(out), headerVersion);
        assertThat(out.hasRemaining()).as(what + ": size() vs write()").isFalse();
        assertThat(out.array()).as(what).isEqualTo(kafkaBytes);

        ByteBuffer back = ByteBuffer.wrap(out.array());
        assertThat(new RequestHeaderData(new ByteBufferAccessor(back), headerVersion)).as(what).isEqualTo(data);
        assertThat(back.hasRemaining()).as(what).isFalse();
        // the broker-side entry point too (it turns a null client id into "", hence no equals here)
        org.apache.kafka.common.requests.RequestHeader parsed =
                org.apache.kafka.common.requests.RequestHeader.parse(ByteBuffer.wrap(out.array()));
        assertThat(parsed.correlationId()).isEqualTo(correlationId);
        assertThat(parsed.headerVersion()).isEqualTo(headerVersion);
    }

    @ParameterizedTest
    @ValueSource(shorts = {0, 1})
    void responseHeaderMatchesKafka(short headerVersion) {
        for (int correlationId : new int[] {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, 0x1234_5678}) {
            byte[] kafkaBytes = KafkaWire.write(new ResponseHeaderData().setCorrelationId(correlationId), headerVersion);

            ByteBuffer out = ByteBuffer.allocate(ResponseHeader.size(headerVersion));
            ResponseHeader.write(new ByteBufferWriter(out), correlationId, headerVersion);
            assertThat(out.hasRemaining()).isFalse();
            assertThat(out.array()).isEqualTo(kafkaBytes);

            ByteBuffer in = ByteBuffer.wrap(kafkaBytes);
            assertThat(ResponseHeader.read(in, headerVersion).correlationId()).isEqualTo(correlationId);
            assertThat(in.hasRemaining()).isFalse();

            org.apache.kafka.common.requests.ResponseHeader parsed =
                    org.apache.kafka.common.requests.ResponseHeader.parse(ByteBuffer.wrap(out.array()), headerVersion);
            assertThat(parsed.correlationId()).isEqualTo(correlationId);
        }
    }

    /** Kafka's own reader at v1 must accept our v1 header, including its (empty) tagged section. */
    @Test
    void responseHeaderV1ReadsBackThroughKafkaAccessor() {
        ByteBuffer out = ByteBuffer.allocate(ResponseHeader.size((short) 1));
        ResponseHeader.write(new ByteBufferWriter(out), 7, (short) 1);
        out.flip();
        ResponseHeaderData data = new ResponseHeaderData(new ByteBufferAccessor(out), (short) 1);
        assertThat(data.correlationId()).isEqualTo(7);
        assertThat(out.hasRemaining()).isFalse();
    }
}
