package io.brook.wire.protocol;

/**
 * The value of every {@code records} field: a run of record batches, opaque to the message codec.
 * {@link BufferRecords} holds them in memory; storage adds a file-backed implementation that a
 * network {@link ProtocolWriter} can send without copying.
 */
public interface Records {

    /** Number of bytes the field's payload occupies on the wire (without its length prefix). */
    int sizeInBytes();
}
