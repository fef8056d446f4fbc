package io.brook.cluster.member;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** DescribeQuorum's leader view, asked from a follower through the controller channel. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeaderQuorumStatusTest {

    @TempDir
    Path dir;

    private ClusterMemberTestNodes nodes;

    @AfterEach
    void tearDown() throws Exception {
        nodes.close();
    }

    @Test
    void aFollowerAnswersWithTheLeadersViewOfEveryVoter() throws Exception {
        nodes = new ClusterMemberTestNodes(dir);
        nodes.startAll();
        ClusterMember leader = nodes.awaitController();
        ClusterMember follower = nodes.members.values().stream().filter(m -> m != leader).findFirst().orElseThrow();
        follower.unfenced().get(30, TimeUnit.SECONDS);

        // on its own a follower knows only its own log end
        assertThat(follower.quorumStatus().voters()).anyMatch(r -> r.logEndOffset() == -1);

        QuorumStatus fromLeader = follower.leaderQuorumStatus().get(30, TimeUnit.SECONDS);

        assertThat(fromLeader.leaderId()).isEqualTo(leader.nodeId());
        assertThat(fromLeader.voters()).hasSize(3).allMatch(r -> r.logEndOffset() >= 0 && r.lastFetchTimestamp() > 0);
    }
}
