package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * kcat in balanced-consumer mode ({@code -G}): librdkafka's high-level consumer enables itself
 * only when the advertised ranges overlap its feature windows (FindCoordinator 0, OffsetCommit
 * 1–2, OffsetFetch 1, JoinGroup/SyncGroup/Heartbeat/LeaveGroup 0: the floors librdkafka 2.0
 * needs), then uses FindCoordinator, JoinGroup, SyncGroup, Heartbeat, OffsetFetch, OffsetCommit and LeaveGroup.
 * Skipped locally when kcat is missing, failed in CI.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KcatGroupCompatTest {

    private static BrookCluster cluster;

    @BeforeAll
    static void start() {
        Tools.require(Tools.onPath("kcat") != null, "kcat");
        cluster = new BrookCluster(Groups.BROKER_CONFIGS);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void shouldConsumeEveryPartitionInABalancedGroupAndCommit() throws Exception {
        String bootstrap = cluster.bootstrapServers();
        String topic = Groups.unique("kcat-group");
        String group = Groups.unique("kcat-g");
        int partitions = 3;
        Groups.createTopic(bootstrap, topic, partitions);
        List<String> expected = Groups.produce(bootstrap, topic, partitions, 20);

        List<String> cmd = new ArrayList<>(List.of(Tools.onPath("kcat").toString(), "-b", bootstrap,
                "-G", group, "-X", "auto.offset.reset=earliest", "-X", "auto.commit.interval.ms=100",
                "-X", "session.timeout.ms=6000", "-e", "-q", "-f", "%s\\n", topic));
        Tools.Result r = Tools.run(cmd, null, 90);
        assertThat(r.exit()).as("kcat exit; stderr: %s", r.err()).isZero();
        assertThat(r.out().lines().toList()).containsExactlyInAnyOrderElementsOf(expected);

        Groups.awaitCommittedAtEnd(bootstrap, group, topic, partitions, "kcat");

        // a second run of the same group starts from the committed offsets: nothing left to read
        Tools.Result again = Tools.run(cmd, null, 90);
        assertThat(again.exit()).as("kcat exit; stderr: %s", again.err()).isZero();
        assertThat(again.out().lines().toList()).isEmpty();
    }
}
