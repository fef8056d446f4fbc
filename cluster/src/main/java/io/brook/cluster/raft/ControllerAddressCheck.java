package io.brook.cluster.raft;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Refuses to start a voter whose controller listener address (its own entry in {@code
 * controller.quorum.voters}) another process already listens on: the usual cause is a second
 * process started with a {@code node.id} that is running already. Without this check Ratis
 * starts the server, fails to bind its gRPC port and exits the JVM with a bind stack trace that
 * says nothing of the node id.
 *
 * <p>The check binds the address and lets it go at once, before the node stamps its metadata
 * directory; a process that takes the port in between is still refused by Ratis' own bind.
 */
final class ControllerAddressCheck {

    private ControllerAddressCheck() {
    }

    /** A port on {@code host} that was free a moment ago (a listener's own Raft port, when none is configured). */
    static int freePort(String host) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(host, 0), 1);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new ClusterMembershipException("cannot find a free port on " + host + " for the metadata log: "
                    + e.getMessage());
        }
    }

    static void requireFree(QuorumConfig config) {
        InetSocketAddress voter = config.address();
        InetSocketAddress address = new InetSocketAddress(voter.getHostString(), voter.getPort());
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(address, 1);
        } catch (BindException e) {
            throw new ClusterMembershipException("node " + config.nodeId() + ": its controller listener "
                    + voter.getHostString() + ":" + voter.getPort() + " (node " + config.nodeId() + " in "
                    + QuorumConfig.CONTROLLER_QUORUM_VOTERS + ") is already in use by another process: is node "
                    + config.nodeId() + " already running? Each node.id runs in one process only");
        } catch (IOException e) {
            throw new ClusterMembershipException("node " + config.nodeId() + ": cannot listen on its controller listener "
                    + voter.getHostString() + ":" + voter.getPort() + ": " + e.getMessage());
        }
    }
}
