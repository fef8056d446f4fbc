/**
 * One handler per Kafka API, and {@link io.brook.server.api.BrokerApis}, the table of what the
 * broker serves with the version range it advertises for each. Handlers get what they need (the
 * {@code BrokerContext}) when they are built and see requests through the network layer's SPI;
 * they never touch Netty. The group APIs are in {@code api.group}, Fetch and its long poll in
 * {@code api.fetch}.
 *
 * <p>Threads: Produce (and Fetch) run on the event loop when they can and must never block there:
 * waiting for durability or data happens through callbacks and the timer. The other handlers run
 * on the I/O pool and may block on the disk (topic creation forces the registry). A handler that
 * throws answers UNKNOWN_SERVER_ERROR for its request only, through its {@code errorResponse}.
 */
package io.brook.server.api;
