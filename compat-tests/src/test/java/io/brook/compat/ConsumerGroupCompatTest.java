package io.brook.compat;

import static io.brook.compat.Groups.consumer;
import static io.brook.compat.Groups.consumerProps;
import static io.brook.compat.Groups.pollUntil;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Stock Java consumers in groups (classic protocol) against Brook: load balancing, fan-out,
 * at-least-once after a crash, members coming and going under every assignor, static members.
 * Several consumers are polled in turn from the test thread (each poll is short), which is how a
 * rebalance that needs every member's poll makes progress without extra threads.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsumerGroupCompatTest {

    private static final Duration POLL = Duration.ofMillis(50);
    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass(Groups.BROKER_CONFIGS);

    private static String bootstrap() {
        return cluster.bootstrapServers();
    }

    /** A consumer with what it has read and what its rebalance listener saw. */
    private static final class Member implements ConsumerRebalanceListener {
        final String name;
        final KafkaConsumer<String, String> consumer;
        final List<ConsumerRecord<String, String>> records = new ArrayList<>();
        final List<Set<TopicPartition>> revoked = new CopyOnWriteArrayList<>();
        final List<Set<TopicPartition>> assigned = new CopyOnWriteArrayList<>();
        final List<Set<TopicPartition>> lost = new CopyOnWriteArrayList<>();
        final boolean commitEachPoll;
        boolean closed;

        Member(String name, Properties props, String topic, boolean commitEachPoll) {
            this.name = name;
            this.consumer = consumer(props);
            this.commitEachPoll = commitEachPoll;
            consumer.subscribe(List.of(topic), this);
        }

        void poll() {
            if (closed) {
                return;
            }
            for (ConsumerRecord<String, String> r : consumer.poll(POLL)) {
                records.add(r);
            }
            if (commitEachPoll) {
                consumer.commitSync();
            }
        }

        Set<TopicPartition> assignment() {
            return closed ? Set.of() : consumer.assignment();
        }

        List<String> values() {
            List<String> v = new ArrayList<>();
            for (ConsumerRecord<String, String> r : records) {
                v.add(r.value());
            }
            return v;
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
            assigned.add(Set.copyOf(partitions));
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            lost.add(Set.copyOf(partitions));
        }

        @Override
        public String toString() {
            return name + (closed ? "(closed)" : consumer.assignment().toString());
        }
    }

    private static void pollAll(List<Member> members) {
        for (Member m : members) {
            m.poll();
        }
    }

    /** Polls every member until their assignments are disjoint and together cover all partitions. */
    private static void awaitBalanced(List<Member> members, int partitions) {
        pollUntil(WAIT, () -> "balanced assignment of " + partitions + " partitions over " + members,
                () -> pollAll(members), () -> {
                    Set<TopicPartition> all = new HashSet<>();
                    int total = 0;
                    for (Member m : members) {
                        if (!m.closed && m.assignment().isEmpty()) {
                            return false;
                        }
                        all.addAll(m.assignment());
                        total += m.assignment().size();
                    }
                    return all.size() == partitions && total == partitions;
                });
    }

    private static Set<String> union(List<Member> members) {
        Set<String> all = new HashSet<>();
        for (Member m : members) {
            all.addAll(m.values());
        }
        return all;
    }

    private static int total(List<Member> members) {
        int n = 0;
        for (Member m : members) {
            n += m.records.size();
        }
        return n;
    }

    private static void closeAll(List<Member> members) {
        for (Member m : members) {
            if (!m.closed) {
                m.close();
            }
        }
    }

    @Test
    void shouldSpreadPartitionsOverThreeMembersThatTogetherReadEveryRecordOnce() throws Exception {
        String topic = Groups.unique("lb");
        String group = Groups.unique("lb-group");
        Groups.createTopic(bootstrap(), topic, 6);
        List<Member> members = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                members.add(new Member("c" + i, consumerProps(bootstrap(), group), topic, false));
            }
            awaitBalanced(members, 6);
            // revocations while the group formed (the first member briefly owned everything) are fine
            Map<String, Integer> revokedWhenBalanced = new HashMap<>();
            for (Member m : members) {
                revokedWhenBalanced.put(m.name, m.revoked.size());
            }
            List<String> expected = Groups.produce(bootstrap(), topic, 6, 50);
            pollUntil(WAIT, () -> "all " + expected.size() + " records", () -> pollAll(members),
                    () -> total(members) >= expected.size());
            pollAll(members); // nothing more may arrive

            for (Member m : members) {
                assertThat(m.assignment()).as(m.name).hasSize(2);
                for (ConsumerRecord<String, String> r : m.records) {
                    assertThat(m.assignment()).as(m.name).contains(new TopicPartition(r.topic(), r.partition()));
                }
                assertThat(m.revoked).as("no member lost partitions once balanced: " + m.name)
                        .hasSize(revokedWhenBalanced.get(m.name));
            }
            List<String> read = new ArrayList<>();
            for (Member m : members) {
                read.addAll(m.values());
            }
            assertThat(read).containsExactlyInAnyOrderElementsOf(expected);
        } finally {
            closeAll(members);
        }
    }

    @Test
    void shouldLetASecondGroupReadEverythingWithoutDisturbingTheFirst() throws Exception {
        String topic = Groups.unique("fanout");
        String groupA = Groups.unique("fan-a");
        String groupB = Groups.unique("fan-b");
        Groups.createTopic(bootstrap(), topic, 4);
        List<Member> a = new ArrayList<>();
        List<Member> b = new ArrayList<>();
        try {
            a.add(new Member("a0", consumerProps(bootstrap(), groupA), topic, false));
            a.add(new Member("a1", consumerProps(bootstrap(), groupA), topic, false));
            awaitBalanced(a, 4);
            Map<String, Set<TopicPartition>> before = new HashMap<>();
            for (Member m : a) {
                before.put(m.name, Set.copyOf(m.assignment()));
            }
            int assignedCallbacks = a.get(0).assigned.size() + a.get(1).assigned.size();
            int revokedCallbacks = a.get(0).revoked.size() + a.get(1).revoked.size();
            List<String> expected = Groups.produce(bootstrap(), topic, 4, 40);

            b.add(new Member("b0", consumerProps(bootstrap(), groupB), topic, false));
            List<Member> everyone = new ArrayList<>(a);
            everyone.addAll(b);
            pollUntil(WAIT, () -> "both groups read everything", () -> pollAll(everyone),
                    () -> union(a).size() >= expected.size() && union(b).size() >= expected.size());

            assertThat(b.get(0).values()).containsExactlyInAnyOrderElementsOf(expected);
            List<String> readByA = new ArrayList<>(a.get(0).values());
            readByA.addAll(a.get(1).values());
            assertThat(readByA).containsExactlyInAnyOrderElementsOf(expected);
            for (Member m : a) {
                assertThat(m.assignment()).as(m.name).isEqualTo(before.get(m.name));
            }
            assertThat(a.get(0).revoked.size() + a.get(1).revoked.size()).isEqualTo(revokedCallbacks);
            assertThat(a.get(0).assigned.size() + a.get(1).assigned.size()).isEqualTo(assignedCallbacks);
        } finally {
            closeAll(a);
            closeAll(b);
        }
    }

    @Test
    void shouldReReadExactlyTheUncommittedRecordsOfACrashedMember() throws Exception {
        String topic = Groups.unique("crash");
        String group = Groups.unique("crash-group");
        int partitions = 4;
        int perPartition = 40;
        int committedUpTo = 15;
        Groups.createTopic(bootstrap(), topic, partitions);
        Properties victimProps = consumerProps(bootstrap(), group);
        victimProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // Brook's test config allows short sessions; Kafka's default floor is 6 s
        victimProps.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, cluster.embedded() ? "3000" : "6000");
        Properties survivorProps = consumerProps(bootstrap(), group);
        survivorProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Member victim = new Member("victim", victimProps, topic, false);
        Member survivor = new Member("survivor", survivorProps, topic, true);
        List<Member> both = List.of(victim, survivor);
        try (Admin admin = Groups.admin(bootstrap())) {
            awaitBalanced(both, partitions);
            Set<TopicPartition> victimParts = Set.copyOf(victim.assignment());
            List<String> expected = Groups.produce(bootstrap(), topic, partitions, perPartition);
            pollUntil(WAIT, () -> "everything read once", () -> pollAll(both),
                    () -> total(both) >= expected.size());

            // the victim processed all of its partitions but committed only the first records
            Map<TopicPartition, OffsetAndMetadata> partial = new HashMap<>();
            for (TopicPartition tp : victimParts) {
                partial.put(tp, new OffsetAndMetadata(committedUpTo));
            }
            victim.consumer.commitSync(partial);
            // crash: no commit, no LeaveGroup, no more heartbeats
            victim.closed = true;
            victim.consumer.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                    .withTimeout(Duration.ZERO));
            ConsumerGroupDescription stillTwo = admin.describeConsumerGroups(List.of(group)).all()
                    .get(30, TimeUnit.SECONDS).get(group);
            assertThat(stillTwo.members()).as("the crashed member stays until its session times out").hasSize(2);

            List<String> survivorBefore = survivor.values();
            pollUntil(WAIT, () -> "survivor taking over " + victimParts, survivor::poll,
                    () -> survivor.assignment().size() == partitions
                            && survivor.records.size() >= survivorBefore.size()
                            + victimParts.size() * (perPartition - committedUpTo));
            survivor.poll();

            List<String> reRead = survivor.values().subList(survivorBefore.size(), survivor.records.size());
            List<String> uncommitted = new ArrayList<>();
            for (TopicPartition tp : victimParts) {
                for (int i = committedUpTo; i < perPartition; i++) {
                    uncommitted.add(tp.partition() + "-" + i);
                }
            }
            assertThat(reRead).as("exactly the uncommitted records are read again").containsExactlyInAnyOrderElementsOf(uncommitted);
            List<String> all = new ArrayList<>(victim.values());
            all.addAll(survivor.values());
            assertThat(Set.copyOf(all)).containsExactlyInAnyOrderElementsOf(expected);
        } finally {
            closeAll(both);
        }
    }

    @ParameterizedTest
    @ValueSource(classes = {RangeAssignor.class, RoundRobinAssignor.class, StickyAssignor.class,
            CooperativeStickyAssignor.class})
    void shouldLoseNothingWhileMembersJoinAndLeave(Class<?> assignor) throws Exception {
        boolean cooperative = assignor == CooperativeStickyAssignor.class;
        String topic = Groups.unique("churn");
        String group = Groups.unique("churn-" + assignor.getSimpleName());
        int partitions = 6;
        Groups.createTopic(bootstrap(), topic, partitions);
        Properties props = consumerProps(bootstrap(), group);
        props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor.getName());
        props.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, "100");
        List<Member> members = new ArrayList<>();
        try {
            members.add(new Member("m0", props, topic, false));
            members.add(new Member("m1", props, topic, false));
            awaitBalanced(members, partitions);
            Map<String, Integer> revocationsAtJoin = new HashMap<>();
            for (Member m : members) {
                revocationsAtJoin.put(m.name, m.revoked.size());
            }
            List<String> expected = new ArrayList<>(Groups.produce(bootstrap(), topic, partitions, 0, 20));
            pollAll(members);

            // a third member joins while the first two consume
            Member m2 = new Member("m2", props, topic, false);
            members.add(m2);
            expected.addAll(Groups.produce(bootstrap(), topic, partitions, 20, 20));
            awaitBalanced(members, partitions);

            // the first member leaves; the other two must not give up anything they keep
            Map<String, Integer> revocationsBefore = new ConcurrentHashMap<>();
            for (Member m : members) {
                revocationsBefore.put(m.name, m.revoked.size());
            }
            Set<TopicPartition> m1Before = Set.copyOf(members.get(1).assignment());
            Set<TopicPartition> m2Before = Set.copyOf(m2.assignment());
            members.get(0).close();
            expected.addAll(Groups.produce(bootstrap(), topic, partitions, 40, 20));
            awaitBalanced(members, partitions);
            pollUntil(WAIT, () -> "all " + expected.size() + " records", () -> pollAll(members),
                    () -> union(members).size() >= expected.size());

            assertThat(union(members)).containsExactlyInAnyOrderElementsOf(expected);
            if (cooperative) {
                for (Member m : List.of(members.get(1), m2)) {
                    assertThat(m.revoked.subList(revocationsBefore.get(m.name), m.revoked.size()))
                            .as("%s keeps its partitions while m0 leaves", m.name).isEmpty();
                    assertThat(m.lost).as(m.name).isEmpty();
                }
                assertThat(members.get(1).assignment()).containsAll(m1Before);
                assertThat(m2.assignment()).containsAll(m2Before);
                // and when m2 joined, m0 and m1 only gave up partitions that moved to m2
                for (Member m : List.of(members.get(0), members.get(1))) {
                    for (int i = revocationsAtJoin.get(m.name); i < revocationsBefore.get(m.name); i++) {
                        for (TopicPartition tp : m.revoked.get(i)) {
                            assertThat(m2Before).as("%s revoked %s", m.name, tp).contains(tp);
                        }
                    }
                }
            }
        } finally {
            closeAll(members);
        }
    }

    @Test
    void shouldLetAStaticMemberRestartWithoutRebalancingTheOthers() throws Exception {
        String topic = Groups.unique("static");
        String group = Groups.unique("static-group");
        Groups.createTopic(bootstrap(), topic, 4);
        Properties staticProps = consumerProps(bootstrap(), group);
        staticProps.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-1");
        staticProps.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "30000");
        Member stat = new Member("static", staticProps, topic, false);
        Member other = new Member("other", consumerProps(bootstrap(), group), topic, false);
        List<Member> members = new ArrayList<>(List.of(stat, other));
        Member restarted = null;
        try {
            awaitBalanced(members, 4);
            Set<TopicPartition> staticParts = Set.copyOf(stat.assignment());
            Set<TopicPartition> otherParts = Set.copyOf(other.assignment());
            int generation = other.consumer.groupMetadata().generationId();
            int otherCallbacks = other.assigned.size();
            int otherRevocations = other.revoked.size();

            stat.close(); // a static member sends no LeaveGroup
            restarted = new Member("restarted", staticProps, topic, false);
            Member r = restarted;
            List<String> expected = Groups.produce(bootstrap(), topic, 4, 10);
            pollUntil(WAIT, () -> "restarted static member reading", () -> {
                r.poll();
                other.poll();
            }, () -> union(List.of(r, other)).size() >= expected.size());

            assertThat(restarted.assignment()).isEqualTo(staticParts);
            assertThat(other.assignment()).isEqualTo(otherParts);
            assertThat(other.consumer.groupMetadata().generationId()).isEqualTo(generation);
            assertThat(other.assigned).hasSize(otherCallbacks);
            assertThat(other.revoked).hasSize(otherRevocations);
        } finally {
            closeAll(members);
            if (restarted != null) {
                restarted.close();
            }
        }
    }
}
