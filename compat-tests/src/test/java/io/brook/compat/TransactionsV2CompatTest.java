package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import io.brook.server.RecordedRequest;
import java.io.IOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Transactions V2 (KIP-890 part 2) with stock clients: kafka-clients 4.4 runs V2 against a broker
 * that finalizes {@code transaction.version} 2 — the broker's request log shows no
 * AddPartitionsToTxn or AddOffsetsToTxn from it, only Produce v12+, TxnOffsetCommit v5+ and EndTxn
 * v5, and its producer epoch grows by one per transaction, committed or aborted — while
 * kafka-clients 3.9.1, in a class loader of its own ({@link OldTransactionScenario}), keeps the
 * classic protocol and epoch. read_committed consumers see exactly the committed records.
 *
 * <p>Against the embedded Brook (fault hooks' request log); with {@code -Dbootstrap.servers} the
 * same transactions run and only the request-log checks are skipped.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TransactionsV2CompatTest {

    private static Brook brook;
    private static String bootstrap;

    @BeforeAll
    static void start() throws Exception {
        String external = System.getProperty("bootstrap.servers");
        if (external != null && !external.isBlank()) {
            bootstrap = external;
        } else {
            brook = Brook.builder().port(0).config(Groups.BROKER_CONFIGS).faults(true).start();
            brook.faults().recordRequests();
            bootstrap = brook.bootstrapServers();
        }
        Groups.enableTransactionsV2(bootstrap);
    }

    @AfterAll
    static void stop() {
        if (brook != null) {
            brook.close();
        }
    }

    @Test
    void kafkaClients44CommitsAndAbortsOnTransactionsV2() throws Exception {
        String topic = Groups.unique("v2");
        String txnId = Groups.unique("v2-txn");
        String clientId = Groups.unique("v2-client");
        Groups.createTopic(bootstrap, topic, 2);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        List<String> committed = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p); Admin admin = Groups.admin(bootstrap)) {
            producer.initTransactions();
            short initial = epoch(admin, txnId);
            committed.addAll(OldTransactionScenario.transaction(producer, topic, "c1-", true));
            assertThat(epoch(admin, txnId)).as("epoch after a commit").isEqualTo((short) (initial + 1));
            OldTransactionScenario.transaction(producer, topic, "a1-", false);
            assertThat(epoch(admin, txnId)).as("epoch after an abort").isEqualTo((short) (initial + 2));
            // consume-transform-produce: the offsets join the transaction without AddOffsetsToTxn
            String group = Groups.unique("v2-group");
            producer.beginTransaction();
            for (int i = 0; i < 4; i++) {
                committed.add("c2-" + i);
                producer.send(new ProducerRecord<>(topic, i % 2, "c2-" + i, "c2-" + i));
            }
            producer.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(7)),
                    new ConsumerGroupMetadata(group));
            producer.commitTransaction();
            assertThat(epoch(admin, txnId)).isEqualTo((short) (initial + 3));
            // the offsets become visible once the commit markers are written, after EndTxn is answered
            TopicPartition input = new TopicPartition(topic, 0);
            Groups.await(Duration.ofSeconds(30), "the transaction's offset committed", () -> {
                try {
                    OffsetAndMetadata o = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                            .get(30, TimeUnit.SECONDS).get(input);
                    return o != null && o.offset() == 7;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        assertThat(readCommitted(topic)).containsExactlyInAnyOrderElementsOf(committed);
        if (brook == null) {
            return; // the request log is the embedded broker's
        }
        List<RecordedRequest> sent = requestsOf(clientId);
        assertThat(sent).noneMatch(r -> r.apiKey() == ApiKeys.ADD_PARTITIONS_TO_TXN.id)
                .noneMatch(r -> r.apiKey() == ApiKeys.ADD_OFFSETS_TO_TXN.id);
        assertThat(sent).filteredOn(r -> r.apiKey() == ApiKeys.END_TXN.id).hasSize(3)
                .allSatisfy(r -> assertThat(r.apiVersion()).isGreaterThanOrEqualTo((short) 5));
        assertThat(sent).filteredOn(r -> r.apiKey() == ApiKeys.PRODUCE.id).isNotEmpty()
                .allSatisfy(r -> assertThat(r.apiVersion()).isGreaterThanOrEqualTo((short) 12));
        assertThat(sent).filteredOn(r -> r.apiKey() == ApiKeys.TXN_OFFSET_COMMIT.id).isNotEmpty()
                .allSatisfy(r -> assertThat(r.apiVersion()).isGreaterThanOrEqualTo((short) 5));
    }

    @Test
    void kafkaClients39StillCommitsOnTheClassicProtocol() throws Exception {
        String topic = Groups.unique("v1");
        String txnId = Groups.unique("v1-txn");
        String clientId = Groups.unique("v1-client");
        Groups.createTopic(bootstrap, topic, 2);
        Map<String, String> out = runOldClient(Map.of("bootstrap", bootstrap, "topic", topic, "transactionalId", txnId,
                "clientId", clientId));
        try (Admin admin = Groups.admin(bootstrap)) {
            // InitProducerId gave epoch 0; neither end bumped it
            assertThat(epoch(admin, txnId)).isZero();
        }
        assertThat(readCommitted(topic)).containsExactlyInAnyOrder(out.get("committed").split(","));
        if (brook == null) {
            return;
        }
        List<RecordedRequest> sent = requestsOf(clientId);
        assertThat(sent).filteredOn(r -> r.apiKey() == ApiKeys.ADD_PARTITIONS_TO_TXN.id).isNotEmpty();
        assertThat(sent).filteredOn(r -> r.apiKey() == ApiKeys.END_TXN.id).hasSize(2)
                .allSatisfy(r -> assertThat(r.apiVersion()).isLessThan((short) 5));
        assertThat(sent).filteredOn(r -> r.apiKey() == ApiKeys.PRODUCE.id).isNotEmpty()
                .allSatisfy(r -> assertThat(r.apiVersion()).isLessThan((short) 12));
    }


    /** The producer epoch the transaction coordinator holds for {@code txnId} (DescribeTransactions). */
    private static short epoch(Admin admin, String txnId) throws Exception {
        TransactionDescription d = admin.describeTransactions(List.of(txnId)).description(txnId).get(30, TimeUnit.SECONDS);
        return (short) d.producerEpoch();
    }

    /** Every value of both partitions a read_committed consumer reads up to the end. */
    private static List<String> readCommitted(String topic) {
        return Groups.readValues(bootstrap, topic, 2, true);
    }

    private static List<RecordedRequest> requestsOf(String clientId) {
        return brook.faults().recordedRequests().stream()
                .filter(r -> r.clientId() != null && r.clientId().equals(clientId)).toList();
    }

    /** Runs {@link OldTransactionScenario} with kafka-clients 3.9.1 alone in its class loader. */
    @SuppressWarnings("unchecked") // OldTransactionScenario is such a function
    private static Map<String, String> runOldClient(Map<String, String> in) throws Exception {
        Path testClasses = Path.of(TransactionsV2CompatTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path jar = testClasses.resolveSibling("old-kafka-clients").resolve("kafka-clients-3.9.1.jar");
        assertThat(Files.isRegularFile(jar)).as("%s (copied by the build's process-test-classes phase)", jar).isTrue();
        URL[] urls = {jar.toUri().toURL(), jarOf("org/slf4j/Logger.class"), jarOf("org/slf4j/simple/SimpleLogger.class"),
            testClasses.toUri().toURL()};
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader("kafka-clients-3.9.1", urls, ClassLoader.getPlatformClassLoader())) {
            Thread.currentThread().setContextClassLoader(loader);
            Object scenario = loader.loadClass(OldTransactionScenario.class.getName()).getDeclaredConstructor().newInstance();
            return ((Function<Map<String, String>, Map<String, String>>) scenario).apply(in);
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    private static URL jarOf(String resource) throws IOException {
        URL url = TransactionsV2CompatTest.class.getClassLoader().getResource(resource);
        assertThat(url).as(resource).isNotNull();
        return ((JarURLConnection) url.openConnection()).getJarFileURL();
    }
}
