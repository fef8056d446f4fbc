package io.brook.wire.protocol;

/**
 * The one exception for malformed input on the wire: truncated data, impossible lengths or
 * counts, over-long varints, nulls where the schema forbids them, unknown versions. The message
 * names the message and the field, e.g.
 * {@code "ProduceRequest.topicData: array length 2147483647 exceeds remaining 12 bytes"} or
 * {@code "FetchRequest.FetchTopic.partitions: array length 900 of elements of at least 28 bytes exceeds
 * remaining 4096 bytes"}.
 * A server answers it with an error response or by closing the connection.
 */
public class ProtocolDecodeException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ProtocolDecodeException(String message) {
        super(message);
    }
}
