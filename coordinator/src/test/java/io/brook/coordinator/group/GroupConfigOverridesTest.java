package io.brook.coordinator.group;

import static io.brook.coordinator.group.GroupHarness.done;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.runtime.InMemoryCoordinatorLog;
import io.brook.testkit.MutableClock;
import io.brook.wire.message.ConsumerGroupDescribeRequest;
import io.brook.wire.message.ConsumerGroupDescribeResponse;
import io.brook.wire.message.ConsumerGroupHeartbeatRequest;
import io.brook.wire.message.ConsumerGroupHeartbeatResponse;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A group's own {@code consumer.session.timeout.ms} and {@code consumer.heartbeat.interval.ms}
 * (kafka-configs.sh --entity-type groups) replace the broker's for that group only, from the next
 * heartbeat on; other groups keep the broker's.
 */
class GroupConfigOverridesTest {

    private static final int SESSION_MS = 10_000;
    private static final int HEARTBEAT_MS = 1_000;

    private final Map<String, Map<String, String>> settings = new ConcurrentHashMap<>();
    private FakeConsumerGroupTopics topics;
    private GroupHarness h;

    @BeforeEach
    void setUp() {
        topics = new FakeConsumerGroupTopics();
        topics.create("orders", 2);
        GroupCoordinatorConfig config = GroupHarness.config().withConsumerGroups(
                new ConsumerGroupConfig(SESSION_MS, HEARTBEAT_MS, 100, List.of("uniform")));
        h = new GroupHarness(config, new InMemoryCoordinatorLog(), new MutableClock(1_000_000), topics,
                group -> settings.getOrDefault(group, Map.of()));
    }

    @AfterEach
    void noTaskFailed() {
        assertThat(h.coordinator.taskFailures()).isZero();
    }

    private ConsumerGroupHeartbeatResponse join(String group, String member) {
        return send(new ConsumerGroupHeartbeatRequest().groupId(group).memberId(member).memberEpoch(0)
                .rebalanceTimeoutMs(60_000).subscribedTopicNames(new ArrayList<>(List.of("orders")))
                .topicPartitions(new ArrayList<>()));
    }

    private ConsumerGroupHeartbeatResponse send(ConsumerGroupHeartbeatRequest request) {
        CompletableFuture<ConsumerGroupHeartbeatResponse> f =
                h.coordinator.consumerGroupHeartbeat(request, (short) 1, "client", "/127.0.0.1", null);
        h.run();
        ConsumerGroupHeartbeatResponse r = done(f);
        assertThat(Errors.forCode(r.errorCode())).isEqualTo(Errors.NONE);
        return r;
    }

    private List<String> members(String group) {
        CompletableFuture<ConsumerGroupDescribeResponse> f = h.coordinator.consumerGroupDescribe(
                new ConsumerGroupDescribeRequest().groupIds(new ArrayList<>(List.of(group))), (short) 1);
        h.run();
        return done(f).groups().get(0).members().stream().map(ConsumerGroupDescribeResponse.Member::memberId).toList();
    }

    @Test
    void aGroupsOwnHeartbeatIntervalIsToldToItsMembersFromTheirNextHeartbeat() {
        assertThat(join("tuned", "a").heartbeatIntervalMs()).isEqualTo(HEARTBEAT_MS);
        settings.put("tuned", Map.of(ConsumerGroupConfig.GROUP_HEARTBEAT_INTERVAL_MS, "2500"));
        ConsumerGroupHeartbeatResponse next = send(new ConsumerGroupHeartbeatRequest().groupId("tuned").memberId("a")
                .memberEpoch(1));
        assertThat(next.heartbeatIntervalMs()).isEqualTo(2500);
        assertThat(join("other", "b").heartbeatIntervalMs()).as("another group").isEqualTo(HEARTBEAT_MS);
    }

    @Test
    void aGroupsOwnSessionTimeoutDecidesWhenASilentMemberIsRemoved() {
        settings.put("patient", Map.of(ConsumerGroupConfig.GROUP_SESSION_TIMEOUT_MS, "30000"));
        join("patient", "a");
        join("hasty", "b");
        h.advance(SESSION_MS + 1);
        assertThat(members("hasty")).as("the broker's 10 s").isEmpty();
        assertThat(members("patient")).containsExactly("a");
        h.advance(30_000 - SESSION_MS);
        assertThat(members("patient")).as("its own 30 s").isEmpty();
    }

    @Test
    void aValueThatIsNotAPositiveNumberFallsBackToTheBrokers() {
        settings.put("odd", Map.of(ConsumerGroupConfig.GROUP_HEARTBEAT_INTERVAL_MS, "soon",
                ConsumerGroupConfig.GROUP_SESSION_TIMEOUT_MS, "-5"));
        assertThat(join("odd", "a").heartbeatIntervalMs()).isEqualTo(HEARTBEAT_MS);
        h.advance(SESSION_MS + 1);
        assertThat(members("odd")).isEmpty();
    }
}
