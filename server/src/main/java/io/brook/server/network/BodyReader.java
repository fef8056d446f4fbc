package io.brook.server.network;

import io.brook.wire.protocol.ApiRequest;
import java.nio.ByteBuffer;

/** Reads one request body of a given version; throws ProtocolDecodeException on malformed input. */
@FunctionalInterface
public interface BodyReader<Q extends ApiRequest> {
    Q read(ByteBuffer body, short version);
}
