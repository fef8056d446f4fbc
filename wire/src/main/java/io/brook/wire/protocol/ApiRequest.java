package io.brook.wire.protocol;

/**
 * A request body: an {@link ApiMessage} that can also build the response a broker sends when it
 * fails the whole request.
 */
public interface ApiRequest extends ApiMessage {

    /**
     * The response that answers this request with {@code error} at {@code version}: one element
     * for every topic, partition, group or resource the request names, the error's code at every
     * level that has an error code, the values the schema gives for errors (offsets, epochs and
     * watermarks at -1), everything else at its default. A new message on every call. For
     * ApiVersions the caller adds the entries a client needs (KIP-511: its own ApiVersions range
     * with UNSUPPORTED_VERSION), which the codec does not know.
     *
     * @throws IllegalArgumentException when the version is outside the codec's range
     */
    ApiMessage errorResponse(short version, Errors error);
}
