package io.brook.server.cluster;

import io.brook.cluster.member.ClusterMember;
import io.brook.server.config.Listener;
import io.brook.server.http.AdminHttpServer;
import io.brook.server.metrics.BrokerMetrics;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * What a dedicated controller ({@link ControllerNode}) shows of itself: Kafka's
 * {@code kafka.controller:type=KafkaController} gauges (ActiveControllerCount, ActiveBrokerCount,
 * FencedBrokerCount, GlobalTopicCount, GlobalPartitionCount, OfflinePartitionsCount), read from
 * the node's metadata image when asked, as MBeans and, on the HTTP admin listener
 * ({@code brook.http.listener}, the broker's setting and default), as Prometheus text on
 * {@code /metrics} with the JVM's metrics, beside {@code /health} and {@code /ready} (200 once
 * the node knows the quorum's leader). Kafka's alert that the cluster has exactly one active
 * controller sums ActiveControllerCount over the controllers, so they must be scraped too.
 *
 * <p>The listener has one event loop and one thread for scrapes of its own, since the node has no
 * broker's. As on a broker, a default address that is taken (a broker or another controller on
 * the same machine) is logged and the node runs without the listener; an address set explicitly
 * that is taken fails the start.
 */
final class ControllerNodeMetrics implements AutoCloseable {

    private final BrokerMetrics metrics;
    private final EventLoopGroup loop;
    private final ExecutorService scrapes;
    private final AdminHttpServer http;

    private ControllerNodeMetrics(BrokerMetrics metrics, EventLoopGroup loop, ExecutorService scrapes,
            AdminHttpServer http) {
        this.metrics = metrics;
        this.loop = loop;
        this.scrapes = scrapes;
        this.http = http;
    }

    /**
     * Registers the gauges of {@code member}'s node, publishes them as MBeans and binds
     * {@code listener} (null: none).
     *
     * @param explicit whether the listener's address was set, rather than the default
     * @throws IllegalStateException when an explicit address cannot be bound
     */
    static ControllerNodeMetrics start(Listener listener, boolean explicit, ClusterMember member) {
        BrokerMetrics metrics = BrokerMetrics.controllerNode(true);
        // counted as a broker counts them, on a copy of the image per gauge read (scrapes are seconds apart)
        metrics.controller(() -> member.read(image -> ImageView.of(image, -1, member.nodeId()))
                .controllerCounts(member.controllerId() == member.nodeId()));
        metrics.publishJmx();
        if (listener == null) {
            return new ControllerNodeMetrics(metrics, null, null, null);
        }
        EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1,
                new DefaultThreadFactory("brook-controller-http", true), NioIoHandler.newFactory());
        ExecutorService scrapes = Executors.newSingleThreadExecutor(
                new DefaultThreadFactory("brook-controller-scrape", true));
        try {
            AdminHttpServer http = AdminHttpServer.startUnlessTaken(listener, explicit, loop,
                    NioServerSocketChannel.class, metrics, null, scrapes, () -> member.controllerId() >= 0);
            if (http == null) {
                stop(loop, scrapes);
                return new ControllerNodeMetrics(metrics, null, null, null);
            }
            return new ControllerNodeMetrics(metrics, loop, scrapes, http);
        } catch (RuntimeException e) {
            stop(loop, scrapes);
            metrics.close();
            throw e;
        }
    }

    /** The bound port of the HTTP admin listener, or -1 when there is none. */
    int httpPort() {
        return http == null ? -1 : http.port();
    }

    /** Closes the listener and unregisters the MBeans. */
    @Override
    public void close() {
        try {
            if (http != null) {
                http.close();
            }
            if (loop != null) {
                stop(loop, scrapes);
            }
        } finally {
            metrics.close();
        }
    }

    private static void stop(EventLoopGroup loop, ExecutorService scrapes) {
        scrapes.shutdownNow();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
