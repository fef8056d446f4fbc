package io.brook.wire.message;

import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ByteBufferWriter;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.ResponseHeader;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Builders for ApiVersions answers (protocol.md §3.4).
 *
 * <p>A client that opens with an ApiVersions version the broker does not know (kafka-clients 4.4
 * sends v5 first) must not have its body parsed; it gets response header v0 and a <em>v0</em>
 * body with UNSUPPORTED_VERSION and the single ApiVersions entry, then retries at the advertised
 * maximum. Closing the connection instead makes librdkafka fall back to a pre-0.10 protocol.
 */
public final class ApiVersionsResponses {

    /** The body version of the downgrade answer: v0 has no throttle field and no tagged fields. */
    public static final short UNSUPPORTED_VERSION_BODY_VERSION = 0;

    private ApiVersionsResponses() {
    }

    /** The ApiVersions entry built from {@link ApiKey}'s advertised range. */
    public static ApiVersionsResponse.ApiVersion entry(ApiKey key) {
        return new ApiVersionsResponse.ApiVersion()
                .apiKey(key.id())
                .minVersion(key.advertisedMin())
                .maxVersion(key.advertisedMax());
    }

    /**
     * Body of the answer to an ApiVersions request of an unsupported version: error 35 and
     * {@code api_keys = [ApiVersions entry]}; write it at {@link #UNSUPPORTED_VERSION_BODY_VERSION}.
     */
    public static ApiVersionsResponse unsupportedVersion() {
        List<ApiVersionsResponse.ApiVersion> keys = new ArrayList<>(1);
        keys.add(entry(ApiKey.API_VERSIONS));
        return new ApiVersionsResponse()
                .errorCode(Errors.UNSUPPORTED_VERSION.code())
                .apiKeys(keys);
    }

    /**
     * The whole downgrade answer without the frame's int32 size prefix: response header v0 with
     * {@code correlationId}, then the v0 body of {@link #unsupportedVersion()}.
     */
    public static ByteBuffer unsupportedVersionResponse(int correlationId) {
        ApiVersionsResponse body = unsupportedVersion();
        int size = ResponseHeader.size((short) 0) + body.size(UNSUPPORTED_VERSION_BODY_VERSION);
        ByteBuffer buf = ByteBuffer.allocate(size);
        ByteBufferWriter out = new ByteBufferWriter(buf);
        ResponseHeader.write(out, correlationId, (short) 0);
        body.write(out, UNSUPPORTED_VERSION_BODY_VERSION);
        return buf.flip();
    }

    /**
     * A successful body listing every {@link ApiKey#advertised() advertised} key with its range,
     * in key order. The list is mutable so that a server can drop the keys it has no handler for.
     */
    public static ApiVersionsResponse advertised() {
        List<ApiVersionsResponse.ApiVersion> keys = new ArrayList<>();
        for (ApiKey key : ApiKey.values()) {
            if (key.advertised()) {
                keys.add(entry(key));
            }
        }
        keys.sort((a, b) -> Short.compare(a.apiKey(), b.apiKey()));
        return new ApiVersionsResponse().errorCode(Errors.NONE.code()).apiKeys(keys);
    }
}
