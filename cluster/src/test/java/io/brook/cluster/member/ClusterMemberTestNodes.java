package io.brook.cluster.member;

import io.brook.cluster.metadata.Endpoint;
import io.brook.testkit.FreePorts;
import io.brook.cluster.raft.QuorumConfig;
import io.brook.testkit.Await;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Predicate;

/** Three cluster members in this JVM, on loopback ports, with short heartbeats and session time-outs. */
final class ClusterMemberTestNodes implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(30);
    static final long HEARTBEAT_MS = 250;
    // long enough that a heartbeat starved by a busy machine (several builds on two cores) does not fence
    static final long SESSION_MS = 4000;

    private final Path dir;
    /**
     * This instance's cluster (and so Ratis group) id: each test its own, so that a server some
     * earlier test of this JVM left running can never be taken for a peer of this one's.
     */
    final String cluster = "member-test-" + UUID.randomUUID();
    final Map<Integer, InetSocketAddress> voters = new TreeMap<>();
    final Map<Integer, ClusterMember> members = new TreeMap<>();

    ClusterMemberTestNodes(Path dir) {
        this.dir = dir;
        for (int id = 1; id <= 3; id++) {
            voters.put(id, InetSocketAddress.createUnresolved("127.0.0.1", FreePorts.next()));
        }
    }

    QuorumConfig config(int id, String clusterId, Map<Integer, InetSocketAddress> voterSet) {
        // elections a little slower than Ratis' LAN default: two cores run three servers and the build
        return new QuorumConfig(Set.of("broker", "controller"), id, clusterId, voterSet, dir.resolve("node-" + id),
                Duration.ofMillis(300), Duration.ofMillis(600), 0, Map.of());
    }

    static BrokerRegistration registration(int id) {
        return new BrokerRegistration(java.util.List.of(new Endpoint("PLAINTEXT", "127.0.0.1", 19000 + id)), null,
                HEARTBEAT_MS, SESSION_MS);
    }

    ClusterMember start(int id) throws IOException {
        ClusterMember m = RatisClusterMember.start(config(id, cluster, voters), registration(id), Clock.systemUTC());
        members.put(id, m);
        return m;
    }

    /**
     * Starts node {@code id} with {@code process.roles=broker} alone: not in the voters, it follows
     * the log as a Ratis listener, finding the quorum through {@code controller.quorum.bootstrap.servers}
     * (the voters' addresses) when {@code bootstrap}, else through {@code controller.quorum.voters}.
     */
    ClusterMember startBrokerOnly(int id, boolean bootstrap) throws IOException {
        QuorumConfig c = new QuorumConfig(Set.of("broker"), id, cluster, bootstrap ? Map.of() : voters,
                dir.resolve("node-" + id), Duration.ofMillis(300), Duration.ofMillis(600), 0, Map.of(),
                bootstrap ? java.util.List.copyOf(voters.values()) : java.util.List.of(),
                InetSocketAddress.createUnresolved("127.0.0.1", 0));
        ClusterMember m = RatisClusterMember.start(c, registration(id), Clock.systemUTC());
        members.put(id, m);
        return m;
    }

    void startAll() throws IOException {
        for (int id = 1; id <= 3; id++) {
            start(id);
        }
    }

    void stop(int id) throws IOException {
        members.remove(id).close();
    }

    /** Waits until every running member's image satisfies {@code condition}. */
    void awaitEverywhere(String what, Predicate<io.brook.cluster.metadata.MetadataImage> condition) {
        Await.until(what + " on every node", WAIT,
                () -> members.values().stream().allMatch(m -> m.read(condition::test)));
    }

    /** The member that is the controller, once all running members agree on one. */
    ClusterMember awaitController() {
        Await.until("one controller every node knows", WAIT, () -> {
            long distinct = members.values().stream().mapToInt(ClusterMember::controllerId).distinct().count();
            int c = members.values().iterator().next().controllerId();
            return distinct == 1 && members.containsKey(c);
        });
        return members.get(members.values().iterator().next().controllerId());
    }

    @Override
    public void close() throws IOException {
        // every member, even when one fails to close: a member left running would keep its Ratis
        // server busy with RPCs to stopped peers through the next tests of this JVM
        IOException failed = null;
        for (ClusterMember m : members.values()) {
            try {
                m.close();
            } catch (IOException | RuntimeException e) {
                IOException cause = e instanceof IOException io ? io : new IOException("closing member " + m, e);
                if (failed == null) {
                    failed = cause;
                } else {
                    failed.addSuppressed(cause);
                }
            }
        }
        members.clear();
        if (failed != null) {
            throw failed;
        }
    }
}
