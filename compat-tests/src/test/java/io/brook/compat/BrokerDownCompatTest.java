package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.brook.server.Brook;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A producer that knows a topic keeps that knowledge across the broker's shutdown: nothing the
 * broker answers while it stops may report the topic missing, or send() would block on metadata.
 *
 * <p>The producer sets {@code metadata.recovery.strategy=none}. With the 4.x default
 * ({@code rebootstrap}) the client itself replaces its cached metadata with the bootstrap address
 * as soon as its only known broker is unreachable, and send() then blocks for max.block.ms —
 * against Apache Kafka just the same — so the default would test the client, not the broker.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BrokerDownCompatTest {

    @TempDir
    Path dir;

    @Test
    void producerQueuesRecordsForAKnownTopicWhileTheBrokerIsDown() throws Exception {
        assumeTrue(System.getProperty("bootstrap.servers") == null, "needs an embedded broker to stop");
        Brook first = Brook.builder().port(0).dataDir(dir).start();
        int port = first.port();
        String topic = "broker-down";
        int n = 3_000;
        Properties p = Groups.pipelinedIdempotentProducerProps(first.bootstrapServers());
        // a send() that waits for metadata fails its future after this long instead of blocking
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
        p.put(CommonClientConfigs.METADATA_RECOVERY_STRATEGY_CONFIG, "none");
        Brook second = null;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.send(new ProducerRecord<>(topic, 0, null, "v-0")).get(30, TimeUnit.SECONDS);
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 1; i < n / 2; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, 0, null, "v-" + i)));
            }
            // stop with requests in flight: the client refreshes metadata while the broker drains
            first.close();
            for (int i = n / 2; i < n; i++) {
                Future<RecordMetadata> f = producer.send(new ProducerRecord<>(topic, 0, null, "v-" + i));
                // nothing can be acknowledged while the broker is down: a finished future is one
                // that failed in send(), waiting for metadata of a topic the client had forgotten
                assertThat(f.isDone()).as("send() of record %d while the broker is down finished", i).isFalse();
                sent.add(f);
            }
            second = Brook.builder().port(port).dataDir(dir).start();
            producer.flush();
            for (int i = 0; i < sent.size(); i++) {
                assertThat(sent.get(i).get(30, TimeUnit.SECONDS).offset()).isEqualTo(i + 1L);
            }
        } finally {
            first.close();
            if (second != null) {
                second.close();
            }
        }
    }
}
