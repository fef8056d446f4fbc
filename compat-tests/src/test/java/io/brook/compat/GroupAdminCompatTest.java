package io.brook.compat;

import static io.brook.compat.Groups.consumerProps;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The stock Admin client's consumer-group operations against Brook: list, describe, committed
 * offsets (read, alter, delete), lag from committed and end offsets, group deletion.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GroupAdminCompatTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass(Groups.BROKER_CONFIGS);

    private static <T> T get(org.apache.kafka.common.KafkaFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    /**
     * The empty group id is a group for committed offsets, as Kafka keeps it for the clients of
     * before KIP-289 (whose default group id was empty): offsets committed to it are read back,
     * and it is deleted like any other group.
     */
    @Test
    void theEmptyGroupIdHoldsCommittedOffsets() throws Exception {
        String bootstrap = cluster.bootstrapServers();
        String topic = Groups.unique("empty-group");
        Groups.createTopic(bootstrap, topic, 1);
        Groups.produce(bootstrap, topic, 1, 10);
        TopicPartition p0 = new TopicPartition(topic, 0);
        try (Admin admin = Groups.admin(bootstrap)) {
            get(admin.alterConsumerGroupOffsets("", Map.of(p0, new OffsetAndMetadata(7))).all());
            assertThat(get(admin.listConsumerGroupOffsets("").partitionsToOffsetAndMetadata()))
                    .containsEntry(p0, new OffsetAndMetadata(7));
            get(admin.deleteConsumerGroups(List.of("")).all());
            assertThat(get(admin.listConsumerGroupOffsets("").partitionsToOffsetAndMetadata())).isEmpty();
        }
    }

    @Test
    @SuppressWarnings({"deprecation", "removal"}) // listConsumerGroups: still what most tools call
    void shouldListDescribeAlterAndDeleteGroupsAndTheirOffsets() throws Exception {
        String bootstrap = cluster.bootstrapServers();
        String topic = Groups.unique("admin-groups");
        String group = Groups.unique("admin-group");
        Groups.createTopic(bootstrap, topic, 3);
        Groups.produce(bootstrap, topic, 3, 10);
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        TopicPartition p2 = new TopicPartition(topic, 2);

        Properties props = consumerProps(bootstrap, group);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "admin-test-client");
        try (Admin admin = Groups.admin(bootstrap);
                KafkaConsumer<String, String> consumer = Groups.consumer(props)) {
            consumer.subscribe(List.of(topic));
            List<String> read = new ArrayList<>();
            Groups.pollUntil(WAIT, () -> "30 records", () -> consumer.poll(Duration.ofMillis(50))
                    .forEach(r -> read.add(r.value())), () -> read.size() >= 30);
            consumer.commitSync(Map.of(p0, new OffsetAndMetadata(10, "all"), p1, new OffsetAndMetadata(4),
                    p2, new OffsetAndMetadata(7)));

            // list and describe while the member is active
            Set<String> listed = new HashSet<>();
            for (ConsumerGroupListing l : get(admin.listConsumerGroups().all())) {
                listed.add(l.groupId());
                if (l.groupId().equals(group)) {
                    assertThat(l.groupState()).contains(GroupState.STABLE);
                    assertThat(l.isSimpleConsumerGroup()).isFalse();
                }
            }
            assertThat(listed).contains(group);
            ConsumerGroupDescription d = get(admin.describeConsumerGroups(List.of(group)).all()).get(group);
            assertThat(d.groupState()).isEqualTo(GroupState.STABLE);
            assertThat(d.partitionAssignor()).isEqualTo("range");
            assertThat(d.coordinator().id()).isGreaterThanOrEqualTo(0);
            assertThat(d.members()).hasSize(1);
            MemberDescription m = d.members().iterator().next();
            assertThat(m.clientId()).isEqualTo("admin-test-client");
            assertThat(m.host()).startsWith("/");
            assertThat(m.assignment().topicPartitions()).containsExactlyInAnyOrder(p0, p1, p2);

            // committed offsets and lag = end offset - committed offset
            Map<TopicPartition, OffsetAndMetadata> committed = get(
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
            assertThat(committed).containsOnlyKeys(p0, p1, p2);
            assertThat(committed.get(p0).offset()).isEqualTo(10);
            assertThat(committed.get(p0).metadata()).isEqualTo("all");
            assertThat(committed.get(p1).offset()).isEqualTo(4);
            assertThat(committed.get(p2).offset()).isEqualTo(7);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (TopicPartition tp : committed.keySet()) {
                latest.put(tp, OffsetSpec.latest());
            }
            Map<TopicPartition, ListOffsetsResultInfo> ends = get(admin.listOffsets(latest).all());
            Map<TopicPartition, Long> lag = new HashMap<>();
            for (TopicPartition tp : committed.keySet()) {
                lag.put(tp, ends.get(tp).offset() - committed.get(tp).offset());
            }
            assertThat(lag).isEqualTo(Map.of(p0, 0L, p1, 6L, p2, 3L));

            // an active group can neither be deleted nor have its offsets altered
            assertThatThrownBy(() -> get(admin.deleteConsumerGroups(List.of(group)).all()))
                    .hasCauseInstanceOf(GroupNotEmptyException.class);
        } // the consumer leaves the group here

        try (Admin admin = Groups.admin(bootstrap)) {
            Groups.await(WAIT, "the group to be empty", () -> {
                try {
                    return get(admin.describeConsumerGroups(List.of(group)).all()).get(group).groupState()
                            == GroupState.EMPTY;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            get(admin.alterConsumerGroupOffsets(group, Map.of(p1, new OffsetAndMetadata(9), p2, new OffsetAndMetadata(1)))
                    .all());
            Map<TopicPartition, OffsetAndMetadata> altered = get(
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
            assertThat(altered.get(p0).offset()).isEqualTo(10);
            assertThat(altered.get(p1).offset()).isEqualTo(9);
            assertThat(altered.get(p2).offset()).isEqualTo(1);

            get(admin.deleteConsumerGroupOffsets(group, Set.of(p0)).all());
            assertThat(get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()))
                    .containsOnlyKeys(p1, p2);

            get(admin.deleteConsumerGroups(List.of(group)).all());
            Set<String> after = new HashSet<>();
            for (ConsumerGroupListing l : get(admin.listConsumerGroups().all())) {
                after.add(l.groupId());
            }
            assertThat(after).doesNotContain(group);
            assertThat(get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata())).isEmpty();
            assertThatThrownBy(() -> get(admin.deleteConsumerGroups(List.of(group)).all()))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(GroupIdNotFoundException.class);
        }
    }

    @Test
    void shouldKeepConsumerOffsetsOutOfPlainTopicListingsButDescribeItAsInternal() throws Exception {
        String bootstrap = cluster.bootstrapServers();
        String group = Groups.unique("internal");
        String topic = Groups.unique("internal-topic");
        Groups.createTopic(bootstrap, topic, 1);
        try (Admin admin = Groups.admin(bootstrap)) {
            // a commit makes the coordinator write, which creates __consumer_offsets
            get(admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(0)))
                    .all());
            assertThat(get(admin.listTopics().names())).doesNotContain("__consumer_offsets").contains(topic);
            assertThat(get(admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(true))
                    .names())).contains("__consumer_offsets");
            assertThat(get(admin.describeTopics(List.of("__consumer_offsets")).allTopicNames())
                    .get("__consumer_offsets").isInternal()).isTrue();
        }
    }

    /**
     * Brook refuses to delete {@code __consumer_offsets} (it would drop every group's committed
     * offsets). Apache Kafka 4.1 accepts the DeleteTopics and deletes it, so this is a deliberate
     * difference (compat-tests/KAFKA-DIFFERENCES.md) and runs only against the embedded Brook.
     */
    @Test
    void shouldRefuseToDeleteConsumerOffsets() throws Exception {
        assumeTrue(cluster.embedded(), "Brook-only: Apache Kafka 4.1 deletes __consumer_offsets when asked, "
                + "and doing so would wipe the external cluster's committed offsets");
        String bootstrap = cluster.bootstrapServers();
        String group = Groups.unique("internal");
        String topic = Groups.unique("internal-topic");
        Groups.createTopic(bootstrap, topic, 1);
        try (Admin admin = Groups.admin(bootstrap)) {
            // a commit makes the coordinator write, which creates __consumer_offsets
            get(admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(0)))
                    .all());
            assertThatThrownBy(() -> get(admin.deleteTopics(List.of("__consumer_offsets")).all()))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(InvalidTopicException.class);
            assertThat(get(admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(true))
                    .names())).contains("__consumer_offsets");
        }
    }
}
