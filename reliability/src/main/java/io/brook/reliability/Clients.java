package io.brook.reliability;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The settings of the runner's kafka-clients: stock defaults, except that they reconnect and
 * retry within tens of milliseconds (a restarted broker is back within a second or two) and give
 * up on a blocking call after seconds rather than a minute. {@code security} holds a listener's
 * client settings ({@code security.protocol}, {@code sasl.*}; empty for PLAINTEXT).
 */
final class Clients {
    private Clients() {
    }

    private static Properties common(String bootstrap, String clientId, Map<String, String> security) {
        Properties p = new Properties();
        p.putAll(security);
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        p.put(CommonClientConfigs.RECONNECT_BACKOFF_MS_CONFIG, "20");
        p.put(CommonClientConfigs.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        p.put(CommonClientConfigs.RETRY_BACKOFF_MS_CONFIG, "20");
        p.put(CommonClientConfigs.RETRY_BACKOFF_MAX_MS_CONFIG, "200");
        return p;
    }

    /** Idempotent, acks=all: what the scenarios verify against. */
    static KafkaProducer<byte[], byte[]> idempotentProducer(String bootstrap, String clientId) {
        return idempotentProducer(bootstrap, clientId, Map.of());
    }

    static KafkaProducer<byte[], byte[]> idempotentProducer(String bootstrap, String clientId, Map<String, String> security) {
        Properties p = common(bootstrap, clientId, security);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "2");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        return producer(p);
    }

    /**
     * acks=all, not idempotent, each send given up after 10 s: asks whether the brokers serve
     * right now (a record that fails is not retried beyond that).
     */
    static KafkaProducer<byte[], byte[]> probeProducer(String bootstrap, String clientId) {
        Properties p = common(bootstrap, clientId, Map.of());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "10000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
        return producer(p);
    }

    /** acks=1, large batches: fills a data directory fast. */
    static KafkaProducer<byte[], byte[]> bulkProducer(String bootstrap, String clientId) {
        Properties p = common(bootstrap, clientId, Map.of());
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(1 << 20));
        p.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(128L << 20));
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(1 << 20));
        return producer(p);
    }

    private static KafkaProducer<byte[], byte[]> producer(Properties p) {
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** A member of {@code group} that commits by hand. */
    static KafkaConsumer<byte[], byte[]> groupConsumer(String bootstrap, String group, String clientId,
            Map<String, String> security) {
        Properties p = common(bootstrap, clientId, security);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        return consumer(p);
    }

    /**
     * A transactional producer ({@code transactionalId}) whose blocking calls give up within 10 s,
     * so that a loop around it notices a dead broker and starts over.
     */
    static KafkaProducer<byte[], byte[]> transactionalProducer(String bootstrap, String clientId, String transactionalId) {
        Properties p = common(bootstrap, clientId, Map.of());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "20000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "15000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        return producer(p);
    }

    /**
     * A read_committed member of {@code group} that commits nothing by itself, with the static
     * member id {@code instanceId}: a new consumer with the same id takes the old one's place at
     * once, without waiting for its session to expire.
     */
    static KafkaConsumer<byte[], byte[]> readCommittedMember(String bootstrap, String group, String clientId,
            String instanceId) {
        Properties p = common(bootstrap, clientId, Map.of());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "300");
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        return consumer(p);
    }

    /** A consumer without a group, for {@code assign()} and reading a topic back. */
    static KafkaConsumer<byte[], byte[]> reader(String bootstrap, String clientId, Map<String, String> security) {
        Properties p = common(bootstrap, clientId, security);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(64 << 20));
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        return consumer(p);
    }

    private static KafkaConsumer<byte[], byte[]> consumer(Properties p) {
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    static Admin admin(String bootstrap) {
        Properties p = common(bootstrap, "reliability-admin", Map.of());
        p.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        return Admin.create(p);
    }
}
