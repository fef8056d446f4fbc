package io.brook.junit;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A program that produced with acks=1 and then asks for the latest offset, or deletes its records,
 * sees its records, as on Kafka's single node, although the high watermark covers only fsynced
 * records. Each fsync is held for a second after the producer's answer, so without the wait for
 * the fsync under way the latest offset would not count the record yet.
 */
@Timeout(120)
@BrookTest(perMethod = true, topics = "t")
class ReadYourWritesTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);

    @Broker
    Brook brook;

    private KafkaProducer<String, String> acksOne;
    private Admin admin;

    @BeforeEach
    void warmUp() throws Exception {
        acksOne = Clients.producer(brook.bootstrapServers(),
                Map.of(ProducerConfig.ACKS_CONFIG, "1", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false));
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers()));
        acksOne.send(new ProducerRecord<>("t", "warm-up")).get(30, TimeUnit.SECONDS);
        // connections and metadata in place, so that the requests below go straight to the broker
        assertThat(latest()).isEqualTo(1);
        brook.faults().slowFsync(Duration.ofSeconds(1));
    }

    @AfterEach
    void close() {
        brook.faults().slowFsync(Duration.ZERO);
        acksOne.close();
        admin.close();
    }

    @Test
    void theLatestOffsetCountsARecordAcknowledgedWithAcksOne() throws Exception {
        long offset = acksOne.send(new ProducerRecord<>("t", "held")).get(30, TimeUnit.SECONDS).offset();

        assertThat(offset).isEqualTo(1);
        assertThat(latest()).isEqualTo(2);
    }

    @Test
    void deleteRecordsReachesARecordAcknowledgedWithAcksOne() throws Exception {
        acksOne.send(new ProducerRecord<>("t", "held")).get(30, TimeUnit.SECONDS);

        assertThat(deleteBefore(2)).as("an explicit offset at the acknowledged end").isEqualTo(2);
        acksOne.send(new ProducerRecord<>("t", "held too")).get(30, TimeUnit.SECONDS);
        assertThat(deleteBefore(-1)).as("-1, up to the high watermark").isEqualTo(3);
    }

    private long latest() throws Exception {
        return admin.listOffsets(Map.of(TP, OffsetSpec.latest())).partitionResult(TP).get(30, TimeUnit.SECONDS).offset();
    }

    private long deleteBefore(long offset) throws Exception {
        return admin.deleteRecords(Map.of(TP, RecordsToDelete.beforeOffset(offset))).lowWatermarks().get(TP)
                .get(30, TimeUnit.SECONDS).lowWatermark();
    }
}
