package io.brook.junit;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

@Timeout(60)
@ResourceLock(Resources.SYSTEM_PROPERTIES)
@BrookTest(topics = {"orders:3", "audit"}, config = "num.partitions=2",
        bootstrapProperties = {"kafka.bootstrap.servers", "spring.kafka.bootstrap-servers"})
class PerClassBrokerTest {

    @Broker
    static Brook shared;

    @Broker
    String bootstrap;

    @Test
    void injectsTheSameBrokerIntoFieldsAndParameters(@Broker String servers, Brook brook) {
        assertThat(brook).isSameAs(shared);
        assertThat(servers).isEqualTo(bootstrap).isEqualTo(brook.bootstrapServers()).startsWith("127.0.0.1:");
    }

    @Test
    void createsTheDeclaredTopicsAndAppliesTheConfig(Admin admin) throws Exception {
        Map<String, TopicDescription> topics = admin.describeTopics(List.of("orders", "audit")).allTopicNames()
                .get(30, TimeUnit.SECONDS);
        assertThat(topics.get("orders").partitions()).hasSize(3);
        assertThat(topics.get("audit").partitions()).hasSize(1);
        admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic("defaults", java.util.Optional.empty(),
                java.util.Optional.empty()))).all().get(30, TimeUnit.SECONDS);
        assertThat(admin.describeTopics(Set.of("defaults")).allTopicNames().get(30, TimeUnit.SECONDS)
                .get("defaults").partitions()).hasSize(2);
    }

    @Test
    void handsTheBootstrapServersToSystemProperties() throws Exception {
        assertThat(System.getProperty("kafka.bootstrap.servers")).isEqualTo(bootstrap);
        assertThat(System.getProperty("spring.kafka.bootstrap-servers")).isEqualTo(bootstrap);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, System.getProperty("kafka.bootstrap.servers"));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            RecordMetadata md = producer.send(new ProducerRecord<>("audit", "k", "v")).get(30, TimeUnit.SECONDS);
            assertThat(md.offset()).isZero();
        }
    }
}
