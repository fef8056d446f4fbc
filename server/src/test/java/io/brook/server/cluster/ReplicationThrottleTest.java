package io.brook.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.config.BrokerConfig;
import io.brook.testkit.MutableClock;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which partitions the replication throttles hold back on a node, and at which rate. */
class ReplicationThrottleTest {

    private final MutableClock clock = new MutableClock(0);
    private final Map<String, Long> rates = new HashMap<>();
    private final Map<String, Map<String, String>> topics = new HashMap<>();
    private final ReplicationThrottle throttle = new ReplicationThrottle(2,
            key -> rates.getOrDefault(key, Long.MAX_VALUE), topics::get, clock);

    @Test
    void aReplicaListNamesPartitionAndBroker() {
        assertThat(ReplicationThrottle.names("0:1,0:2, 3:2", 0, 2)).isTrue();
        assertThat(ReplicationThrottle.names("0:1,0:2, 3:2", 3, 2)).isTrue();
        assertThat(ReplicationThrottle.names("0:1,0:2, 3:2", 1, 2)).isFalse();
        assertThat(ReplicationThrottle.names("0:1", 0, 2)).isFalse();
        assertThat(ReplicationThrottle.names("*", 7, 9)).isTrue();
        assertThat(ReplicationThrottle.names("", 0, 2)).isFalse();
        assertThat(ReplicationThrottle.names(null, 0, 2)).isFalse();
    }

    @Test
    void onlyTheNamedReplicasOfThisNodeAreHeldBackAtTheirSidesRate() {
        rates.put(BrokerConfig.FOLLOWER_REPLICATION_THROTTLED_RATE, 0L);
        rates.put(BrokerConfig.LEADER_REPLICATION_THROTTLED_RATE, 1000L);
        topics.put("t", Map.of("follower.replication.throttled.replicas", "0:2,1:3",
                "leader.replication.throttled.replicas", "*"));
        topics.put("free", Map.of());

        assertThat(throttle.followerDelayMs("t", 0, 10)).isEqualTo(ByteRateLimiter.ZERO_RATE_RECHECK_MS);
        assertThat(throttle.followerDelayMs("t", 1, 10)).isZero(); // 1:3 is another node's replica
        assertThat(throttle.followerDelayMs("free", 0, 10)).isZero();
        assertThat(throttle.followerDelayMs("unknown", 0, 10)).isZero();

        assertThat(throttle.leaderDelayMs("t", 5, 1500)).isZero();
        assertThat(throttle.leaderDelayMs("t", 6, 1)).isEqualTo(500); // one bucket for the leader side

        // the throttle lifted (as kafka-reassign-partitions.sh --verify does): no wait at once
        rates.remove(BrokerConfig.FOLLOWER_REPLICATION_THROTTLED_RATE);
        assertThat(throttle.followerDelayMs("t", 0, 10)).isZero();
    }
}
