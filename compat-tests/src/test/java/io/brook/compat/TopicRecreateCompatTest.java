package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A topic deleted and created again under the same name, under a running Java producer and
 * consumer of kafka-clients 4.4 (Produce v13 and Fetch v13+ name topics by id, KIP-516). The new
 * topic has a new id; requests still naming the old one are answered UNKNOWN_TOPIC_ID (or
 * INCONSISTENT_TOPIC_ID), which the clients treat as retriable: they refresh their metadata, learn
 * the new id and carry on. The producer's records reach the new topic and the consumer reads
 * them, without either client surfacing an error.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TopicRecreateCompatTest {

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    @Test
    void producerAndConsumerCarryOnAcrossADeleteAndRecreate() throws Exception {
        String bootstrap = cluster.bootstrapServers();
        String topic = Groups.unique("recreate");
        TopicPartition tp = new TopicPartition(topic, 0);
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        pp.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "50");
        pp.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, "500");
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        cp.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
        cp.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, "50");
        cp.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "500");
        List<String> got = new ArrayList<>();
        try (Admin admin = Groups.admin(bootstrap);
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp);
                KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cp)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            Uuid oldId = Groups.awaitTopic(admin, topic, 1).topicId();
            consumer.assign(List.of(tp));
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, bytes("old-" + i))).get(30, TimeUnit.SECONDS);
            }
            Groups.pollUntil(Duration.ofSeconds(30), () -> got + " of the old topic",
                    () -> consumer.poll(Duration.ofMillis(100)).forEach(r -> got.add(utf8(r.value()))),
                    () -> got.size() == 3);

            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
            Groups.awaitTopicGone(admin, topic);
            try {
                admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                // the producer's metadata refresh may have created it again first (auto.create.topics.enable)
                assertThat(e.getCause()).isInstanceOf(TopicExistsException.class);
            }
            Uuid newId = Groups.awaitTopic(admin, topic, 1).topicId();
            assertThat(newId).isNotEqualTo(oldId);

            // more records than the old topic had, so that the consumer's old position lies inside the new log
            List<String> sent = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                String v = "new-" + i;
                producer.send(new ProducerRecord<>(topic, 0, null, bytes(v))).get(60, TimeUnit.SECONDS);
                sent.add(v);
            }
            Groups.pollUntil(Duration.ofSeconds(60), () -> got + " to reach the new topic's last record",
                    () -> consumer.poll(Duration.ofMillis(100)).forEach(r -> got.add(utf8(r.value()))),
                    () -> got.contains("new-5"));
            List<String> after = got.subList(3, got.size());
            // from where its position pointed (or from the start, if the client reset it), in order, without gaps
            assertThat(after).isNotEmpty();
            assertThat(sent).endsWith(after.toArray(new String[0]));
        }
    }

    private static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
