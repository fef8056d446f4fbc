package io.brook.server.cluster.interbroker;

import io.brook.wire.protocol.ApiMessage;
import java.nio.ByteBuffer;

/**
 * Reads one response body of a given version: the wire module's generated {@code read} methods
 * ({@code WriteTxnMarkersResponse::read}). Throws the wire module's decode exception on bytes
 * that are not such a body.
 */
@FunctionalInterface
public interface ResponseReader<R extends ApiMessage> {
    R read(ByteBuffer body, short version);
}
