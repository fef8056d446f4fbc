package io.brook.wire.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;

import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ByteBufferWriter;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.ResponseHeader;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * KIP-511: to an ApiVersions request of a version it cannot read, a broker answers with response
 * header v0 and a v0 body (UNSUPPORTED_VERSION plus only the ApiVersions entry), whatever version
 * was asked. The Java client parses it with {@code ApiVersionsResponse.parse} at the version it
 * sent, falling back to v0, and then retries at the advertised maximum.
 */
class ApiVersionsFallbackOracleTest {

    /** An advertised ApiVersions range, as a broker would list it in the answer. */
    private static final short MIN = 0;
    private static final short MAX = 4;

    /** 0-4: what kafka-clients 2.8-4.3 send; 5 and up: newer clients (4.4 sends 5 first). */
    @ParameterizedTest
    @ValueSource(shorts = {0, 1, 2, 3, 4, 5, 6, 127})
    void unsupportedVersionAnswerParsesWithKafkaClientsAtTheRequestedVersion(short requestedVersion) {
        ApiKey key = ApiKey.API_VERSIONS;
        ApiVersionsResponse answer = new ApiVersionsResponse()
                .errorCode(Errors.UNSUPPORTED_VERSION.code())
                .apiKeys(List.of(new ApiVersionsResponse.ApiVersion().apiKey(key.id())
                        .minVersion(MIN).maxVersion(MAX)));
        short headerVersion = key.responseHeaderVersion(requestedVersion);
        ByteBuffer frame = ByteBuffer.allocate(ResponseHeader.size(headerVersion) + answer.size((short) 0));
        ResponseHeader.write(new ByteBufferWriter(frame), 12345, headerVersion);
        answer.write(new ByteBufferWriter(frame), (short) 0);
        assertThat(frame.hasRemaining()).isFalse();
        frame.flip();

        assertThat(headerVersion).isZero();
        assertThat(ApiKeys.API_VERSIONS.responseHeaderVersion(requestedVersion)).isZero();
        org.apache.kafka.common.requests.ResponseHeader header =
                org.apache.kafka.common.requests.ResponseHeader.parse(frame, headerVersion);
        assertThat(header.correlationId()).isEqualTo(12345);

        org.apache.kafka.common.requests.ApiVersionsResponse parsed =
                org.apache.kafka.common.requests.ApiVersionsResponse.parse(new ByteBufferAccessor(frame), requestedVersion);
        ApiVersionsResponseData data = parsed.data();
        assertThat(data.errorCode()).isEqualTo(org.apache.kafka.common.protocol.Errors.UNSUPPORTED_VERSION.code());
        assertThat(data.apiKeys()).hasSize(1);
        ApiVersionsResponseData.ApiVersion entry = data.apiKeys().find(ApiKeys.API_VERSIONS.id);
        assertThat(entry).isNotNull();
        assertThat(entry.minVersion()).isEqualTo(MIN);
        assertThat(entry.maxVersion()).isEqualTo(MAX);
    }
}
