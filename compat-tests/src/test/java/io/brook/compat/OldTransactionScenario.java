package io.brook.compat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * One committed and one aborted transaction with whichever kafka-clients its class loader holds
 * ({@link TransactionsV2CompatTest} loads it with kafka-clients 3.9.1 alone, as
 * {@link OldKafkaClientsCompatTest} does its round), so the calls link against that jar and the
 * producer runs the classic transaction protocol whatever the broker finalizes.
 *
 * <p>Input: {@code bootstrap}, {@code topic} (two partitions), {@code transactionalId},
 * {@code clientId}. Output: {@code committed} and {@code aborted}, the values sent in each.
 */
public final class OldTransactionScenario implements Function<Map<String, String>, Map<String, String>> {

    private static final String STRING_SERIALIZER = "org.apache.kafka.common.serialization.StringSerializer";

    @Override
    public Map<String, String> apply(Map<String, String> in) {
        Properties p = new Properties();
        p.put("bootstrap.servers", in.get("bootstrap"));
        p.put("client.id", in.get("clientId"));
        p.put("transactional.id", in.get("transactionalId"));
        p.put("key.serializer", STRING_SERIALIZER);
        p.put("value.serializer", STRING_SERIALIZER);
        p.put("max.block.ms", "30000");
        String topic = in.get("topic");
        Map<String, String> out = new TreeMap<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            out.put("committed", String.join(",", transaction(producer, topic, "old-c", true)));
            out.put("aborted", String.join(",", transaction(producer, topic, "old-a", false)));
        }
        return out;
    }

    /**
     * Sends six records over two partitions in one transaction and commits or aborts it; returns
     * the values sent. Also used by {@link TransactionsV2CompatTest} with the current client.
     */
    static List<String> transaction(KafkaProducer<String, String> producer, String topic, String prefix,
            boolean commit) {
        List<String> values = new ArrayList<>();
        producer.beginTransaction();
        for (int i = 0; i < 6; i++) {
            values.add(prefix + i);
            producer.send(new ProducerRecord<>(topic, i % 2, prefix + i, prefix + i));
        }
        if (commit) {
            producer.commitTransaction();
        } else {
            producer.flush();
            producer.abortTransaction();
        }
        return values;
    }
}
