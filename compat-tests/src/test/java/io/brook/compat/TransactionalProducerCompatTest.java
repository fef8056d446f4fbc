package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Transactions with the stock Java producer and consumer: commit and abort seen through
 * read_committed and read_uncommitted consumers, the last stable offset held back by an open
 * transaction, the abort of a transaction past its time-out, fencing of an older producer with the same transactional id, and
 * consume-transform-produce with {@code sendOffsetsToTransaction}, and the Admin calls behind
 * {@code kafka-transactions.sh} (list, describe, describe-producers, abort). Runs against Apache
 * Kafka too.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TransactionalProducerCompatTest {

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass(brokerConfigs());

    private static Map<String, String> brokerConfigs() {
        Map<String, String> configs = new HashMap<>(Groups.BROKER_CONFIGS);
        // time-outs are looked for every 200 ms instead of every 10 s
        configs.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "200");
        return configs;
    }

    private static KafkaProducer<String, String> transactional(String id) {
        return transactional(id, new Properties());
    }

    private static KafkaProducer<String, String> transactional(String id, Properties extra) {
        Properties p = new Properties();
        p.putAll(extra);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        return new KafkaProducer<>(p);
    }

    private static void send(KafkaProducer<String, String> producer, String topic, String prefix, int count) {
        for (int i = 0; i < count; i++) {
            producer.send(new ProducerRecord<>(topic, i % 2, prefix + i, prefix + i));
        }
    }

    /** Every value of the topic up to its end for this isolation level. */
    private static List<String> readAll(String topic, int partitions, boolean readCommitted) {
        return Groups.readValues(cluster.bootstrapServers(), topic, partitions, readCommitted);
    }

    @Test
    void shouldShowCommittedTransactionsToReadCommittedConsumersAndHideAbortedOnes() throws Exception {
        String topic = Groups.unique("txn");
        Groups.createTopic(cluster.bootstrapServers(), topic, 2);
        try (KafkaProducer<String, String> producer = transactional(Groups.unique("tx"))) {
            producer.initTransactions();
            producer.beginTransaction();
            send(producer, topic, "a", 4);
            producer.commitTransaction();
            producer.beginTransaction();
            send(producer, topic, "b", 4);
            producer.flush(); // written to the log, then aborted (unsent records would just be dropped)
            producer.abortTransaction();
            producer.beginTransaction();
            send(producer, topic, "c", 4);
            producer.commitTransaction();
        }
        assertThat(readAll(topic, 2, true)).containsExactlyInAnyOrder("a0", "a1", "a2", "a3", "c0", "c1", "c2", "c3");
        assertThat(readAll(topic, 2, false)).hasSize(12).contains("b0", "b3");
    }

    @Test
    void shouldHoldTheLastStableOffsetWhileATransactionIsOpen() throws Exception {
        String topic = Groups.unique("lso");
        Groups.createTopic(cluster.bootstrapServers(), topic, 1);
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaProducer<String, String> producer = transactional(Groups.unique("tx"));
                Admin admin = Groups.admin(cluster.bootstrapServers())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, 0, "k", "open"));
            producer.flush();
            long committedEnd = admin.listOffsets(Map.of(tp, OffsetSpec.latest()),
                    new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).partitionResult(tp).get().offset();
            long uncommittedEnd = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get().offset();
            assertThat(committedEnd).isZero();
            assertThat(uncommittedEnd).isEqualTo(1);
            producer.commitTransaction();
            // the commit marker is written once EndTxn is answered; the LSO passes it soon after
            Groups.pollUntil(Duration.ofSeconds(10), () -> "LSO past the commit marker", () -> { }, () -> {
                try {
                    return admin.listOffsets(Map.of(tp, OffsetSpec.latest()),
                            new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).partitionResult(tp).get().offset() == 2;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        assertThat(readAll(topic, 1, true)).containsExactly("open");
    }

    @Test
    void shouldFenceTheOlderProducerOfATransactionalIdAndAbortItsTransaction() throws Exception {
        String topic = Groups.unique("fence");
        Groups.createTopic(cluster.bootstrapServers(), topic, 2);
        String id = Groups.unique("tx");
        try (KafkaProducer<String, String> zombie = transactional(id)) {
            zombie.initTransactions();
            zombie.beginTransaction();
            send(zombie, topic, "zombie", 2);
            zombie.flush();
            try (KafkaProducer<String, String> fresh = transactional(id)) {
                fresh.initTransactions(); // aborts the zombie's open transaction
                fresh.beginTransaction();
                send(fresh, topic, "fresh", 2);
                fresh.commitTransaction();
            }
            assertThatThrownBy(zombie::commitTransaction)
                    .isInstanceOfAny(ProducerFencedException.class, KafkaException.class);
        }
        assertThat(readAll(topic, 2, true)).containsExactlyInAnyOrder("fresh0", "fresh1");
    }

    @Test
    void shouldAbortATransactionPastItsTimeoutAndFenceItsProducer() throws Exception {
        String topic = Groups.unique("timeout");
        Groups.createTopic(cluster.bootstrapServers(), topic, 1);
        TopicPartition tp = new TopicPartition(topic, 0);
        Properties p = new Properties();
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "1000");
        try (KafkaProducer<String, String> producer = transactional(Groups.unique("tx"), p);
                Admin admin = Groups.admin(cluster.bootstrapServers())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, 0, "k", "abandoned"));
            producer.flush();
            // the coordinator aborts it once it is older than its time-out: the LSO passes the abort marker
            Groups.pollUntil(Duration.ofSeconds(30), () -> "LSO past the abort marker", () -> { }, () -> {
                try {
                    return admin.listOffsets(Map.of(tp, OffsetSpec.latest()),
                            new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).partitionResult(tp).get().offset() == 2;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThatThrownBy(producer::commitTransaction).isInstanceOf(KafkaException.class);
        }
        assertThat(readAll(topic, 1, true)).isEmpty();
    }

    @Test
    void shouldListDescribeAndAbortTransactionsWithTheAdminClient() throws Exception {
        String topic = Groups.unique("admin");
        Groups.createTopic(cluster.bootstrapServers(), topic, 1);
        TopicPartition tp = new TopicPartition(topic, 0);
        String id = Groups.unique("tx");
        try (KafkaProducer<String, String> producer = transactional(id);
                Admin admin = Groups.admin(cluster.bootstrapServers())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, 0, "k", "hanging"));
            producer.flush();
            // kafka-transactions.sh list / describe / describe-producers / abort use these calls
            assertThat(admin.listTransactions(new ListTransactionsOptions()
                    .filterStates(List.of(TransactionState.ONGOING))).all().get())
                    .anySatisfy(t -> assertThat(t.transactionalId()).isEqualTo(id));
            TransactionDescription d = admin.describeTransactions(List.of(id)).description(id).get();
            assertThat(d.state()).isEqualTo(TransactionState.ONGOING);
            assertThat(d.topicPartitions()).containsExactly(tp);
            ProducerState p = admin.describeProducers(List.of(tp)).partitionResult(tp).get().activeProducers().stream()
                    .filter(x -> x.producerId() == d.producerId()).findFirst().orElseThrow();
            assertThat(p.currentTransactionStartOffset()).hasValue(0L);
            // no marker of this producer in the partition yet: no coordinator epoch (-1 on the wire)
            assertThat(p.coordinatorEpoch()).isEmpty();
            admin.abortTransaction(new AbortTransactionSpec(tp, p.producerId(), (short) p.producerEpoch(),
                    p.coordinatorEpoch().orElse(-1))).all().get();
            long lso = admin.listOffsets(Map.of(tp, OffsetSpec.latest()),
                    new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).partitionResult(tp).get().offset();
            assertThat(lso).isEqualTo(2);
        }
        assertThat(readAll(topic, 1, true)).isEmpty();
    }

    @Test
    void shouldShowTheCoordinatorEpochOfTheLastMarkerInDescribeProducers() throws Exception {
        String topic = Groups.unique("epoch");
        Groups.createTopic(cluster.bootstrapServers(), topic, 1);
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaProducer<String, String> producer = transactional(Groups.unique("tx"));
                Admin admin = Groups.admin(cluster.bootstrapServers())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, 0, "k", "committed"));
            producer.commitTransaction();
            ProducerState p = admin.describeProducers(List.of(tp)).partitionResult(tp).get().activeProducers().get(0);
            // the commit marker carries the coordinator's epoch, 0 on a single node whose
            // __transaction_state partitions never moved
            assertThat(p.coordinatorEpoch()).hasValue(0);
            assertThat(p.currentTransactionStartOffset()).isEmpty();
        }
    }

    @Test
    void shouldCommitConsumedOffsetsAndProducedRecordsAtomically() throws Exception {
        String input = Groups.unique("in");
        String output = Groups.unique("out");
        String group = Groups.unique("ctp");
        Groups.createTopic(cluster.bootstrapServers(), input, 2);
        Groups.createTopic(cluster.bootstrapServers(), output, 2);
        List<String> produced = Groups.produce(cluster.bootstrapServers(), input, 2, 10);
        Properties cp = Groups.consumerProps(cluster.bootstrapServers(), group);
        cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<String> transformed = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = Groups.consumer(cp);
                KafkaProducer<String, String> producer = transactional(Groups.unique("tx"))) {
            producer.initTransactions();
            consumer.subscribe(List.of(input));
            boolean[] abortedOnce = {false};
            Groups.pollUntil(Duration.ofSeconds(60), () -> "transformed " + transformed.size(), () -> {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                if (records.isEmpty()) {
                    return;
                }
                producer.beginTransaction();
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                List<String> batch = new ArrayList<>();
                for (ConsumerRecord<String, String> r : records) {
                    producer.send(new ProducerRecord<>(output, r.partition(), r.key(), r.value().toUpperCase()));
                    batch.add(r.value().toUpperCase());
                    offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                }
                producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
                if (!abortedOnce[0]) {
                    // the first batch is aborted: its output disappears and its input is read again
                    abortedOnce[0] = true;
                    producer.abortTransaction();
                    for (TopicPartition tp : consumer.assignment()) {
                        OffsetAndMetadata committed = consumer.committed(java.util.Set.of(tp)).get(tp);
                        consumer.seek(tp, committed == null ? 0 : committed.offset());
                    }
                    return;
                }
                producer.commitTransaction();
                transformed.addAll(batch);
            }, () -> transformed.size() >= produced.size());
        }
        List<String> expected = produced.stream().map(String::toUpperCase).toList();
        assertThat(transformed).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(readAll(output, 2, true)).containsExactlyInAnyOrderElementsOf(expected);
        Groups.awaitCommittedAtEnd(cluster.bootstrapServers(), group, input, 2, "the transactional offsets");
    }
}
