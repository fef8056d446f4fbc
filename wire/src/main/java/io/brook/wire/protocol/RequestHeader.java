package io.brook.wire.protocol;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The request header that precedes every request body.
 *
 * <pre>
 * v1: api_key int16 | api_version int16 | correlation_id int32 | client_id nullable string (int16 length)
 * v2: v1 | tagged-field section
 * </pre>
 *
 * {@code client_id} keeps its classic int16 length even in v2, so a broker can always read the
 * header of a request whose version it does not know. v2 is used iff the API version is flexible;
 * an unknown API key is read as v1 (the server closes such connections anyway), and an
 * ApiVersions request newer than the codec knows is read as v2.
 */
public final class RequestHeader {

    private static final String FIELD_API_KEY = "RequestHeader.apiKey";
    private static final String FIELD_API_VERSION = "RequestHeader.apiVersion";
    private static final String FIELD_CORRELATION_ID = "RequestHeader.correlationId";
    private static final String FIELD_CLIENT_ID = "RequestHeader.clientId";
    private static final String FIELD_TAGGED = "RequestHeader._taggedFields";

    private final short apiKeyId;
    private final short apiVersion;
    private final int correlationId;
    private final String clientId;

    public RequestHeader(short apiKeyId, short apiVersion, int correlationId, String clientId) {
        this.apiKeyId = apiKeyId;
        this.apiVersion = apiVersion;
        this.correlationId = correlationId;
        this.clientId = clientId;
    }

    public RequestHeader(ApiKey apiKey, short apiVersion, int correlationId, String clientId) {
        this(apiKey.id(), apiVersion, correlationId, clientId);
    }

    /** Reads a header from the buffer's position and leaves the position at the body. */
    public static RequestHeader read(ByteBuffer buf) {
        ProtocolReader in = new ProtocolReader(buf);
        short key = in.readInt16(FIELD_API_KEY);
        short version = in.readInt16(FIELD_API_VERSION);
        int correlationId = in.readInt32(FIELD_CORRELATION_ID);
        String clientId = in.readString(FIELD_CLIENT_ID, false, true);
        ApiKey apiKey = ApiKey.forId(key);
        if (apiKey != null && apiKey.isFlexible(version)) {
            in.skipTaggedFields(FIELD_TAGGED);
        }
        return new RequestHeader(key, version, correlationId, clientId);
    }

    /** The known API key, or null when {@link #apiKeyId()} is not one Brook knows. */
    public ApiKey apiKey() {
        return ApiKey.forId(apiKeyId);
    }

    public short apiKeyId() {
        return apiKeyId;
    }

    public short apiVersion() {
        return apiVersion;
    }

    public int correlationId() {
        return correlationId;
    }

    /** May be null. */
    public String clientId() {
        return clientId;
    }

    /** 1 or 2, by the rule above. */
    public short headerVersion() {
        ApiKey key = apiKey();
        return key != null ? key.requestHeaderVersion(apiVersion) : 1;
    }

    public int size(short headerVersion) {
        int size = 2 + 2 + 4 + 2 + (clientId == null ? 0 : Utf8.encodedLength(clientId));
        return headerVersion >= 2 ? size + 1 : size;
    }

    public void write(ProtocolWriter out, short headerVersion) {
        out.writeShort(apiKeyId);
        out.writeShort(apiVersion);
        out.writeInt(correlationId);
        if (clientId == null) {
            out.writeShort((short) -1);
        } else {
            int length = Utf8.encodedLength(clientId);
            if (length > Short.MAX_VALUE) {
                throw new IllegalArgumentException("RequestHeader.clientId: " + length + " bytes is too long");
            }
            out.writeShort((short) length);
            out.writeUtf8(clientId, length);
        }
        if (headerVersion >= 2) {
            out.writeUnsignedVarint(0);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RequestHeader h && h.apiKeyId == apiKeyId && h.apiVersion == apiVersion
                && h.correlationId == correlationId && Objects.equals(h.clientId, clientId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(apiKeyId, apiVersion, correlationId, clientId);
    }

    @Override
    public String toString() {
        return "RequestHeader(apiKey=" + apiKeyId + ", apiVersion=" + apiVersion + ", correlationId="
                + correlationId + ", clientId=" + clientId + ")";
    }
}
