package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import io.brook.wire.message.DescribeClusterRequest;
import io.brook.wire.message.DescribeClusterResponse;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Brook#stop()} leaves a cluster with a controlled shutdown (the controller fences the node
 * at once), {@link Brook#crash()} like a killed process: the controller fences it only when its
 * session times out. With a 6 s session and heartbeats every 200 ms, a crashed node stays listed
 * for seconds after {@code crash()} returns, while a node that shut down in a controlled way is
 * fenced by the time its close returns.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterCrashTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final long SESSION_MS = 6_000;
    /** The session less the last heartbeat's age (at most 200 ms) and a generous allowance for a slow machine. */
    private static final long LISTED_AT_LEAST_NANOS = TimeUnit.MILLISECONDS.toNanos(SESSION_MS / 2);

    @TempDir
    Path dir;

    @Test
    void aCrashedNodeIsFencedOnlyWhenItsSessionTimesOut() {
        try (InJvmCluster cluster = InJvmCluster.start(dir, "crash-cluster", 3,
                Map.of("broker.session.timeout.ms", Long.toString(SESSION_MS)))) {
            String one = cluster.nodes.get(0).bootstrapServers();
            Await.until("three brokers listed", WAIT, () -> listed(one) == 3);

            cluster.nodes.get(2).crash();
            long crashed = System.nanoTime();
            Await.until("the crashed node fenced", WAIT, () -> listed(one) == 2);
            assertThat(System.nanoTime() - crashed).isGreaterThanOrEqualTo(LISTED_AT_LEAST_NANOS);

            cluster.nodes.get(2).start();
            Await.until("three brokers listed again", WAIT, () -> listed(one) == 3);
        }
    }

    /** The brokers node 1 lists in DescribeCluster (its unfenced ones), or -1 while it does not answer. */
    private static int listed(String node) {
        try (ProtocolClient c = new ProtocolClient(node)) {
            DescribeClusterResponse r = c.call(new DescribeClusterRequest(), (short) 0);
            return r.brokers().size();
        } catch (IOException e) {
            return -1;
        }
    }
}
