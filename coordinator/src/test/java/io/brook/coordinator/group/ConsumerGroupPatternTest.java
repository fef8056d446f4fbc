package io.brook.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Pattern subscriptions of KIP-848 consumer groups use RE2's syntax, as Kafka's do, and RE2's
 * matching, which takes time linear in the topic name: a pattern that would make a backtracking
 * matcher run for ages (nested repetition against a long name that almost matches) is resolved at
 * once, so a client cannot tie up the coordinator with one.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ConsumerGroupPatternTest {

    private static final String ALMOST = "a".repeat(64) + "-";

    private static ConsumerGroupTopics topics(String... names) {
        return new ConsumerGroupTopics() {
            @Override
            public TopicInfo byName(String name) {
                return List.of(names).contains(name) ? new TopicInfo(UUID.nameUUIDFromBytes(name.getBytes(java.nio.charset.StandardCharsets.UTF_8)), name, 1) : null;
            }

            @Override
            public TopicInfo byId(UUID id) {
                return null;
            }

            @Override
            public Collection<String> names() {
                return List.of(names);
            }
        };
    }

    private static Map<String, ConsumerGroupTopics.TopicInfo> resolve(String regex, ConsumerGroupTopics topics) {
        ConsumerGroupMember m = new ConsumerGroupMember("m");
        m.subscribedTopicRegex = regex;
        return new ConsumerGroup().resolveSubscriptions(topics, m);
    }

    @Test
    void nestedRepetitionAgainstALongNameIsResolvedAtOnce() {
        assertThat(resolve("(a+)+b", topics(ALMOST, "orders"))).isEmpty();
        assertThat(resolve("(a|aa)+-", topics(ALMOST, "orders"))).containsOnlyKeys(ALMOST);
    }

    @Test
    void theWholeNameMustMatchAndRe2SyntaxIsUnderstood() {
        ConsumerGroupTopics t = topics("orders-eu", "orders-us", "my-orders-eu", "payments");
        assertThat(resolve("orders-.*", t)).containsOnlyKeys("orders-eu", "orders-us");
        assertThat(resolve("orders-(?P<region>eu)", t)).containsOnlyKeys("orders-eu");
        assertThat(ConsumerGroup.compile("orders-[")).isNull();
    }

    @Test
    void aPatternCoversOnlyWhatItsMemberMayDescribe() {
        ConsumerGroupMember m = new ConsumerGroupMember("m");
        m.subscribedTopicRegex = "orders-.*";
        m.mayDescribe = name -> !name.equals("orders-secret");
        ConsumerGroupTopics t = topics("orders-eu", "orders-secret");
        Map<String, ConsumerGroupTopics.TopicInfo> resolved = new ConsumerGroup().resolveSubscriptions(t, m);
        assertThat(resolved).containsOnlyKeys("orders-eu");
        assertThat(ConsumerGroup.subscribedIds(m, resolveAll(t))).containsExactly(resolved.get("orders-eu").id());
    }

    private static Map<String, ConsumerGroupTopics.TopicInfo> resolveAll(ConsumerGroupTopics t) {
        return resolve(".*", t);
    }
}
