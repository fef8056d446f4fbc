/**
 * The Kafka protocol's building blocks: API keys with their version ranges, error codes,
 * request/response headers, and the primitive reader and writer that the generated message
 * classes use. Malformed input surfaces only as {@link io.brook.wire.protocol.ProtocolDecodeException}.
 */
package io.brook.wire.protocol;
