package io.brook.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.runtime.CoordinatorLog;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.ReplayChunk;
import io.brook.server.config.BrokerConfig;
import io.brook.server.node.LeaderHints.Leader;
import io.brook.server.topic.TopicNames;
import io.brook.testkit.Await;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.protocol.Errors;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * In cluster mode the group coordinator serves the groups of the {@code __consumer_offsets}
 * partitions this node leads, and follows each change of leadership.
 */
@Timeout(30)
class GroupCoordinatorFollowTest {

    /** Leadership the test moves; listeners run when it says so. */
    private static final class MovingLeadership implements PartitionLeadership {
        volatile Set<Integer> led = Set.of();
        final List<Runnable> listeners = new ArrayList<>();

        void lead(Set<Integer> partitions) {
            led = partitions;
            listeners.forEach(Runnable::run);
        }

        @Override
        public Set<Integer> ledPartitions(String topic) {
            return TopicNames.CONSUMER_OFFSETS.equals(topic) ? led : Set.of();
        }

        @Override
        public void onChange(Runnable listener) {
            listeners.add(listener);
        }

        @Override
        public Leader leaderOf(String topic, int partition, String listenerName) {
            return Leader.UNKNOWN;
        }

        @Override
        public Errors check(String topic, int partition, int currentLeaderEpoch) {
            return Errors.NONE;
        }

        @Override
        public int leaderEpoch(String topic, int partition) {
            return 0;
        }
    }

    /** An empty {@code __consumer_offsets}. */
    private static final CoordinatorLog EMPTY = new CoordinatorLog() {
        @Override
        public CompletableFuture<Long> append(int partition, List<CoordinatorRecord> records) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException());
        }

        @Override
        public ReplayChunk read(int partition, long fromOffset, int maxBytes) {
            return ReplayChunk.end(fromOffset);
        }
    };

    private static short fetchError(GroupCoordinator c, String group) {
        return c.fetchOffsets(new OffsetFetchRequest().groups(new ArrayList<>(List.of(
                new OffsetFetchRequest.OffsetFetchRequestGroup().groupId(group).topics(null)))), (short) 8)
                .join().groups().get(0).errorCode();
    }

    @Test
    void shouldServeTheGroupsOfThePartitionsThisNodeLeadsAsLeadershipMoves() {
        GroupCoordinator c = new GroupCoordinator(
                BrokerConfig.parse(Map.of("offsets.topic.num.partitions", "4")).groupCoordinator(), EMPTY,
                Clock.systemUTC(), null);
        c.own(Set.of());
        c.start();
        try {
            String group = "g";
            int partition = c.partitionFor(group);
            assertThat(fetchError(c, group)).isEqualTo(Errors.NOT_COORDINATOR.code());
            MovingLeadership leadership = new MovingLeadership();
            leadership.led = Set.of(partition);
            GroupCoordinatorSetup.follow(c, leadership);
            Await.until("group served", () -> fetchError(c, group) == Errors.NONE.code());
            leadership.lead(Set.of((partition + 1) % 4));
            Await.until("group given up", () -> fetchError(c, group) == Errors.NOT_COORDINATOR.code());
        } finally {
            c.close();
        }
    }
}
