package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.brook.testkit.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code producer.id.expiration.ms} with {@code producer.id.expiration.check.interval.ms}: an idle
 * idempotent producer is listed by the admin client's {@code describeProducers} until its state
 * expires, and then no longer, within the check interval of the expiry, as in Kafka.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProducerIdExpirationCompatTest {

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass(Map.of(
            "producer.id.expiration.ms", "1000", "producer.id.expiration.check.interval.ms", "100"));

    @Test
    void anIdleProducerIsForgottenOnceItsStateExpires() throws Exception {
        assumeTrue(cluster.embedded(), "needs the broker settings above: an external cluster keeps its own");
        String topic = Groups.unique("expiring");
        TopicPartition tp = new TopicPartition(topic, 0);
        try (Admin admin = cluster.admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>(topic, 0, "k", "v")).get();
            }
            assertThat(admin.describeProducers(List.of(tp)).partitionResult(tp).get().activeProducers()).hasSize(1);
            Await.until("the idle producer's state expires", Duration.ofSeconds(30), () -> {
                try {
                    return admin.describeProducers(List.of(tp)).partitionResult(tp).get().activeProducers().isEmpty();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
    }
}
