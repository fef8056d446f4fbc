package io.brook.server.fault;

import io.netty.channel.ChannelHandler;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The broker's connections, paused, resumed and dropped on demand: every connection gets a
 * {@link PausableConnection} first in its pipeline (through the network server's
 * {@code firstHandler} seam) that registers here while it is open.
 *
 * <p>Pause: the broker stops handling what clients send and sends nothing, connections stay open
 * (a hung broker, or a network partition that keeps TCP up); clients' requests time out
 * ({@code request.timeout.ms}) and they reconnect. Connections accepted while paused are paused
 * too. Resume hands on what was held, in order. The pause outlives a restart.
 *
 * <p>Threading: any thread; each connection's state changes on its own event loop.
 */
public final class NetworkFaults {
    private final Set<PausableConnection> open = ConcurrentHashMap.newKeySet();
    private volatile boolean paused;

    /** What the network server puts first in each connection's pipeline. */
    public Supplier<ChannelHandler> handlers() {
        return () -> new PausableConnection(this);
    }

    public void pause() {
        paused = true;
        forEach(PausableConnection::pause);
    }

    public void resume() {
        paused = false;
        forEach(PausableConnection::resume);
    }

    /** Closes every connection now; clients see them drop and reconnect. */
    public void dropConnections() {
        for (PausableConnection c : open) {
            c.drop();
        }
    }

    boolean paused() {
        return paused;
    }

    void register(PausableConnection c) {
        open.add(c);
    }

    void unregister(PausableConnection c) {
        open.remove(c);
    }

    private void forEach(Consumer<PausableConnection> action) {
        for (PausableConnection c : open) {
            try {
                c.onLoop(() -> action.accept(c));
            } catch (RejectedExecutionException e) {
                // its event loop is shut down: the broker stopped, the connection is gone
            }
        }
    }
}
