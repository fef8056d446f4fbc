package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group's offsets through the compaction of {@code __consumer_offsets} and a restart, when a
 * transaction committed an offset and a later transaction of the same producer wrote another one
 * for the same partition and aborted: the aborted record must not count as the newer one, or
 * compaction would drop the committed offset and the group, loaded again from the compacted log,
 * would have none (its consumers starting over by {@code auto.offset.reset}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OffsetsTopicCompactionTest {

    private static final int FILLER_PARTITIONS = 1_000;
    private static final int FILLER_ROUNDS = 40;

    @TempDir
    java.nio.file.Path dir;

    @Test
    void anAbortedTransactionalOffsetCommitDoesNotEraseTheCommittedOneThroughCompaction() throws Exception {
        Map<String, String> configs = Map.of(
                "offsets.topic.num.partitions", "1",
                "offsets.topic.segment.bytes", Integer.toString(1024 * 1024),
                "log.cleaner.backoff.ms", "50",
                "log.cleaner.min.cleanable.ratio", "0.1");
        TopicPartition tp = new TopicPartition("orders", 0);
        try (Brook brook = Brook.builder().port(0).dataDir(dir).config(configs).start()) {
            Properties ap = new Properties();
            ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
            try (Admin admin = Admin.create(ap)) {
                admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1),
                        new NewTopic("filler", FILLER_PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);

                try (KafkaProducer<String, String> producer = transactionalProducer(brook.bootstrapServers())) {
                    producer.initTransactions();
                    producer.beginTransaction();
                    producer.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(5)), new ConsumerGroupMetadata("g"));
                    producer.commitTransaction();
                    producer.beginTransaction();
                    producer.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(9)), new ConsumerGroupMetadata("g"));
                    producer.abortTransaction();
                }
                assertThat(committed(admin, tp)).isEqualTo(5);

                // Another group's commits, the same keys over and over, fill segments behind the
                // transactions' records so that the cleaner takes them, and shrink it once it has.
                for (int round = 0; round < FILLER_ROUNDS; round++) {
                    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                    for (int p = 0; p < FILLER_PARTITIONS; p++) {
                        offsets.put(new TopicPartition("filler", p), new OffsetAndMetadata(round));
                    }
                    admin.alterConsumerGroupOffsets("filler", offsets).all().get(30, TimeUnit.SECONDS);
                }
                long before = offsetsTopicSize(admin);
                Await.until("__consumer_offsets compacted (" + before + " bytes written)", Duration.ofSeconds(60),
                        () -> offsetsTopicSize(admin) < before / 2);
            }
            brook.restart(); // the coordinator loads the groups from the compacted log
            try (Admin admin = Admin.create(ap)) {
                assertThat(committed(admin, tp)).as("g's offset loaded from the compacted log").isEqualTo(5);
            }
        }
    }

    private static KafkaProducer<String, String> transactionalProducer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "offsets-writer");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private static long committed(Admin admin, TopicPartition tp) throws Exception {
        OffsetAndMetadata o = admin.listConsumerGroupOffsets("g").partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS).get(tp);
        return o == null ? -1 : o.offset();
    }

    private static long offsetsTopicSize(Admin admin) {
        try {
            ReplicaInfo info = admin.describeLogDirs(List.of(1)).allDescriptions().get(30, TimeUnit.SECONDS)
                    .get(1).values().iterator().next().replicaInfos().get(new TopicPartition("__consumer_offsets", 0));
            return info.size();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
