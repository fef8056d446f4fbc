package io.brook.wire.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class HeadersTest {

    private static ByteBuffer encode(RequestHeader header, short headerVersion, int trailingBodyByte) {
        ByteBuffer buf = ByteBuffer.allocate(header.size(headerVersion) + 1);
        header.write(new ByteBufferWriter(buf), headerVersion);
        assertThat(buf.position()).isEqualTo(header.size(headerVersion));
        buf.put((byte) trailingBodyByte);
        return buf.flip();
    }

    @Test
    void shouldChooseHeaderVersionsByFlexibility() {
        assertThat(ApiKey.METADATA.requestHeaderVersion((short) 8)).isEqualTo((short) 1);
        assertThat(ApiKey.METADATA.requestHeaderVersion((short) 9)).isEqualTo((short) 2);
        assertThat(ApiKey.METADATA.responseHeaderVersion((short) 8)).isEqualTo((short) 0);
        assertThat(ApiKey.METADATA.responseHeaderVersion((short) 9)).isEqualTo((short) 1);
        assertThat(ApiKey.SASL_HANDSHAKE.requestHeaderVersion((short) 1)).isEqualTo((short) 1);
        assertThat(ApiKey.DESCRIBE_CLUSTER.requestHeaderVersion((short) 0)).isEqualTo((short) 2);
    }

    @Test
    void shouldAlwaysAnswerApiVersionsWithResponseHeaderV0() {
        for (short v = 0; v <= 10; v++) {
            assertThat(ApiKey.API_VERSIONS.responseHeaderVersion(v)).isEqualTo((short) 0);
        }
        assertThat(ApiKey.API_VERSIONS.requestHeaderVersion((short) 3)).isEqualTo((short) 2);
    }

    @Test
    void shouldRoundTripRequestHeaderV1() {
        RequestHeader h = new RequestHeader(ApiKey.PRODUCE, (short) 7, 42, "rdkafka");
        ByteBuffer buf = encode(h, (short) 1, 99);
        RequestHeader read = RequestHeader.read(buf);
        assertThat(read).isEqualTo(h);
        assertThat(read.apiKey()).isEqualTo(ApiKey.PRODUCE);
        assertThat(read.headerVersion()).isEqualTo((short) 1);
        assertThat(buf.get()).isEqualTo((byte) 99);
    }

    @Test
    void shouldRoundTripRequestHeaderV2WithNullClientIdAndSkipTaggedFields() {
        ByteBuffer buf = ByteBuffer.allocate(64);
        ByteBufferWriter out = new ByteBufferWriter(buf);
        out.writeShort((short) 3);
        out.writeShort((short) 12);
        out.writeInt(-5);
        out.writeShort((short) -1);
        out.writeUnsignedVarint(1); // one unknown tagged field
        out.writeUnsignedVarint(7);
        out.writeUnsignedVarint(2);
        out.writeShort((short) 0);
        out.writeByte((byte) 55);
        buf.flip();
        RequestHeader read = RequestHeader.read(buf);
        assertThat(read.apiKey()).isEqualTo(ApiKey.METADATA);
        assertThat(read.apiVersion()).isEqualTo((short) 12);
        assertThat(read.correlationId()).isEqualTo(-5);
        assertThat(read.clientId()).isNull();
        assertThat(buf.get()).isEqualTo((byte) 55);
    }

    @Test
    void shouldReadHeaderOfTooNewApiVersionsRequestAsV2() {
        RequestHeader h = new RequestHeader(ApiKey.API_VERSIONS, (short) 99, 1, "future-client");
        ByteBuffer buf = encode(h, (short) 2, 0x11);
        RequestHeader read = RequestHeader.read(buf);
        assertThat(read.apiVersion()).isEqualTo((short) 99);
        assertThat(read.headerVersion()).isEqualTo((short) 2);
        assertThat(buf.get()).isEqualTo((byte) 0x11);
    }

    @Test
    void shouldKeepRawIdOfUnknownApiKey() {
        RequestHeader h = new RequestHeader((short) 1000, (short) 0, 3, "x");
        RequestHeader read = RequestHeader.read(encode(h, (short) 1, 0));
        assertThat(read.apiKey()).isNull();
        assertThat(read.apiKeyId()).isEqualTo((short) 1000);
    }

    @Test
    void shouldRejectTruncatedRequestHeader() {
        ByteBuffer buf = ByteBuffer.wrap(new byte[] {0, 3, 0, 9, 0, 0, 0, 1, 0, 10, 'a'});
        assertThatThrownBy(() -> RequestHeader.read(buf))
                .isInstanceOf(ProtocolDecodeException.class)
                .hasMessageStartingWith("RequestHeader.clientId:");
    }

    @Test
    void shouldWriteAndReadResponseHeaders() {
        for (short v = 0; v <= 1; v++) {
            ByteBuffer buf = ByteBuffer.allocate(ResponseHeader.size(v));
            ResponseHeader.write(new ByteBufferWriter(buf), 1234, v);
            assertThat(buf.hasRemaining()).isFalse();
            assertThat(ResponseHeader.read(buf.flip(), v).correlationId()).isEqualTo(1234);
        }
    }

    @Test
    void shouldFindKeysById() {
        for (ApiKey key : ApiKey.values()) {
            assertThat(ApiKey.forId(key.id())).isSameAs(key);
        }
        assertThat(ApiKey.forId(-1)).isNull();
        assertThat(ApiKey.forId(4)).isNull();
        assertThat(ApiKey.forId(Short.MAX_VALUE)).isNull();
    }
}
