package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka Streams application (exactly-once v2, a repartition topic and a changelog:
 * {@link StreamsCountApp}) run by a user who has only the ACLs Kafka's security documentation
 * lists for one: READ on its input, WRITE on its output, and, each prefixed with its
 * {@code application.id}, ALL on topics (the internal ones it creates), READ on its group and
 * ALL on transactional ids. It counts every input once. Without the transactional-id ACL it
 * stops with Kafka's TransactionalIdAuthorizationException. The broker is Brook, or under
 * run-against-kafka.sh the reference Kafka configured the same way ({@link SecuredBroker}).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class StreamsAclCompatTest {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path data;
    @TempDir
    Path state;

    private static Map<String, String> brokerConfig() {
        return Map.of(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required"
                        + " user_admin=\"admin-secret\" user_streams=\"streams-secret\";",
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users", "User:admin");
    }

    private static AclBinding allow(ResourceType type, String name, PatternType pattern, AclOperation op) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry("User:streams", "*", op, AclPermissionType.ALLOW));
    }

    /** The ACLs of the documentation for application {@code appId}; without the transactional ids' unless {@code txn}. */
    private static List<AclBinding> applicationAcls(String appId, String input, String output, boolean txn) {
        List<AclBinding> acls = new ArrayList<>(List.of(
                allow(ResourceType.TOPIC, input, PatternType.LITERAL, AclOperation.READ),
                allow(ResourceType.TOPIC, output, PatternType.LITERAL, AclOperation.WRITE),
                allow(ResourceType.TOPIC, appId, PatternType.PREFIXED, AclOperation.ALL),
                allow(ResourceType.GROUP, appId, PatternType.PREFIXED, AclOperation.READ)));
        if (txn) {
            acls.add(allow(ResourceType.TRANSACTIONAL_ID, appId, PatternType.PREFIXED, AclOperation.ALL));
        }
        return acls;
    }

    /** Creates the input and output topics, the ACLs, and 60 input records written by the administrator. */
    private static void prepare(String addr, String input, String output, List<AclBinding> acls) throws Exception {
        try (Admin admin = Admin.create(AclCompatTest.client(addr, "admin"))) {
            admin.createTopics(List.of(new NewTopic(input, 2, (short) 1), new NewTopic(output, 2, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
            AclCompatTest.createAndAwait(admin, acls);
        }
        Properties p = AclCompatTest.client(addr, "admin");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < 60; i++) {
                producer.send(new ProducerRecord<>(input, Integer.toString(i), "w" + (i % 3)));
            }
            producer.flush();
        }
    }

    @Test
    void anApplicationWithTheDocumentedAclsCountsEachInputOnce() throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, brokerConfig())) {
            String addr = b.bootstrapServers("SASL_PLAINTEXT");
            String appId = Groups.unique("secured-app");
            String input = Groups.unique("words");
            String output = Groups.unique("counts");
            prepare(addr, input, output, applicationAcls(appId, input, output, true));
            try (KafkaStreams app = StreamsCountApp.create(addr, appId, input, output, state,
                    AclCompatTest.client(addr, "streams"))) {
                app.start();
                Map<String, Long> expected = Map.of("w0", 20L, "w1", 20L, "w2", 20L);
                Properties c = AclCompatTest.client(addr, "admin");
                c.put(ConsumerConfig.GROUP_ID_CONFIG, Groups.unique("verify"));
                c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
                c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
                c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
                c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
                Map<String, Long> latest = new HashMap<>();
                try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(c)) {
                    consumer.subscribe(List.of(output));
                    Groups.pollUntil(WAIT, () -> "counts " + latest + " (state " + app.state() + ")", () -> {
                        for (ConsumerRecord<String, Long> r : consumer.poll(Duration.ofMillis(100))) {
                            latest.put(r.key(), r.value());
                            assertThat(r.value()).as("never over-counted").isLessThanOrEqualTo(20L);
                        }
                    }, () -> latest.equals(expected));
                }
                assertThat(app.state()).isEqualTo(KafkaStreams.State.RUNNING);
            }
        }
    }

    @Test
    void withoutTheTransactionalIdAclTheApplicationStopsWithKafkasError() throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, brokerConfig())) {
            String addr = b.bootstrapServers("SASL_PLAINTEXT");
            String appId = Groups.unique("no-txn-app");
            String input = Groups.unique("words");
            String output = Groups.unique("counts");
            prepare(addr, input, output, applicationAcls(appId, input, output, false));
            AtomicReference<Throwable> failure = new AtomicReference<>();
            try (KafkaStreams app = StreamsCountApp.create(addr, appId, input, output, state,
                    AclCompatTest.client(addr, "streams"))) {
                app.setUncaughtExceptionHandler(e -> {
                    failure.compareAndSet(null, e);
                    return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
                });
                app.start();
                Groups.await(WAIT, "the application stopped by its error", () -> failure.get() != null);
            }
            Throwable t = failure.get();
            while (t != null && !(t instanceof TransactionalIdAuthorizationException)) {
                t = t.getCause();
            }
            assertThat(t).as("the cause chain of %s", failure.get()).isNotNull();
        }
    }
}
