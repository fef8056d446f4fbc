package io.brook.compat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.security.token.delegation.DelegationToken;

/**
 * One produce / consume / commit / admin round with whichever kafka-clients its class loader holds.
 * {@link OldKafkaClientsCompatTest} loads it in a class loader with an older kafka-clients jar and
 * nothing else of the test class path, so every call below links against that jar: it may use
 * only API that kafka-clients 2.8 already had and 4.x still has (the one call whose name changed,
 * {@code DescribeTopicsResult.all()} → {@code allTopicNames()}, goes by reflection). Input and
 * output are plain strings, the only types both class loaders share.
 *
 * <p>Input: {@code bootstrap}, {@code topic}, {@code group}, {@code clientId} (a prefix: each
 * client adds its role), {@code count}, and any {@code client.<name>}: the client setting
 * {@code <name>} of every client (security settings, for instance). Output: {@code clientVersion}, {@code partitionsFor} (the
 * producer's metadata) and {@code partitions} (describeTopics), {@code produced} and {@code
 * consumed} ({@code partition:offset:value}, in the order acknowledged / read), {@code committed}
 * ({@code partition:offset}, as listed by the admin), {@code afterSeek} ({@code offset:value} of
 * partition 0's first record after a seek to its offset 1), {@code deleted}. With {@code tokens}
 * {@code true} it also creates a delegation token for itself and describes the tokens: {@code
 * tokenOwner} and {@code tokensDescribed} (how many of the described tokens are the new one).
 */
public final class OldClientScenario implements Function<Map<String, String>, Map<String, String>> {

    private static final long TIMEOUT_S = 30;
    private static final String STRING_SERIALIZER = "org.apache.kafka.common.serialization.StringSerializer";
    private static final String STRING_DESERIALIZER = "org.apache.kafka.common.serialization.StringDeserializer";

    @Override
    public Map<String, String> apply(Map<String, String> in) {
        try {
            return run(in);
        } catch (Exception e) {
            throw new IllegalStateException("kafka-clients " + clientVersion() + ": " + e, e);
        }
    }

    private static Map<String, String> run(Map<String, String> in) throws Exception {
        String topic = in.get("topic");
        String group = in.get("group");
        String clientId = in.get("clientId");
        int count = Integer.parseInt(in.get("count"));
        Map<String, String> out = new LinkedHashMap<>();
        out.put("clientVersion", clientVersion());

        try (Admin admin = Admin.create(props(in, clientId + "-admin"))) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(TIMEOUT_S, TimeUnit.SECONDS);

            Properties pp = props(in, clientId + "-producer");
            pp.put("enable.idempotence", "true");
            pp.put("acks", "all");
            pp.put("key.serializer", STRING_SERIALIZER);
            pp.put("value.serializer", STRING_SERIALIZER);
            List<String> produced = new ArrayList<>();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
                // waits (up to max.block.ms) until the broker's metadata has the new topic: Apache
                // Kafka answers CreateTopics before every broker knows it
                out.put("partitionsFor", String.valueOf(producer.partitionsFor(topic).size()));
                out.put("partitions", String.valueOf(describe(admin, topic).partitions().size()));
                List<Future<RecordMetadata>> acks = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    acks.add(producer.send(new ProducerRecord<>(topic, i % 2, "k" + i, "v" + i)));
                }
                for (int i = 0; i < count; i++) {
                    RecordMetadata md = acks.get(i).get(TIMEOUT_S, TimeUnit.SECONDS);
                    produced.add(md.partition() + ":" + md.offset() + ":v" + i);
                }
            }
            out.put("produced", String.join(",", produced));

            Properties cp = props(in, clientId + "-consumer");
            cp.put("group.id", group);
            cp.put("auto.offset.reset", "earliest");
            cp.put("enable.auto.commit", "false");
            cp.put("key.deserializer", STRING_DESERIALIZER);
            cp.put("value.deserializer", STRING_DESERIALIZER);
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
                consumer.subscribe(List.of(topic));
                List<String> consumed = new ArrayList<>();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
                while (consumed.size() < count && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        consumed.add(r.partition() + ":" + r.offset() + ":" + r.value());
                    }
                }
                out.put("consumed", String.join(",", consumed));
                consumer.commitSync();

                consumer.seek(new TopicPartition(topic, 0), 1);
                String afterSeek = "";
                while (afterSeek.isEmpty() && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        if (r.partition() == 0 && afterSeek.isEmpty()) {
                            afterSeek = r.offset() + ":" + r.value();
                        }
                    }
                }
                out.put("afterSeek", afterSeek);
            }

            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(TIMEOUT_S, TimeUnit.SECONDS);
            Map<Integer, Long> committed = new TreeMap<>();
            offsets.forEach((tp, om) -> committed.put(tp.partition(), om.offset()));
            List<String> listed = new ArrayList<>();
            committed.forEach((p, o) -> listed.add(p + ":" + o));
            out.put("committed", String.join(",", listed));

            if ("true".equals(in.get("tokens"))) {
                DelegationToken token = admin.createDelegationToken().delegationToken().get(TIMEOUT_S, TimeUnit.SECONDS);
                out.put("tokenOwner", token.tokenInfo().owner().toString());
                // Apache Kafka describes a new token once its metadata log applied it: wait for that, with a deadline
                long described = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
                while (described == 0 && System.nanoTime() < deadline) {
                    described = admin.describeDelegationToken().delegationTokens().get(TIMEOUT_S, TimeUnit.SECONDS)
                            .stream().filter(t -> t.tokenInfo().tokenId().equals(token.tokenInfo().tokenId())).count();
                    if (described == 0) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                    }
                }
                out.put("tokensDescribed", String.valueOf(described));
            }

            admin.deleteTopics(List.of(topic)).all().get(TIMEOUT_S, TimeUnit.SECONDS);
            out.put("deleted", "true");
        }
        return out;
    }

    /** {@code allTopicNames()} from 3.1 on (and the only one in 4.x), {@code all()} before. */
    private static TopicDescription describe(Admin admin, String topic) throws Exception {
        DescribeTopicsResult result = admin.describeTopics(List.of(topic));
        Method all;
        try {
            all = DescribeTopicsResult.class.getMethod("allTopicNames");
        } catch (NoSuchMethodException beforeKafka31) {
            all = DescribeTopicsResult.class.getMethod("all");
        }
        @SuppressWarnings("unchecked") // both return a future of the descriptions by topic name
        KafkaFuture<Map<String, TopicDescription>> future = (KafkaFuture<Map<String, TopicDescription>>) all.invoke(result);
        return future.get(TIMEOUT_S, TimeUnit.SECONDS).get(topic);
    }

    /** The version kafka-clients reports about itself (its utility for that moved in 4.0). */
    private static String clientVersion() {
        Properties p = new Properties();
        try (InputStream in = KafkaProducer.class.getClassLoader().getResourceAsStream("kafka/kafka-version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p.getProperty("version", "unknown");
    }

    private static Properties props(Map<String, String> in, String clientId) {
        Properties p = new Properties();
        in.forEach((k, v) -> {
            if (k.startsWith("client.")) {
                p.put(k.substring("client.".length()), v);
            }
        });
        p.put("bootstrap.servers", in.get("bootstrap"));
        p.put("client.id", clientId);
        return p;
    }
}
