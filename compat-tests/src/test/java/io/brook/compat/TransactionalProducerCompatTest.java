package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Until Brook has a transaction coordinator, a transactional producer must fail at
 * {@code initTransactions()} at once with a message that says why — not retry until
 * {@code max.block.ms} and report a time-out. Brook-specific (a real Kafka has transactions), so
 * it runs only against the embedded Brook.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransactionalProducerCompatTest {

    private static BrookCluster cluster;

    @BeforeAll
    static void start() {
        cluster = new BrookCluster();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void shouldFailInitTransactionsClearlyInsteadOfTimingOut() {
        // checked here rather than in @BeforeAll so that the report lists the test as skipped, with the reason
        assumeTrue(cluster.embedded(), "Brook-specific behaviour (no transaction coordinator yet); "
                + "an external cluster such as Apache Kafka supports transactions");
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, Groups.unique("tx"));
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        // far beyond the test's own time-out: a retrying client would fail the test by timing out
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "300000");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            assertThatThrownBy(producer::initTransactions)
                    .isInstanceOf(KafkaException.class)
                    .isNotInstanceOf(TimeoutException.class)
                    .hasStackTraceContaining("no transaction coordinator");
        }
    }
}
