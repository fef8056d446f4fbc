package io.brook.wire.protocol;

import java.nio.ByteBuffer;

/**
 * The response header that precedes every response body: v0 = {@code correlation_id int32}; v1 =
 * v0 plus an (always empty, from Brook) tagged-field section. Pick the version with
 * {@link ApiKey#responseHeaderVersion(short)}: ApiVersions always uses v0.
 */
public final class ResponseHeader {

    private final int correlationId;

    private ResponseHeader(int correlationId) {
        this.correlationId = correlationId;
    }

    public int correlationId() {
        return correlationId;
    }

    public static int size(short headerVersion) {
        return headerVersion >= 1 ? 5 : 4;
    }

    public static void write(ProtocolWriter out, int correlationId, short headerVersion) {
        out.writeInt(correlationId);
        if (headerVersion >= 1) {
            out.writeUnsignedVarint(0);
        }
    }

    /** Reads a response header (for tests and tools; the broker only writes them). */
    public static ResponseHeader read(ByteBuffer buf, short headerVersion) {
        ProtocolReader in = new ProtocolReader(buf);
        int correlationId = in.readInt32("ResponseHeader.correlationId");
        if (headerVersion >= 1) {
            in.skipTaggedFields("ResponseHeader._taggedFields");
        }
        return new ResponseHeader(correlationId);
    }

    @Override
    public String toString() {
        return "ResponseHeader(correlationId=" + correlationId + ")";
    }
}
