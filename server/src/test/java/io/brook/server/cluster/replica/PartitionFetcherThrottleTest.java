package io.brook.server.cluster.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.cluster.ReplicationThrottle;
import io.brook.server.config.BrokerConfig;
import io.brook.testkit.MutableClock;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A copy's fetcher waits as the follower replication throttle says (docs/cluster.md, section
 * 6a), on virtual time: the bytes it copied are counted before its next fetch, a throttle in
 * debt delays it (at most {@link PartitionFetcher#THROTTLE_RECHECK_MAX_MS} ms before it asks
 * again), a removed throttle frees it, and a drain is never throttled.
 */
class PartitionFetcherThrottleTest {

    private final MutableClock clock = new MutableClock(0);
    private final Map<String, Long> rates = new HashMap<>();
    private final Map<String, Map<String, String>> topics = new HashMap<>();
    private final ReplicationThrottle throttle = new ReplicationThrottle(2,
            key -> rates.getOrDefault(key, Long.MAX_VALUE), topics::get, clock);

    private PartitionFetcher fetcher(boolean drain) {
        return new PartitionFetcher(new FetchTarget("t", 0, 1, 3, drain), 2, null, null, null, null,
                throttle::followerDelayMs);
    }

    @Test
    void aThrottledCopyWaitsOutTheRateOnTheClock() {
        rates.put(BrokerConfig.FOLLOWER_REPLICATION_THROTTLED_RATE, 1000L);
        topics.put("t", Map.of("follower.replication.throttled.replicas", "0:2"));
        PartitionFetcher copy = fetcher(false);

        assertThat(copy.throttleMs(1500)).isZero(); // a second's budget: counted, the bucket 500 bytes in debt
        assertThat(copy.throttleMs(100)).isEqualTo(500);
        assertThat(throttle.waits()).isEqualTo(1);
        clock.advance(499);
        assertThat(copy.throttleMs(100)).isEqualTo(1);
        clock.advance(2);
        assertThat(copy.throttleMs(100)).isZero();

        // a slower rate keeps the debt: the fetcher asks again within a second, so a change applies soon
        rates.put(BrokerConfig.FOLLOWER_REPLICATION_THROTTLED_RATE, 10L);
        assertThat(copy.throttleMs(100)).isEqualTo(PartitionFetcher.THROTTLE_RECHECK_MAX_MS);

        // the throttle removed (kafka-reassign-partitions.sh --verify deletes it): no wait
        rates.remove(BrokerConfig.FOLLOWER_REPLICATION_THROTTLED_RATE);
        assertThat(copy.throttleMs(1 << 20)).isZero();
    }

    @Test
    void onlyTheReplicasNamedOnThisNodeAndNoDrainAreThrottled() {
        rates.put(BrokerConfig.FOLLOWER_REPLICATION_THROTTLED_RATE, 0L);
        topics.put("t", Map.of("follower.replication.throttled.replicas", "*"));

        assertThat(fetcher(false).throttleMs(10)).isEqualTo(PartitionFetcher.THROTTLE_RECHECK_MAX_MS);
        // the new leader draining the former one is in the ISR, which Kafka never throttles
        assertThat(fetcher(true).throttleMs(10)).isZero();

        topics.put("t", Map.of("follower.replication.throttled.replicas", "0:1"));
        assertThat(fetcher(false).throttleMs(10)).isZero();
    }
}
