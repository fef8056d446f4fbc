package io.brook.server;

/**
 * A request as {@link Faults#recordRequests()} logs it: Kafka's API key and version (the numbers of
 * kafka-clients' {@code ApiKeys}), the client's correlation id and client id.
 */
public record RecordedRequest(short apiKey, short apiVersion, int correlationId, String clientId) {
}
