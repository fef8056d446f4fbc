package io.brook.coordinator.group;

/**
 * One assignment protocol a member offers in JoinGroup: its name (e.g. {@code range}) and the
 * opaque metadata the client attached (for consumers: the ConsumerProtocolSubscription).
 * The metadata array is shared, never copied or mutated.
 */
record Protocol(String name, byte[] metadata) {
}
