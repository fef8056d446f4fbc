package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The coordinators' own topics read the way operators read them on Kafka:
 * {@code kafka-console-consumer.sh} on one partition of {@code __consumer_offsets} or
 * {@code __transaction_state} with Kafka's formatters ({@code OffsetsMessageFormatter},
 * {@code GroupMetadataMessageFormatter}, {@code TransactionLogMessageFormatter}). The partition is
 * the one Kafka's rule picks for the group or transactional id (the id's hash modulo the topic's
 * partition count), so the test also shows that Brook keeps a group's and a transaction's records
 * where that rule looks for them. Lag monitors that decode {@code __consumer_offsets} themselves
 * (Burrow, for one) depend on the same record layout. Runs against Kafka too.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class CoordinatorTopicsFormatterCompatTest {

    private static final String CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer";
    private static final String FORMATTERS = "org.apache.kafka.tools.consumer.";

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    /** The partition of {@code internalTopic} that Kafka's rule picks for a group or transactional id. */
    private static int partitionFor(String id, String internalTopic) throws Exception {
        try (Admin admin = Groups.admin(cluster.bootstrapServers())) {
            int partitions = admin.describeTopics(List.of(internalTopic)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(internalTopic).partitions().size();
            return Groups.coordinatorPartition(id, partitions);
        }
    }

    /** Everything on one partition of an internal topic, decoded by one of Kafka's formatters. */
    private static String read(String internalTopic, int partition, String formatter) throws Exception {
        CliToolsCompatTest.Run r = CliToolsCompatTest.tool(CONSUMER, "--bootstrap-server", cluster.bootstrapServers(),
                "--topic", internalTopic, "--partition", Integer.toString(partition), "--offset", "earliest",
                "--formatter", FORMATTERS + formatter, "--timeout-ms", "5000");
        assertThat(r.exit()).as(r.output()).isZero();
        return r.output();
    }

    @Test
    void offsetsAndClassicGroupMembershipDecodeWithKafkasFormatters() throws Exception {
        String topic = Groups.unique("formatted-offsets");
        String group = Groups.unique("formatted-group");
        Groups.createTopic(cluster.bootstrapServers(), topic, 1);
        Groups.produce(cluster.bootstrapServers(), topic, 1, 7);

        Properties props = Groups.consumerProps(cluster.bootstrapServers(), group);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "formatted-client");
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<String, String> consumer = Groups.consumer(props)) {
            consumer.subscribe(List.of(topic));
            int[] read = {0};
            Groups.pollUntil(Duration.ofSeconds(60), () -> "7 records, " + read[0] + " read",
                    () -> read[0] += consumer.poll(Duration.ofMillis(100)).count(), () -> read[0] >= 7);
            consumer.commitSync(Map.of(tp, new OffsetAndMetadata(7, "seven read")));
        }

        int partition = partitionFor(group, "__consumer_offsets");
        String offsets = read("__consumer_offsets", partition, "OffsetsMessageFormatter");
        assertThat(offsets).contains("\"group\":\"" + group + "\"", "\"topic\":\"" + topic + "\"",
                "\"offset\":7", "\"metadata\":\"seven read\"");

        String membership = read("__consumer_offsets", partition, "GroupMetadataMessageFormatter");
        assertThat(membership).contains("\"group\":\"" + group + "\"", "\"protocolType\":\"consumer\"",
                "\"clientId\":\"formatted-client\"");
        // the formatter of one kind of record leaves the other kind's values out
        assertThat(membership).doesNotContain("\"metadata\":\"seven read\"");
    }

    @Test
    void transactionStateDecodesWithKafkasFormatter() throws Exception {
        String topic = Groups.unique("formatted-txn");
        String transactionalId = Groups.unique("formatted-txn-id");
        Groups.createTopic(cluster.bootstrapServers(), topic, 1);

        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, 0, "k", "v"));
            producer.commitTransaction();
        }

        String log = read("__transaction_state", partitionFor(transactionalId, "__transaction_state"),
                "TransactionLogMessageFormatter");
        assertThat(log).contains("\"transactionalId\":\"" + transactionalId + "\"", "\"topic\":\"" + topic + "\"",
                "\"transactionStatus\":\"Ongoing\"", "\"transactionStatus\":\"PrepareCommit\"");
        // the formatter prints one JSON object after another, without a separator; the id's last
        // record (other ids may share the partition) is the completed commit
        List<String> ours = Arrays.stream(log.split("(?=\\{\"key\":)")).filter(r -> r.contains(transactionalId)).toList();
        assertThat(ours.get(ours.size() - 1)).contains("\"transactionStatus\":\"CompleteCommit\",\"transactionPartitions\":[]");
    }
}
