package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.wire.message.AddPartitionsToTxnRequest;
import io.brook.wire.message.AddPartitionsToTxnRequest.AddPartitionsToTxnTopic;
import io.brook.wire.message.AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction;
import io.brook.wire.message.AddPartitionsToTxnResponse;
import io.brook.wire.message.AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult;
import io.brook.wire.message.AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult;
import io.brook.wire.message.SaslAuthenticateRequest;
import io.brook.wire.message.SaslAuthenticateResponse;
import io.brook.wire.message.SaslHandshakeRequest;
import io.brook.wire.protocol.Errors;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ACLs on the transaction APIs, after Kafka's table, with the stock producer, consumer and admin
 * client over SASL/PLAIN: each API allowed, denied with Kafka's error, and open to a super user.
 * alice is an ordinary user, admin a super user, ops holds ALTER on the cluster.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TransactionAclsTest {

    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " user_admin=\"admin-secret\" user_alice=\"alice-secret\" user_ops=\"ops-secret\";";

    @TempDir
    Path dir;

    private Brook brook;
    private String addr;

    @BeforeEach
    void start() throws Exception {
        brook = Brook.builder().dataDir(dir).config(Map.of(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS,
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users", "User:admin",
                "transaction.state.log.num.partitions", "2",
                "offsets.topic.num.partitions", "2")).start();
        addr = brook.bootstrapServers("SASL_PLAINTEXT");
        try (Admin admin = admin("admin")) {
            admin.createTopics(List.of(new NewTopic("in", 1, (short) 1), new NewTopic("out", 1, (short) 1),
                    new NewTopic("secret", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterEach
    void stop() {
        brook.close();
    }

    private Properties client(String user) {
        return PlainUsers.client(addr, user);
    }

    private Admin admin(String user) {
        return Admin.create(client(user));
    }

    private KafkaProducer<String, String> producer(String user, String transactionalId) {
        Properties p = client(user);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 15_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        if (transactionalId != null) {
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        }
        return new KafkaProducer<>(p);
    }

    private void allow(ResourceType type, String name, PatternType pattern, String user, AclOperation... ops)
            throws Exception {
        List<AclBinding> acls = new ArrayList<>();
        for (AclOperation op : ops) {
            acls.add(new AclBinding(new ResourcePattern(type, name, pattern),
                    new AccessControlEntry("User:" + user, "*", op, AclPermissionType.ALLOW)));
        }
        try (Admin admin = admin("admin")) {
            admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
        }
    }

    private void revoke(ResourceType type, String name, String user) throws Exception {
        try (Admin admin = admin("admin")) {
            admin.deleteAcls(List.of(new AclBinding(new ResourcePattern(type, name, PatternType.LITERAL),
                    new AccessControlEntry("User:" + user, "*", AclOperation.WRITE, AclPermissionType.ALLOW))
                    .toFilter())).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static void commitOne(KafkaProducer<String, String> producer, String topic) throws Exception {
        producer.initTransactions();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(topic, 0, "k", "v")).get(30, TimeUnit.SECONDS);
        producer.commitTransaction();
    }

    @Test
    void initProducerIdAddPartitionsAndEndTxnNeedWriteOnTheTransactionalIdAndTopic() throws Exception {
        try (KafkaProducer<String, String> p = producer("alice", "tx-a")) {
            assertThatThrownBy(p::initTransactions).isInstanceOf(TransactionalIdAuthorizationException.class);
        }
        allow(ResourceType.TRANSACTIONAL_ID, "tx-", PatternType.PREFIXED, "alice", AclOperation.WRITE);
        try (KafkaProducer<String, String> p = producer("alice", "tx-a")) {
            p.initTransactions();
            p.beginTransaction();
            // AddPartitionsToTxn without WRITE on the topic
            assertThatThrownBy(() -> p.send(new ProducerRecord<>("out", 0, "k", "v")).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
        allow(ResourceType.TOPIC, "out", PatternType.LITERAL, "alice", AclOperation.WRITE);
        try (KafkaProducer<String, String> p = producer("alice", "tx-a")) {
            commitOne(p, "out");
            // EndTxn once WRITE on the transactional id is gone
            p.beginTransaction();
            p.send(new ProducerRecord<>("out", 0, "k", "v")).get(30, TimeUnit.SECONDS);
            try (Admin admin = admin("admin")) {
                admin.deleteAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.TRANSACTIONAL_ID, "tx-",
                        PatternType.PREFIXED), new AccessControlEntry("User:alice", "*", AclOperation.WRITE,
                        AclPermissionType.ALLOW)).toFilter())).all().get(30, TimeUnit.SECONDS);
            }
            assertThatThrownBy(p::commitTransaction).isInstanceOf(TransactionalIdAuthorizationException.class);
        }
        // a super user needs no ACL
        try (KafkaProducer<String, String> p = producer("admin", "tx-admin")) {
            commitOne(p, "secret");
        }
    }

    @Test
    void aDeniedAddPartitionsToTxnNamesOnlyTheDeniedTopicsAndAddsNothing() throws Exception {
        allow(ResourceType.TRANSACTIONAL_ID, "tx-r", PatternType.LITERAL, "alice", AclOperation.WRITE);
        allow(ResourceType.TOPIC, "out", PatternType.LITERAL, "alice", AclOperation.WRITE);
        try (ProtocolClient c = login("alice")) {
            AddPartitionsToTxnResponse other = c.call(new AddPartitionsToTxnRequest().v3AndBelowTransactionalId("tx-x")
                    .v3AndBelowProducerId(7).v3AndBelowProducerEpoch((short) 0).v3AndBelowTopics(List.of(
                            new AddPartitionsToTxnTopic().name("out").partitions(List.of(0)))), (short) 3);
            assertThat(errors(other.resultsByTopicV3AndBelow())).as("someone else's transactional id")
                    .containsExactly("out-0 " + Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
            AddPartitionsToTxnResponse r = c.call(new AddPartitionsToTxnRequest().v3AndBelowTransactionalId("tx-r")
                    .v3AndBelowProducerId(7).v3AndBelowProducerEpoch((short) 0).v3AndBelowTopics(List.of(
                            new AddPartitionsToTxnTopic().name("out").partitions(List.of(0)),
                            new AddPartitionsToTxnTopic().name("secret").partitions(List.of(0)))), (short) 3);
            assertThat(errors(r.resultsByTopicV3AndBelow())).containsExactly(
                    "out-0 " + Errors.OPERATION_NOT_ATTEMPTED, "secret-0 " + Errors.TOPIC_AUTHORIZATION_FAILED);
            // v4+ is what partition leaders send: CLUSTER_ACTION on the cluster
            AddPartitionsToTxnResponse batched = c.call(new AddPartitionsToTxnRequest().transactions(List.of(
                    new AddPartitionsToTxnTransaction().transactionalId("tx-r").producerId(7).producerEpoch((short) 0)
                            .verifyOnly(true).topics(List.of(new AddPartitionsToTxnTopic().name("out")
                                    .partitions(List.of(0)))))), (short) 4);
            assertThat(batched.errorCode()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
        }
        try (ProtocolClient c = login("admin")) {
            AddPartitionsToTxnResponse batched = c.call(new AddPartitionsToTxnRequest().transactions(List.of(
                    new AddPartitionsToTxnTransaction().transactionalId("tx-r").producerId(7).producerEpoch((short) 0)
                            .verifyOnly(true).topics(List.of(new AddPartitionsToTxnTopic().name("out")
                                    .partitions(List.of(0)))))), (short) 4);
            assertThat(batched.errorCode()).isEqualTo(Errors.NONE.code());
        }
        try (Admin admin = admin("admin")) {
            assertThat(admin.listTransactions().all().get(30, TimeUnit.SECONDS)).as("nothing was added").isEmpty();
        }
    }

    private static List<String> errors(List<AddPartitionsToTxnTopicResult> topics) {
        List<String> out = new ArrayList<>();
        for (AddPartitionsToTxnTopicResult t : topics) {
            for (AddPartitionsToTxnPartitionResult p : t.resultsByPartition()) {
                out.add(t.name() + "-" + p.partitionIndex() + " " + Errors.forCode(p.partitionErrorCode()));
            }
        }
        out.sort(null);
        return out;
    }

    private ProtocolClient login(String user) throws Exception {
        ProtocolClient c = new ProtocolClient(addr);
        c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 1);
        SaslAuthenticateResponse a = c.call(new SaslAuthenticateRequest().authBytes(
                ("\0" + user + "\0" + user + "-secret").getBytes(StandardCharsets.UTF_8)), (short) 2);
        assertThat(a.errorCode()).isEqualTo(Errors.NONE.code());
        return c;
    }

    @Test
    void idempotentProducersNeedIdempotentWriteOnTheClusterOrWriteOnSomeTopic() throws Exception {
        allow(ResourceType.TOPIC, "out", PatternType.LITERAL, "alice", AclOperation.DESCRIBE);
        try (KafkaProducer<String, String> p = producer("alice", null)) {
            assertThatThrownBy(() -> p.send(new ProducerRecord<>("out", 0, "k", "v")).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ClusterAuthorizationException.class);
        }
        // a prefixed ALLOW for a topic that does not exist yet is enough, as in Kafka 4
        allow(ResourceType.TOPIC, "ou", PatternType.PREFIXED, "alice", AclOperation.WRITE);
        try (KafkaProducer<String, String> p = producer("alice", null)) {
            p.send(new ProducerRecord<>("out", 0, "k", "v")).get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void sendOffsetsNeedsReadOnTheGroupAndOnTheConsumedTopic() throws Exception {
        allow(ResourceType.TRANSACTIONAL_ID, "tx-o", PatternType.LITERAL, "alice", AclOperation.WRITE);
        allow(ResourceType.TOPIC, "out", PatternType.LITERAL, "alice", AclOperation.WRITE);
        ConsumerGroupMetadata group = new ConsumerGroupMetadata("g");
        Map<TopicPartition, OffsetAndMetadata> offsets = Map.of(new TopicPartition("in", 0), new OffsetAndMetadata(1));
        try (KafkaProducer<String, String> p = producer("alice", "tx-o")) {
            p.initTransactions();
            p.beginTransaction();
            // AddOffsetsToTxn without READ on the group
            assertThatThrownBy(() -> p.sendOffsetsToTransaction(offsets, group))
                    .isInstanceOf(GroupAuthorizationException.class);
            p.abortTransaction();
            allow(ResourceType.GROUP, "g", PatternType.LITERAL, "alice", AclOperation.READ);
            p.beginTransaction();
            // TxnOffsetCommit without READ on the topic: fatal for the producer, as against Kafka
            assertThatThrownBy(() -> p.sendOffsetsToTransaction(offsets, group))
                    .isInstanceOf(KafkaException.class)
                    .hasMessageContaining("Topic authorization failed");
        }
        allow(ResourceType.TOPIC, "in", PatternType.LITERAL, "alice", AclOperation.READ);
        try (KafkaProducer<String, String> p = producer("alice", "tx-o")) {
            p.initTransactions();
            p.beginTransaction();
            p.send(new ProducerRecord<>("out", 0, "k", "v")).get(30, TimeUnit.SECONDS);
            p.sendOffsetsToTransaction(offsets, group);
            p.commitTransaction();
        }
        try (Admin admin = admin("admin")) {
            assertThat(admin.listConsumerGroupOffsets("g").partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS))
                    .isEqualTo(offsets);
        }
        try (KafkaConsumer<String, String> c = readCommitted("admin")) {
            c.assign(List.of(new TopicPartition("out", 0)));
            c.seekToBeginning(c.assignment());
            List<String> seen = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (seen.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    seen.add(r.value());
                }
            }
            assertThat(seen).containsExactly("v");
        }
    }

    private KafkaConsumer<String, String> readCommitted(String user) {
        Properties p = client(user);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return new KafkaConsumer<>(p);
    }

    @Test
    void describeAndListShowOnlyWhatThePrincipalMayDescribeAndAbortNeedsTheCluster() throws Exception {
        allow(ResourceType.TRANSACTIONAL_ID, "tx-h", PatternType.LITERAL, "alice", AclOperation.WRITE);
        allow(ResourceType.TOPIC, "out", PatternType.LITERAL, "alice", AclOperation.WRITE);
        TopicPartition tp = new TopicPartition("out", 0);
        try (KafkaProducer<String, String> hidden = producer("admin", "tx-hidden");
                KafkaProducer<String, String> p = producer("alice", "tx-h")) {
            hidden.initTransactions();
            p.initTransactions();
            p.beginTransaction();
            p.send(new ProducerRecord<>("out", 0, "k", "hanging")).get(30, TimeUnit.SECONDS);
            try (Admin alice = admin("alice")) {
                assertThat(alice.listTransactions(new ListTransactionsOptions()).all().get(30, TimeUnit.SECONDS))
                        .extracting(TransactionListing::transactionalId).containsExactly("tx-h");
                assertThat(alice.describeTransactions(List.of("tx-h")).description("tx-h").get(30, TimeUnit.SECONDS)
                        .topicPartitions()).as("WRITE on the topic implies DESCRIBE").containsExactly(tp);
                assertThatThrownBy(() -> alice.describeTransactions(List.of("tx-hidden")).description("tx-hidden")
                        .get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(TransactionalIdAuthorizationException.class);
                // DescribeProducers needs READ on the topic
                assertThatThrownBy(() -> alice.describeProducers(List.of(tp)).partitionResult(tp)
                        .get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(TopicAuthorizationException.class);
            }
            revoke(ResourceType.TOPIC, "out", "alice");
            allow(ResourceType.TOPIC, "out", PatternType.LITERAL, "alice", AclOperation.READ);
            try (Admin alice = admin("alice")) {
                ProducerState state = alice.describeProducers(List.of(tp)).partitionResult(tp)
                        .get(30, TimeUnit.SECONDS).activeProducers().get(0);
                AbortTransactionSpec abort = new AbortTransactionSpec(tp, state.producerId(),
                        (short) state.producerEpoch(), state.coordinatorEpoch().orElse(-1));
                // kafka-transactions.sh abort: WriteTxnMarkers needs CLUSTER_ACTION or ALTER on the cluster
                assertThatThrownBy(() -> alice.abortTransaction(abort).all().get(30, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(ClusterAuthorizationException.class);
                assertThat(state.currentTransactionStartOffset()).hasValue(0L);
                allow(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, "ops", AclOperation.ALTER);
                allow(ResourceType.TOPIC, "out", PatternType.LITERAL, "ops", AclOperation.DESCRIBE);
                try (Admin ops = admin("ops")) {
                    ops.abortTransaction(abort).all().get(30, TimeUnit.SECONDS);
                }
                assertThat(alice.describeProducers(List.of(tp)).partitionResult(tp).get(30, TimeUnit.SECONDS)
                        .activeProducers().get(0).currentTransactionStartOffset()).isEmpty();
            }
        }
        try (Admin admin = admin("admin")) {
            assertThat(admin.listTransactions().all().get(30, TimeUnit.SECONDS))
                    .extracting(TransactionListing::transactionalId).containsExactlyInAnyOrder("tx-h", "tx-hidden");
        }
    }

    @Test
    void aSuperUserAbortsAHangingTransaction() throws Exception {
        TopicPartition tp = new TopicPartition("out", 0);
        try (KafkaProducer<String, String> p = producer("admin", "tx-s"); Admin admin = admin("admin")) {
            p.initTransactions();
            p.beginTransaction();
            p.send(new ProducerRecord<>("out", 0, "k", "hanging")).get(30, TimeUnit.SECONDS);
            ProducerState state = admin.describeProducers(List.of(tp)).partitionResult(tp).get(30, TimeUnit.SECONDS)
                    .activeProducers().get(0);
            admin.abortTransaction(new AbortTransactionSpec(tp, state.producerId(), (short) state.producerEpoch(),
                    state.coordinatorEpoch().orElse(-1))).all().get(30, TimeUnit.SECONDS);
            assertThat(admin.describeProducers(List.of(tp)).partitionResult(tp).get(30, TimeUnit.SECONDS)
                    .activeProducers().get(0).currentTransactionStartOffset()).isEmpty();
        }
    }
}
