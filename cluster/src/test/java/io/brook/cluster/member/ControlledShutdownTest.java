package io.brook.cluster.member;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cluster.metadata.BrokerInfo;
import java.nio.file.Path;
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

        nodes.stop(stopping);

        // close() waited until the fence was applied, which the leader did before it answered:
        // no session time-out (4 s) went by, the leader's image shows it already
        assertThat(leader.<Boolean>read(image -> {
            BrokerInfo b = image.brokers().get(stopping);
            return b != null && b.fenced();
        })).isTrue();

        ClusterMember back = nodes.start(stopping);
        back.unfenced().get(30, TimeUnit.SECONDS);
        assertThat(leader.<Boolean>read(image -> image.brokers().get(stopping).fenced())).isFalse();
    }
}
