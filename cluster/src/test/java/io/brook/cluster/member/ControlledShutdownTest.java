package io.brook.cluster.member;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cluster.metadata.BrokerInfo;
import io.brook.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A member that closes cleanly is fenced at once, not one session time-out later, and comes back unfenced. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ControlledShutdownTest {

    @TempDir
    Path dir;

    private ClusterMemberTestNodes nodes;

    @AfterEach
    void tearDown() throws Exception {
        nodes.close();
    }

    @Test
    void aClosedBrokerIsFencedBeforeItsSessionRunsOutAndUnfencedWhenItReturns() throws Exception {
        nodes = new ClusterMemberTestNodes(dir);
        nodes.startAll();
        for (ClusterMember m : nodes.members.values()) {
            m.unfenced().get(30, TimeUnit.SECONDS);
        }
        ClusterMember leader = nodes.awaitController();
        int stopping = nodes.members.keySet().stream().filter(id -> id != leader.nodeId()).findFirst().orElseThrow();

        long closed = System.nanoTime();
        nodes.stop(stopping);
        // the close waited for the fence: it is applied on the leader long before the session (4 s) ends
        Await.until("broker " + stopping + " fenced", Duration.ofMillis(ClusterMemberTestNodes.SESSION_MS / 2),
                () -> leader.<Boolean>read(image -> {
                    BrokerInfo b = image.brokers().get(stopping);
                    return b != null && b.fenced();
                }));
        assertThat(Duration.ofNanos(System.nanoTime() - closed)).isLessThan(Duration.ofMillis(ClusterMemberTestNodes.SESSION_MS));

        ClusterMember back = nodes.start(stopping);
        back.unfenced().get(30, TimeUnit.SECONDS);
        assertThat(leader.<Boolean>read(image -> image.brokers().get(stopping).fenced())).isFalse();
    }
}
