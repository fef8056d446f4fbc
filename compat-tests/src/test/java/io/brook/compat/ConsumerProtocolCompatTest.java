package io.brook.compat;

import static io.brook.compat.Groups.consumer;
import static io.brook.compat.Groups.consumerProps;
import static io.brook.compat.Groups.pollUntil;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stock Java consumers of kafka-clients 4.x with {@code group.protocol=consumer}: the consumer
 * group protocol of KIP-848, where the broker computes the assignment and hands it out through
 * ConsumerGroupHeartbeat. Members joining and leaving hand partitions over without loss or
 * duplicates, the admin client describes and lists the group as a consumer group, offsets are
 * committed with the member epoch, the range assignor can be chosen, and a pattern subscription is
 * resolved by the broker. The broker tells members to heartbeat every 500 ms
 * ({@code group.consumer.heartbeat.interval.ms}; Kafka's default is 5 s), so that each step of a
 * hand-over takes a fraction of a second.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsumerProtocolCompatTest {

    private static final Duration POLL = Duration.ofMillis(50);
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** The group settings of the other group tests, and a short heartbeat interval. */
    static final Map<String, String> BROKER_CONFIGS = Map.of(
            "group.initial.rebalance.delay.ms", "0",
            "group.min.session.timeout.ms", "500",
            "group.consumer.min.heartbeat.interval.ms", "500",
            "group.consumer.heartbeat.interval.ms", "500");

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass(BROKER_CONFIGS);

    private static String bootstrap() {
        return cluster.bootstrapServers();
    }

    static Properties props(String group) {
        return props(bootstrap(), group);
    }

    /** A consumer of the consumer protocol that commits by hand. */
    static Properties props(String bootstrap, String group) {
        Properties p = consumerProps(bootstrap, group);
        p.remove(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG); // the broker decides under this protocol
        p.remove(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return p;
    }

    /** A consumer that commits after every poll and keeps what it read. */
    private static final class Member implements ConsumerRebalanceListener {
        final KafkaConsumer<String, String> consumer;
        final List<String> values = new ArrayList<>();
        final List<Set<TopicPartition>> revoked = new ArrayList<>();
        boolean closed;

        Member(Properties props, String topic) {
            consumer = consumer(props);
            consumer.subscribe(List.of(topic), this);
        }

        void poll() {
            if (closed) {
                return;
            }
            for (ConsumerRecord<String, String> r : consumer.poll(POLL)) {
                values.add(r.value());
            }
            consumer.commitSync();
        }

        Set<TopicPartition> assignment() {
            return closed ? Set.of() : consumer.assignment();
        }

        void close() {
            closed = true;
            consumer.close();
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty()) {
                revoked.add(Set.copyOf(partitions));
            }
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        }
    }

    private static void pollAll(List<Member> members) {
        for (Member m : members) {
            m.poll();
        }
    }

    @Test
    void membersShareTheTopicAndHandPartitionsOverWithoutLossOrDuplicates() throws Exception {
        String topic = Groups.unique("kip848");
        String group = Groups.unique("kip848-group");
        Groups.createTopic(bootstrap(), topic, 6);
        List<String> first = Groups.produce(bootstrap(), topic, 6, 20);

        Member a = new Member(props(group), topic);
        List<Member> members = new ArrayList<>(List.of(a));
        pollUntil(WAIT, () -> "the first member to hold all six partitions, has " + a.assignment(),
                () -> pollAll(members), () -> a.assignment().size() == 6);
        pollUntil(WAIT, () -> "the first member to read the first records", () -> pollAll(members),
                () -> a.values.size() >= first.size());

        Member b = new Member(props(group), topic);
        members.add(b);
        pollUntil(WAIT, () -> "three partitions each, have " + a.assignment() + " and " + b.assignment(),
                () -> pollAll(members), () -> a.assignment().size() == 3 && b.assignment().size() == 3
                        && disjoint(a.assignment(), b.assignment()));
        assertThat(a.revoked).as("the first member gave up exactly what the second got").hasSize(1);
        assertThat(a.revoked.get(0)).isEqualTo(b.assignment());

        List<String> second = Groups.produce(bootstrap(), topic, 6, 20, 20);
        pollUntil(WAIT, () -> "both to read the second records", () -> pollAll(members),
                () -> a.values.size() + b.values.size() >= first.size() + second.size());

        try (Admin admin = cluster.admin()) {
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
                    .get(30, TimeUnit.SECONDS);
            assertThat(d.type()).isEqualTo(GroupType.CONSUMER);
            assertThat(d.groupState()).isEqualTo(GroupState.STABLE);
            assertThat(d.members()).hasSize(2);
            Set<TopicPartition> described = new HashSet<>();
            for (MemberDescription m : d.members()) {
                assertThat(m.assignment().topicPartitions()).hasSize(3);
                described.addAll(m.assignment().topicPartitions());
                assertThat(m.memberEpoch()).isPresent();
            }
            assertThat(described).hasSize(6);
            Collection<GroupListing> listed = admin.listGroups(ListGroupsOptions.forConsumerGroups()).all()
                    .get(30, TimeUnit.SECONDS);
            assertThat(listed).filteredOn(g -> g.groupId().equals(group)).singleElement()
                    .satisfies(g -> assertThat(g.type()).contains(GroupType.CONSUMER));
        }

        b.close();
        members.remove(b);
        List<String> third = Groups.produce(bootstrap(), topic, 6, 40, 10);
        pollUntil(WAIT, () -> "the first member to hold all six again, has " + a.assignment(),
                () -> pollAll(members), () -> a.assignment().size() == 6);
        pollUntil(WAIT, () -> "the third records", () -> pollAll(members),
                () -> a.values.size() + b.values.size() >= first.size() + second.size() + third.size());
        Groups.awaitCommittedAtEnd(bootstrap(), group, topic, 6, "the group");
        a.close();

        List<String> all = new ArrayList<>(a.values);
        all.addAll(b.values);
        List<String> expected = new ArrayList<>(first);
        expected.addAll(second);
        expected.addAll(third);
        assertThat(all).as("every record read exactly once").containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void theRangeAssignorGivesEachMemberAContiguousRange() throws Exception {
        String topic = Groups.unique("kip848-range");
        String group = Groups.unique("kip848-range-group");
        Groups.createTopic(bootstrap(), topic, 4);
        Properties p = props(group);
        p.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, "range");
        Member a = new Member(p, topic);
        Member b = new Member(p, topic);
        List<Member> members = List.of(a, b);
        try {
            pollUntil(WAIT, () -> "two partitions each, have " + a.assignment() + " and " + b.assignment(),
                    () -> pollAll(members), () -> a.assignment().size() == 2 && b.assignment().size() == 2
                            && disjoint(a.assignment(), b.assignment()));
            for (Member m : members) {
                TreeSet<Integer> parts = new TreeSet<>();
                m.assignment().forEach(tp -> parts.add(tp.partition()));
                assertThat(parts.last() - parts.first()).as("a contiguous range: " + parts).isEqualTo(1);
            }
            try (Admin admin = cluster.admin()) {
                ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
                        .get(30, TimeUnit.SECONDS);
                assertThat(d.partitionAssignor()).isEqualTo("range");
            }
        } finally {
            a.close();
            b.close();
        }
    }

    @Test
    void aPatternSubscriptionIsResolvedByTheBroker() throws Exception {
        String prefix = Groups.unique("kip848-pattern");
        Groups.createTopic(bootstrap(), prefix + "-a", 2);
        Groups.createTopic(bootstrap(), prefix + "-b", 1);
        Groups.createTopic(bootstrap(), Groups.unique("kip848-other"), 1);
        List<String> values = new ArrayList<>(Groups.produce(bootstrap(), prefix + "-a", 2, 5));
        values.addAll(Groups.produce(bootstrap(), prefix + "-b", 1, 5));
        try (KafkaConsumer<String, String> c = consumer(props(Groups.unique("kip848-pattern-group")))) {
            c.subscribe(new SubscriptionPattern(prefix + "-.*"));
            List<String> read = new ArrayList<>();
            pollUntil(WAIT, () -> "the matching topics' records, have " + read + " of " + c.assignment(), () -> {
                for (ConsumerRecord<String, String> r : c.poll(POLL)) {
                    read.add(r.value());
                }
            }, () -> read.size() >= values.size());
            assertThat(read).containsExactlyInAnyOrderElementsOf(values);
            assertThat(c.assignment()).extracting(TopicPartition::topic).allMatch(t -> t.startsWith(prefix + "-"));
        }
    }

    /**
     * A rolling switch of an application from the classic protocol to the consumer protocol: the
     * new member comes while a classic member still reads, then the classic member goes. Nothing is
     * lost and neither member fails. (Kafka makes the group a mixed one at once; Brook keeps the
     * new member waiting, its heartbeats answered with a retriable error, until the classic member
     * has left.)
     */
    @Test
    void aRollingSwitchFromTheClassicProtocolLosesNothing() throws Exception {
        String topic = Groups.unique("kip848-switch");
        String group = Groups.unique("kip848-switch-group");
        Groups.createTopic(bootstrap(), topic, 2);
        List<String> expected = new ArrayList<>(Groups.produce(bootstrap(), topic, 2, 10));
        Properties classic = consumerProps(bootstrap(), group);
        classic.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Member old = new Member(classic, topic);
        Member next = new Member(props(group), topic);
        List<Member> members = new ArrayList<>(List.of(old, next));
        pollUntil(WAIT, () -> "the first records", () -> pollAll(members),
                () -> old.values.size() + next.values.size() >= expected.size());
        expected.addAll(Groups.produce(bootstrap(), topic, 2, 10, 10));
        pollUntil(WAIT, () -> "the second records", () -> pollAll(members),
                () -> old.values.size() + next.values.size() >= expected.size());
        old.close();
        members.remove(old);
        expected.addAll(Groups.produce(bootstrap(), topic, 2, 20, 10));
        pollUntil(WAIT, () -> "the new member to hold both partitions, has " + next.assignment(),
                () -> pollAll(members), () -> next.assignment().size() == 2);
        pollUntil(WAIT, () -> "the third records", () -> pollAll(members),
                () -> old.values.size() + next.values.size() >= expected.size());
        Groups.awaitCommittedAtEnd(bootstrap(), group, topic, 2, "the group");
        next.close();
        List<String> all = new ArrayList<>(old.values);
        all.addAll(next.values);
        assertThat(all).as("every record read").containsAll(expected);
    }

    private static boolean disjoint(Set<TopicPartition> a, Set<TopicPartition> b) {
        Set<TopicPartition> both = new HashSet<>(a);
        both.retainAll(b);
        return both.isEmpty();
    }
}
