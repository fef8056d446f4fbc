package io.brook.wire.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.brook.wire.message.ApiMessages;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.ApiRequest;
import io.brook.wire.protocol.Errors;
import org.apache.kafka.common.message.ApiMessageType;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The generated error responses of arbitrary requests: kafka-clients writes a randomly filled
 * request, we read it and build its error response, and kafka-clients must read that response
 * at the same version, consuming every byte.
 */
class ErrorResponseOracleTest {

    private static final int SAMPLES = 5;

    @TestFactory
    Stream<DynamicTest> errorResponsesOfRandomRequestsParseWithKafkaClients() {
        List<DynamicTest> tests = new ArrayList<>();
        for (ApiKey key : ApiKey.values()) {
            for (short v = OracleCoverage.oracleFrom(key); v <= OracleCoverage.oracleTo(key); v++) {
                short version = v;
                String name = OracleCoverage.pair(key, v) + " error response";
                tests.add(DynamicTest.dynamicTest(name, () -> {
                    ApiMessageType type = ApiMessageType.fromApiKey(key.id());
                    long seed = OracleSeeds.seed(name);
                    for (int i = 0; i < SAMPLES; i++) {
                        org.apache.kafka.common.protocol.ApiMessage kafkaRequest =
                                new KafkaMessageFiller(seed + i).fill(type.newRequest(), version);
                        byte[] requestBytes = KafkaWire.write(kafkaRequest, version);
                        ApiRequest ours = ApiMessages.readRequest(key, version, ByteBuffer.wrap(requestBytes));
                        ApiMessage response = ours.errorResponse(version, Errors.NOT_COORDINATOR);
                        ByteBuffer out = response.toByteBuffer(version);
                        byte[] responseBytes = new byte[out.remaining()];
                        out.get(responseBytes);
                        org.apache.kafka.common.protocol.ApiMessage parsed =
                                KafkaWire.read(type, false, responseBytes, version);
                        assertThat(parsed).as("%s (seed %d)", name, seed + i).isNotNull();
                    }
                }));
            }
        }
        return tests.stream();
    }
}
