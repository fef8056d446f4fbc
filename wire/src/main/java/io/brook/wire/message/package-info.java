/**
 * Typed Kafka request and response bodies, one class per API and direction
 * ({@code ProduceRequest}, {@code FetchResponse}, ...), generated at build time from the schema
 * files in {@code wire/src/main/schema} by the generator in {@code wire/src/generator}.
 *
 * <p>Each class reads and writes every version of its API in the codec's range: classic
 * encodings, compact (flexible) encodings with tagged fields, version-dependent fields and
 * nullability. Decoded {@code records} fields are zero-copy slices of the request buffer.
 * {@link io.brook.wire.message.ApiMessages} dispatches by API key.
 */
package io.brook.wire.message;
