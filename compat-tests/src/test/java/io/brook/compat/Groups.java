package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** What the consumer-group compat tests share: broker settings, topics, records, waiting. */
final class Groups {

    /**
     * Broker settings for group tests: no initial rebalance delay, and session time-outs down to
     * 500 ms so that a crashed member is noticed quickly.
     */
    static final Map<String, String> BROKER_CONFIGS = Map.of(
            "group.initial.rebalance.delay.ms", "0",
            "group.min.session.timeout.ms", "500");

    private Groups() {
    }

    static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(p);
    }

    /** Creates the topic and returns once the broker's metadata shows it with all its partitions. */
    static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
            awaitTopic(admin, topic, partitions);
        }
    }

    /**
     * Waits until Metadata shows {@code topic} with {@code partitions} partitions, each with a
     * leader, and returns that description. Apache Kafka answers CreateTopics and CreatePartitions
     * once its controller has committed the change; the broker that answers Metadata learns it from
     * the metadata log a moment later, so a Metadata request sent right away may not see it yet
     * (Brook's answers are read-your-writes, so there the first look succeeds).
     */
    static TopicDescription awaitTopic(Admin admin, String topic, int partitions) {
        AtomicReference<TopicDescription> seen = new AtomicReference<>();
        await(Duration.ofSeconds(30), topic + " with " + partitions + " partitions in the metadata", () -> {
            TopicDescription d = describeOrNull(admin, topic);
            seen.set(d);
            return d != null && d.partitions().size() == partitions
                    && d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty());
        });
        return seen.get();
    }

    /** Waits until Metadata no longer knows {@code topic} (Kafka deletes asynchronously, like it creates). */
    static void awaitTopicGone(Admin admin, String topic) {
        await(Duration.ofSeconds(30), topic + " to disappear from the metadata", () -> describeOrNull(admin, topic) == null);
    }

    private static TopicDescription describeOrNull(Admin admin, String topic) {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return null;
            }
            throw new AssertionError(e);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Writes {@code perPartition} records to every partition; record {@code i} of partition
     * {@code p} has the value {@code "p-i"}, which is also its offset.
     */
    static List<String> produce(String bootstrap, String topic, int partitions, int perPartition) throws Exception {
        return produce(bootstrap, topic, partitions, 0, perPartition);
    }

    /** Like {@link #produce(String, String, int, int)} for the records {@code from..from+count-1} of each partition. */
    static List<String> produce(String bootstrap, String topic, int partitions, int from, int count) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        List<String> values = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            List<Future<?>> sent = new ArrayList<>();
            for (int i = from; i < from + count; i++) {
                for (int part = 0; part < partitions; part++) {
                    String v = part + "-" + i;
                    values.add(v);
                    sent.add(producer.send(new ProducerRecord<>(topic, part, null, v)));
                }
            }
            for (Future<?> f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        return values;
    }

    /**
     * An idempotent acks=all producer that keeps up to five requests of tiny batches in flight and
     * retries quickly, so that a broker stopping under it cuts requests off mid-stream.
     */
    static Properties pipelinedIdempotentProducerProps(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.RETRIES_CONFIG, Integer.toString(Integer.MAX_VALUE));
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "512");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "20");
        p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, "20");
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        return p;
    }

    static Properties consumerProps(String bootstrap, String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "200");
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
        return p;
    }

    static KafkaConsumer<String, String> consumer(Properties props) {
        return new KafkaConsumer<>(props);
    }

    /**
     * Kafka's choice of a coordinator partition for a group or transactional id: the id's hash, made
     * non-negative, modulo the internal topic's partition count.
     */
    static int coordinatorPartition(String id, int partitions) {
        int h = id.hashCode();
        return (h == Integer.MIN_VALUE ? 0 : Math.abs(h)) % partitions;
    }

    /** Runs {@code step} until {@code done} holds; fails with {@code what} after {@code timeout}. */
    static void pollUntil(Duration timeout, Supplier<String> what, Runnable step, BooleanSupplier done) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for " + what.get());
            }
            step.run();
        }
    }

    /** {@code group}'s committed offset of each partition of {@code topic} it has one for, by partition. */
    static Map<Integer, Long> committed(Admin admin, String group, String topic) throws Exception {
        Map<Integer, Long> out = new HashMap<>();
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                .forEach((tp, o) -> {
                    if (tp.topic().equals(topic) && o != null) {
                        out.put(tp.partition(), o.offset());
                    }
                });
        return out;
    }

    /** Waits for a condition checked against the broker (no polling of consumers needed). */
    /**
     * Waits until {@code group} has committed exactly the end offset of every partition of
     * {@code topic}, as the Admin client reports them; {@code who} names the client in failures.
     */
    static void awaitCommittedAtEnd(String bootstrap, String group, String topic, int partitions, String who)
            throws Exception {
        try (Admin admin = admin(bootstrap)) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> ends.put(tp, info.offset()));
            Map<TopicPartition, Long> committed = new HashMap<>();
            await(Duration.ofSeconds(30), who + " commits up to the end of every partition", () -> {
                try {
                    Map<TopicPartition, OffsetAndMetadata> c = admin.listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                    committed.clear();
                    c.forEach((tp, om) -> committed.put(tp, om.offset()));
                    return committed.equals(ends);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            assertThat(committed).isEqualTo(ends);
        }
    }

    /**
     * Finalizes {@code transaction.version} 2 (transactions V2, KIP-890) as an operator does with
     * {@code kafka-features.sh upgrade}. A new Brook data directory and a newly formatted Kafka 4.x
     * cluster are at 2 already, where this changes nothing; it matters for a broker that keeps the
     * level 0 of a data directory an older Brook wrote, and it states what the test relies on.
     */
    static void enableTransactionsV2(String bootstrap) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            admin.updateFeatures(Map.of("transaction.version", new org.apache.kafka.clients.admin.FeatureUpdate((short) 2,
                    org.apache.kafka.clients.admin.FeatureUpdate.UpgradeType.UPGRADE)),
                    new org.apache.kafka.clients.admin.UpdateFeaturesOptions()).all().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Every value of {@code topic}'s first {@code partitions} partitions up to their end, read from
     * the beginning with read_committed or read_uncommitted.
     */
    static List<String> readValues(String bootstrap, String topic, int partitions, boolean readCommitted) {
        Properties p = consumerProps(bootstrap, unique("reader"));
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, readCommitted ? "read_committed" : "read_uncommitted");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> c = consumer(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                tps.add(new TopicPartition(topic, i));
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            pollUntil(Duration.ofSeconds(30), () -> "positions " + end, () -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    values.add(r.value());
                }
            }, () -> tps.stream().allMatch(tp -> c.position(tp) >= end.get(tp)));
        }
        return values;
    }

    static void await(Duration timeout, String what, BooleanSupplier done) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            LockSupport.parkNanos(20_000_000L); // back-off between remote checks of the condition
        }
    }

    static void assertAllRead(List<String> expected, java.util.Collection<String> read) {
        assertThat(read).containsAll(expected);
    }
}
