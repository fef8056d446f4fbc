package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.brook.server.Brook;
import io.brook.testkit.Await;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What Brook writes to {@code __transaction_state} for a producer on transactions V2, read back
 * with Kafka 4.4's own reader of that topic ({@code org.apache.kafka.coordinator.transaction.TransactionLog},
 * what Kafka's formatters use): every record parses, and the last one of the transactional id
 * says CompleteCommit, the bumped epoch and client transaction version 2. Kafka's reader comes
 * with kafka-tools at run time only, so it is called by reflection. Embedded Brook only.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TransactionLogFormatCompatTest {

    private static final String READER = "org.apache.kafka.coordinator.transaction.TransactionLog";

    @Test
    void kafkasTransactionLogReaderParsesBrooksVersionOneValues() throws Exception {
        assumeTrue(System.getProperty("bootstrap.servers") == null, "reads the embedded Brook's internal topic");
        try (Brook brook = Brook.builder().port(0).config(Groups.BROKER_CONFIGS).start()) {
            String bootstrap = brook.bootstrapServers();
            Groups.enableTransactionsV2(bootstrap);
            String topic = Groups.unique("txlog");
            String txnId = Groups.unique("txlog-txn");
            Groups.createTopic(bootstrap, topic, 1);
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
                producer.initTransactions();
                for (int i = 0; i < 2; i++) {
                    producer.beginTransaction();
                    producer.send(new ProducerRecord<>(topic, 0, "k", "v" + i));
                    producer.commitTransaction();
                }
            }
            // the CompleteCommit record follows the markers, after EndTxn is answered
            String[] last = new String[1];
            Await.until("the transactional id's CompleteCommit record", Duration.ofSeconds(30), () -> {
                last[0] = lastMetadata(bootstrap, txnId);
                return last[0] != null && last[0].matches("(?s).*state=(CompleteCommit|COMPLETE_COMMIT).*");
            });
            assertThat(last[0]).as("the transactional id's last record").isNotNull()
                    .contains("producerEpoch=2", "clientTransactionVersion=TV_2")
                    .containsPattern("state=(CompleteCommit|COMPLETE_COMMIT)");
        }
    }

    /** Kafka's reading of {@code txnId}'s last record in {@code __transaction_state}, or null. */
    private static String lastMetadata(String bootstrap, String txnId) {
        try {
            Method read = Class.forName(READER).getMethod("read", ByteBuffer.class, ByteBuffer.class);
            String last = null;
            for (ConsumerRecord<byte[], byte[]> r : readTransactionLog(bootstrap)) {
                Object result = read.invoke(null, ByteBuffer.wrap(r.key()), r.value() == null ? null : ByteBuffer.wrap(r.value()));
                assertThat(result.getClass().getSimpleName()).as("Kafka's reading of %s", result).isIn("TxnRecord", "TxnTombstone");
                if (result.getClass().getSimpleName().equals("TxnRecord")
                        && txnId.equals(result.getClass().getMethod("transactionId").invoke(result))) {
                    last = result.getClass().getMethod("metadata").invoke(result).toString();
                }
            }
            return last;
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /** Every record of every partition of {@code __transaction_state}, up to its end. */
    private static List<ConsumerRecord<byte[], byte[]>> readTransactionLog(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo info : c.partitionsFor("__transaction_state")) {
                tps.add(new TopicPartition(info.topic(), info.partition()));
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            java.util.Map<TopicPartition, Long> end = c.endOffsets(tps);
            Groups.pollUntil(Duration.ofSeconds(30), () -> "positions " + end, () -> {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) {
                    out.add(r);
                }
            }, () -> tps.stream().allMatch(tp -> c.position(tp) >= end.get(tp)));
        }
        return out;
    }
}
