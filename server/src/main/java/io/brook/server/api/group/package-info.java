/**
 * The consumer-group APIs and FindCoordinator, one handler each, as thin adapters over the group
 * coordinator (module {@code coordinator}), which owns all group state on its own thread. Handlers
 * hand a request over and return; the coordinator's completion answers it, possibly much later
 * (a JoinGroup waits for the rebalance), without holding a broker thread meanwhile.
 */
package io.brook.server.api.group;
