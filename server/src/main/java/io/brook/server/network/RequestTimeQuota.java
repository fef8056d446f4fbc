package io.brook.server.network;

/**
 * Kafka's request_percentage quota as the network layer sees it: told how long each answered
 * request's handler ran on its thread, it says how long the client must stay away (KIP-219: the
 * response carries the time and the connection reads nothing more meanwhile).
 */
@FunctionalInterface
public interface RequestTimeQuota {
    /**
     * Records {@code nanos} of handling time of a request from {@code principal} with
     * {@code clientId}; returns the throttle time in ms (0: within its quota).
     */
    int recorded(String principal, String clientId, long nanos);
}
