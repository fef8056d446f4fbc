package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData.Cursor;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData.TopicRequest;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeTopicPartitionsRequest;
import org.apache.kafka.common.requests.DescribeTopicPartitionsResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * DescribeTopicPartitions (key 75), which kafka-clients' admin (3.8 and later) uses to describe
 * topics by name: the admin pages through many partitions with a small page size, and the pages
 * themselves, read by kafka-clients' own request and response classes over a socket — name order,
 * the partition limit, the next cursor at a topic's middle and at its start, a request's cursor,
 * an unknown topic, and the requests Kafka refuses. Runs against any broker.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DescribeTopicPartitionsCompatTest {

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();
    private static Admin admin;
    private static String prefix;
    /** Topics {@code <prefix>-a}, {@code -b}, {@code -c} with 5, 3 and 1 partitions. */
    private static String a;
    private static String b;
    private static String c;
    /** A name after the three that no topic has. */
    private static String missing;

    @BeforeAll
    static void createTopics() throws Exception {
        admin = Groups.admin(cluster.bootstrapServers());
        prefix = Groups.unique("dtp");
        a = prefix + "-a";
        b = prefix + "-b";
        c = prefix + "-c";
        missing = prefix + "-z";
        admin.createTopics(List.of(new NewTopic(a, 5, (short) 1), new NewTopic(b, 3, (short) 1),
                new NewTopic(c, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void closeAdmin() {
        if (admin != null) {
            admin.close();
        }
    }

    private static DescribeTopicPartitionsResponseData page(List<String> topics, int limit, String cursorTopic,
            int cursorPartition) throws Exception {
        DescribeTopicPartitionsRequestData data = new DescribeTopicPartitionsRequestData().setResponsePartitionLimit(limit);
        for (String t : topics) {
            data.topics().add(new TopicRequest().setName(t));
        }
        if (cursorTopic != null) {
            data.setCursor(new Cursor().setTopicName(cursorTopic).setPartitionIndex(cursorPartition));
        }
        try (RawKafkaRequests raw = new RawKafkaRequests(cluster.bootstrapServers())) {
            return ((DescribeTopicPartitionsResponse) raw.call(new DescribeTopicPartitionsRequest.Builder(data)
                    .build((short) 0))).data();
        }
    }

    /** Each answered topic as {@code name:first-last} of its partitions, or {@code name!ERROR}. */
    private static List<String> shape(DescribeTopicPartitionsResponseData d) {
        List<String> out = new ArrayList<>();
        for (DescribeTopicPartitionsResponseTopic t : d.topics()) {
            if (t.errorCode() != Errors.NONE.code()) {
                out.add(t.name() + "!" + Errors.forCode(t.errorCode()).name());
                continue;
            }
            List<DescribeTopicPartitionsResponsePartition> ps = t.partitions();
            out.add(t.name() + ":" + ps.get(0).partitionIndex() + "-" + ps.get(ps.size() - 1).partitionIndex());
        }
        return out;
    }

    private static String cursor(DescribeTopicPartitionsResponseData d) {
        return d.nextCursor() == null ? null : d.nextCursor().topicName() + "@" + d.nextCursor().partitionIndex();
    }

    @Test
    void theAdminPagesThroughTheTopicsWithASmallPageSize() throws Exception {
        Map<String, TopicDescription> described = admin.describeTopics(List.of(c, a, b),
                new DescribeTopicsOptions().partitionSizeLimitPerResponse(2)).allTopicNames().get(30, TimeUnit.SECONDS);
        assertThat(described).containsOnlyKeys(a, b, c);
        assertThat(described.get(a).partitions()).extracting(TopicPartitionInfo::partition).containsExactly(0, 1, 2, 3, 4);
        assertThat(described.get(b).partitions()).extracting(TopicPartitionInfo::partition).containsExactly(0, 1, 2);
        assertThat(described.get(c).partitions()).extracting(TopicPartitionInfo::partition).containsExactly(0);
        for (TopicDescription d : described.values()) {
            assertThat(d.topicId()).isNotEqualTo(Uuid.ZERO_UUID);
            for (TopicPartitionInfo p : d.partitions()) {
                assertThat(p.leader()).as("%s-%d", d.name(), p.partition()).isNotNull();
                assertThat(p.replicas()).containsExactly(p.leader());
                assertThat(p.isr()).containsExactly(p.leader());
            }
        }
        assertThatThrownBy(() -> admin.describeTopics(List.of(a, missing)).allTopicNames().get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(UnknownTopicOrPartitionException.class);
    }

    @Test
    void pagesFollowNameOrderThePartitionLimitAndTheCursor() throws Exception {
        List<String> asked = List.of(missing, c, b, a); // answered in name order
        DescribeTopicPartitionsResponseData first = page(asked, 4, null, 0);
        assertThat(shape(first)).containsExactly(a + ":0-3");
        assertThat(cursor(first)).as("a page that ends inside a topic").isEqualTo(a + "@4");

        DescribeTopicPartitionsResponseData second = page(asked, 4, a, 4);
        assertThat(shape(second)).containsExactly(a + ":4-4", b + ":0-2");
        assertThat(cursor(second)).as("a page that ends at a topic's end").isEqualTo(c + "@0");

        DescribeTopicPartitionsResponseData third = page(asked, 4, c, 0);
        assertThat(shape(third)).containsExactly(c + ":0-0", missing + "!UNKNOWN_TOPIC_OR_PARTITION");
        assertThat(cursor(third)).isNull();

        DescribeTopicPartitionsResponseData all = page(asked, 2000, null, 0);
        assertThat(shape(all)).containsExactly(a + ":0-4", b + ":0-2", c + ":0-0",
                missing + "!UNKNOWN_TOPIC_OR_PARTITION");
        for (DescribeTopicPartitionsResponseTopic t : all.topics()) {
            if (t.errorCode() == Errors.NONE.code()) {
                assertThat(t.topicId()).isNotEqualTo(Uuid.ZERO_UUID);
                assertThat(t.isInternal()).isFalse();
                assertThat(t.topicAuthorizedOperations()).as("authorized operations, always sent")
                        .isNotEqualTo(Integer.MIN_VALUE);
                for (DescribeTopicPartitionsResponsePartition p : t.partitions()) {
                    assertThat(p.errorCode()).isZero();
                    assertThat(p.leaderId()).isNotNegative();
                    assertThat(p.leaderEpoch()).isNotNegative();
                    assertThat(p.replicaNodes()).containsExactly(p.leaderId());
                    assertThat(p.isrNodes()).containsExactly(p.leaderId());
                    assertThat(p.eligibleLeaderReplicas()).isEmpty();
                    assertThat(p.lastKnownElr()).isEmpty();
                    assertThat(p.offlineReplicas()).isEmpty();
                }
            } else {
                assertThat(t.topicId()).isEqualTo(Uuid.ZERO_UUID);
                assertThat(t.partitions()).isEmpty();
            }
        }
        assertThat(shape(page(asked, 0, null, 0))).as("a limit below one is one").containsExactly(a + ":0-0");
    }

    @Test
    void everyTopicIsPagedAndUnknownNamesAreNotInventedThere() throws Exception {
        DescribeTopicPartitionsResponseData fromA = page(List.of(), 6, a, 2);
        assertThat(shape(fromA)).as("all topics, from the cursor on").startsWith(a + ":2-4", b + ":0-2");
        assertThat(cursor(fromA)).isEqualTo(c + "@0");
        DescribeTopicPartitionsResponseData fromC = page(List.of(), 2000, c, 0);
        assertThat(shape(fromC)).startsWith(c + ":0-0").doesNotContain(missing + "!UNKNOWN_TOPIC_OR_PARTITION");
        assertThat(shape(fromC)).allSatisfy(s -> assertThat(s).doesNotContain("!"));
    }

    @Test
    void aCursorOutsideTheNamedTopicsOrANegativeIndexIsRefused() throws Exception {
        assertThat(shape(page(List.of(a, b), 10, c, 0))).containsExactly(a + "!INVALID_REQUEST", b + "!INVALID_REQUEST");
        assertThat(shape(page(List.of(a, b), 10, a, -1))).containsExactly(a + "!INVALID_REQUEST", b + "!INVALID_REQUEST");
    }
}
