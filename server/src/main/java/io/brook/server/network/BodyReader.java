package io.brook.server.network;

import io.brook.wire.protocol.ApiMessage;
import java.nio.ByteBuffer;

/** Reads one request body of a given version; throws ProtocolDecodeException on malformed input. */
@FunctionalInterface
public interface BodyReader<Q extends ApiMessage> {
    Q read(ByteBuffer body, short version);
}
