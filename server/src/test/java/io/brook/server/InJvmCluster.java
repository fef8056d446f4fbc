package io.brook.server;

import io.brook.server.cluster.ControllerNode;
import io.brook.server.node.ClusterView;
import io.brook.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Brooks in one JVM forming one cluster over loopback, every node a broker and a voter, with
 * short heartbeats and session time-outs; for the cluster-mode tests. Closing it closes them all.
 */
final class InJvmCluster implements AutoCloseable {

    static final Duration WAIT = Duration.ofSeconds(30);

    final List<Brook> nodes = new ArrayList<>();
    final List<ControllerNode> controllers = new ArrayList<>();
    private Path dirs;
    private String clusterId;
    private final List<String> voterAddresses = new ArrayList<>();

    private InJvmCluster() {
    }

    static int freePort() {
        return io.brook.testkit.FreePorts.next();
    }

    /** Starts {@code size} nodes (ids 1..size) under {@code dirs}, each with {@code extra} on top of the cluster keys. */
    static InJvmCluster start(Path dirs, String clusterId, int size, Map<String, String> extra) {
        int[] voterPorts = new int[size];
        StringBuilder voters = new StringBuilder();
        for (int i = 0; i < size; i++) {
            voterPorts[i] = freePort();
            voters.append(i == 0 ? "" : ",").append(i + 1).append("@127.0.0.1:").append(voterPorts[i]);
        }
        InJvmCluster cluster = new InJvmCluster();
        cluster.dirs = dirs;
        cluster.clusterId = clusterId;
        for (int port : voterPorts) {
            cluster.voterAddresses.add("127.0.0.1:" + port);
        }
        for (int i = 0; i < size; i++) {
            Map<String, String> c = new HashMap<>();
            c.put("process.roles", "broker,controller");
            c.put("node.id", Integer.toString(i + 1));
            c.put("cluster.id", clusterId);
            c.put("controller.quorum.voters", voters.toString());
            c.put("controller.listener.names", "CONTROLLER");
            c.put("listeners", "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:" + voterPorts[i]);
            c.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            c.put("broker.heartbeat.interval.ms", "200");
            c.put("broker.session.timeout.ms", "1500");
            c.putAll(extra);
            try {
                cluster.nodes.add(Brook.builder().dataDir(dirs.resolve("node" + (i + 1))).config(c).faults(true).start());
            } catch (RuntimeException e) {
                cluster.close();
                throw e;
            }
        }
        cluster.awaitBrokers(size);
        return cluster;
    }

    /**
     * Waits until every running broker knows a controller and {@code count} unfenced brokers:
     * until then a node may be refused what the controller gives registered brokers only (a
     * partition placed on it, a block of producer ids), and new topics are placed on fewer nodes.
     */
    void awaitBrokers(int count) {
        Await.until(count + " registered brokers and a controller, as every node sees them", WAIT,
                () -> nodes.stream().filter(Brook::isRunning).allMatch(b -> {
                    ClusterView view = b.context().cluster();
                    return view.controllerId() > 0 && view.brokers("PLAINTEXT").size() == count;
                }));
    }

    /**
     * Starts {@code size} controller-only nodes (ids 1..size, {@code process.roles=controller}):
     * the voters of the metadata quorum, with no broker; brokers join with {@link #startBrokerOnly}.
     */
    static InJvmCluster startControllers(Path dirs, String clusterId, int size) throws IOException {
        InJvmCluster cluster = new InJvmCluster();
        cluster.dirs = dirs;
        cluster.clusterId = clusterId;
        StringBuilder voters = new StringBuilder();
        for (int i = 0; i < size; i++) {
            cluster.voterAddresses.add("127.0.0.1:" + freePort());
            voters.append(i == 0 ? "" : ",").append(i + 1).append('@').append(cluster.voterAddresses.get(i));
        }
        for (int i = 0; i < size; i++) {
            Map<String, String> c = new HashMap<>();
            c.put("process.roles", "controller");
            c.put("node.id", Integer.toString(i + 1));
            c.put("cluster.id", clusterId);
            c.put("controller.quorum.voters", voters.toString());
            c.put("controller.listener.names", "CONTROLLER");
            c.put("listeners", "CONTROLLER://" + cluster.voterAddresses.get(i));
            c.put("broker.heartbeat.interval.ms", "200");
            c.put("broker.session.timeout.ms", "1500");
            c.put("brook.http.listener", "127.0.0.1:0");
            try {
                cluster.controllers.add(ControllerNode.start(c, dirs.resolve("node" + (i + 1)), null));
            } catch (IOException | RuntimeException e) {
                cluster.close();
                throw e;
            }
        }
        return cluster;
    }

    /**
     * Starts node {@code id} with {@code process.roles=broker} alone, finding the voters through
     * {@code controller.quorum.bootstrap.servers} (KIP-853): it follows the metadata log as a Ratis
     * listener, on a free port, and serves clients.
     */
    Brook startBrokerOnly(int id) {
        Map<String, String> c = new HashMap<>();
        c.put("process.roles", "broker");
        c.put("node.id", Integer.toString(id));
        c.put("cluster.id", clusterId);
        c.put("controller.quorum.bootstrap.servers", String.join(",", voterAddresses));
        c.put("controller.listener.names", "CONTROLLER");
        c.put("listeners", "PLAINTEXT://127.0.0.1:0");
        c.put("broker.heartbeat.interval.ms", "200");
        c.put("broker.session.timeout.ms", "1500");
        Brook b = Brook.builder().dataDir(dirs.resolve("node" + id)).config(c).start();
        nodes.add(b);
        return b;
    }

    /**
     * Client settings for these tests: string keys and values, and metadata refreshed and
     * requests retried quickly, since partitions move between nodes as nodes stop and start.
     */
    static Properties clientProps(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        p.put("metadata.max.age.ms", "500");
        p.put("retry.backoff.ms", "50");
        p.put("request.timeout.ms", "5000");
        return p;
    }

    /** {@link #clientProps} for a producer that waits for every write: acks=all, no linger, 20 s to deliver. */
    static Properties ackedClientProps(String bootstrap) {
        Properties p = clientProps(bootstrap);
        p.put("acks", "all");
        p.put("linger.ms", "0");
        p.put("delivery.timeout.ms", "20000");
        return p;
    }

    /** The bootstrap servers of every running node. */
    String bootstrap() {
        List<String> all = new ArrayList<>();
        for (Brook b : nodes) {
            if (b.isRunning()) {
                all.add(b.bootstrapServers());
            }
        }
        return String.join(",", all);
    }

    @Override
    public void close() {
        for (Brook b : nodes) {
            b.close();
        }
        for (ControllerNode c : controllers) {
            try {
                c.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
