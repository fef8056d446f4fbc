package io.brook.server.api.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.config.BrokerConfig;
import io.brook.server.node.LeaderHints.Leader;
import io.brook.server.node.PartitionLeadership;
import io.brook.server.topic.PartitionLogs;
import io.brook.server.topic.TopicConfigResolver;
import io.brook.server.topic.TopicRegistry;
import io.brook.server.topic.Topics;
import io.brook.storage.Log;
import io.brook.wire.message.FetchRequest.FetchPartition;
import io.brook.wire.message.FetchResponse.PartitionData;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader side of Kafka's replication throttle in a fetch pass (docs/cluster.md, section 6a):
 * a follower's partition whose records the leadership holds back is answered without them, error
 * NONE, with its high watermark; a consumer's fetch never asks.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FetchPassThrottleTest {

    @TempDir
    Path dir;

    private PartitionLogs logs;
    private Topics topics;
    private long end;
    private final ThrottlingLeadership leadership = new ThrottlingLeadership();

    @BeforeEach
    void writeSomeRecords() throws Exception {
        BrokerConfig config = BrokerConfig.defaults();
        TopicRegistry registry = TopicRegistry.open(Files.createDirectories(dir.resolve("meta")), UUID::randomUUID);
        TopicConfigResolver resolver = new TopicConfigResolver(config);
        logs = PartitionLogs.open(config, dir.resolve("data"), registry, resolver, tp -> { });
        topics = new Topics(registry, resolver, logs);
        topics.create("t", 1, Map.of());
        Log log = topics.log("t", 0);
        RecordBatchBuilder b = new RecordBatchBuilder(Compression.NONE);
        for (int i = 0; i < 10; i++) {
            b.append(1_700_000_000_000L + i, new byte[] {(byte) i}, new byte[100]);
        }
        assertThat(log.append(b.build(), 0).error()).isEqualTo(Errors.NONE);
        end = log.logEndOffset();
        log.whenDurable(end).get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() throws Exception {
        logs.close();
    }

    private PartitionData fetch(int replicaId) {
        SessionPartition sp = new SessionPartition("t", null, new FetchPartition().partition(0).fetchOffset(0)
                .currentLeaderEpoch(-1).logStartOffset(-1).partitionMaxBytes(1 << 20));
        FetchPass pass = FetchPass.run(topics, leadership, List.of(sp), 1 << 20, false, false, false, replicaId);
        return pass.responses.get(0).partitions().get(0);
    }

    @Test
    void aThrottledPartitionIsAnsweredToItsFollowerWithoutRecords() {
        leadership.holdBack = true;
        PartitionData pd = fetch(2);
        assertThat(pd.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(pd.records().sizeInBytes()).isZero();
        assertThat(pd.highWatermark()).isEqualTo(end);
        assertThat(leadership.asked).singleElement().satisfies(a -> {
            assertThat(a).startsWith("t-0 for 2: ");
            assertThat(Long.parseLong(a.substring("t-0 for 2: ".length()))).isPositive();
        });

        leadership.holdBack = false; // the rate allows it: the records go (and the leadership counted them)
        assertThat(fetch(2).records().sizeInBytes()).isPositive();
    }

    @Test
    void aConsumersFetchIsNeverHeldBack() {
        leadership.holdBack = true;
        assertThat(fetch(-1).records().sizeInBytes()).isPositive();
        assertThat(leadership.asked).isEmpty();
    }

    /** Leads "t" and serves any follower; holds records back while {@link #holdBack}. */
    private static final class ThrottlingLeadership implements PartitionLeadership {
        volatile boolean holdBack;
        final List<String> asked = new ArrayList<>();

        @Override
        public Set<Integer> ledPartitions(String topic) {
            return Set.of(0);
        }

        @Override
        public void onChange(Runnable listener) {
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
        public Errors checkReplica(String topic, int partition, int replicaId, int currentLeaderEpoch) {
            return Errors.NONE;
        }

        @Override
        public boolean throttledToReplica(String topic, int partition, int replicaId, long bytes) {
            asked.add(topic + "-" + partition + " for " + replicaId + ": " + bytes);
            return holdBack;
        }

        @Override
        public int leaderEpoch(String topic, int partition) {
            return 0;
        }
    }
}
