package io.brook.server.api.group;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.topic.Topic;
import io.brook.server.topic.Topics;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * What the group API handlers share. Each of them (JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
 * OffsetCommit, OffsetFetch, DescribeGroups, ListGroups, DeleteGroups, OffsetDelete) is a thin
 * adapter over the {@link GroupCoordinator}, which owns all group state on its own thread.
 *
 * <p>Threading: a handler hands the request to the coordinator and returns; the coordinator
 * completes the future on its own thread — possibly much later (a JoinGroup waits for the
 * rebalance) — and the completion only calls {@link RequestContext#respond}, which never blocks.
 * The connection keeps responses in request order, so a parked JoinGroup holds back the answers
 * to later requests of the same connection, exactly as Kafka does (clients send their heartbeats
 * on a separate coordinator connection). A JoinGroup parked for a rebalance holds no I/O thread.
 *
 * <p>What the broker adds to the coordinator: the client's address for DescribeGroups (Kafka's
 * {@code /ip} form), and the topic check of OffsetCommit and OffsetDelete — partitions of topics
 * this broker does not host are answered UNKNOWN_TOPIC_OR_PARTITION without reaching the
 * coordinator, as Kafka does.
 */
final class GroupRequests {

    private GroupRequests() {
    }

    static GroupCoordinator coordinator(BrokerContext broker) {
        GroupCoordinator c = broker.groups();
        if (c == null) {
            throw new IllegalStateException("the group coordinator is not running");
        }
        return c;
    }

    /** Kafka reports a member's host as {@code InetAddress.toString()}: {@code "/127.0.0.1"}. */
    static String clientHost(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return "/" + inet.getAddress().getHostAddress();
        }
        return address == null ? "" : address.toString();
    }

    static boolean hosts(Topics topics, String topic, int partition) {
        Topic t = topic == null ? null : topics.get(topic);
        return t != null && partition >= 0 && partition < t.partitions();
    }
}
