package io.brook.server.network;

import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.ApiRequest;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.ProtocolDecodeException;
import io.brook.wire.protocol.ProtocolWriter;
import io.brook.wire.protocol.RequestHeader;
import java.nio.ByteBuffer;

/** A minimal request/response pair for exercising the network layer without real APIs. */
final class TestMessages {

    private TestMessages() {
    }

    /** Body: int32 id, int32 padding length, padding bytes. */
    record Ping(ApiKey apiKey, int id, int padding) implements ApiRequest {
        static Ping read(ApiKey key, ByteBuffer buf) {
            if (buf.remaining() < 8) {
                throw new ProtocolDecodeException("Ping.id: need 8 bytes, " + buf.remaining() + " remain");
            }
            int id = buf.getInt();
            int padding = buf.getInt();
            if (padding < 0 || padding > buf.remaining()) {
                throw new ProtocolDecodeException("Ping.padding: length " + padding + " exceeds remaining "
                        + buf.remaining() + " bytes");
            }
            buf.position(buf.position() + padding);
            return new Ping(key, id, padding);
        }

        @Override
        public int size(short version) {
            return 8 + padding;
        }

        /** A failed Ping is answered with a Pong of the same id that carries the error. */
        @Override
        public ApiMessage errorResponse(short version, Errors error) {
            return new Pong(apiKey, id, error.code());
        }

        @Override
        public void write(ProtocolWriter out, short version) {
            out.writeInt(id);
            out.writeInt(padding);
            out.writeByteArray(new byte[padding]);
        }
    }

    /** Body: int32 id, int16 error code, then {@code padding} zero bytes. */
    record Pong(ApiKey apiKey, int id, short errorCode, int padding) implements ApiMessage {
        Pong(ApiKey apiKey, int id, short errorCode) {
            this(apiKey, id, errorCode, 0);
        }

        @Override
        public int size(short version) {
            return 6 + padding;
        }

        @Override
        public void write(ProtocolWriter out, short version) {
            out.writeInt(id);
            out.writeShort(errorCode);
            out.writeByteArray(new byte[padding]);
        }
    }

    /** A request frame (header v1 + Ping body) ready for {@link RawClient#sendFrame}. */
    static ByteBuffer pingFrame(ApiKey key, short version, int correlationId, int id, int padding) {
        RequestHeader h = new RequestHeader(key, version, correlationId, "test");
        short hv = key.requestHeaderVersion(version);
        Ping p = new Ping(key, id, padding);
        ByteBuffer b = ByteBuffer.allocate(h.size(hv) + p.size(version));
        io.brook.wire.protocol.ByteBufferWriter w = new io.brook.wire.protocol.ByteBufferWriter(b);
        h.write(w, hv);
        p.write(w, version);
        return b.flip();
    }
}
