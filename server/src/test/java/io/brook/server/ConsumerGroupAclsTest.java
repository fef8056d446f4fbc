package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.GroupAuthorizationException;
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
 * ACLs on KIP-848 consumer groups, with stock kafka-clients consumers of the consumer protocol
 * over SASL/PLAIN: a pattern subscription covers only the topics the member's principal may
 * DESCRIBE (so no partition of a hidden topic is assigned, and its name does not leak through the
 * assignment), a member without READ on its group is refused with GROUP_AUTHORIZATION_FAILED, and
 * ConsumerGroupDescribe needs DESCRIBE on the group. alice is an ordinary user, admin a super user.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsumerGroupAclsTest {

    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " user_admin=\"admin-secret\" user_alice=\"alice-secret\";";

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
                "offsets.topic.num.partitions", "2",
                "group.consumer.min.heartbeat.interval.ms", "500",
                "group.consumer.heartbeat.interval.ms", "500")).start();
        addr = brook.bootstrapServers("SASL_PLAINTEXT");
        try (Admin admin = Admin.create(PlainUsers.client(addr, "admin"))) {
            admin.createTopics(List.of(new NewTopic("orders-eu", 2, (short) 1), new NewTopic("orders-secret", 1, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
        }
        Properties p = PlainUsers.client(addr, "admin");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>("orders-eu", i % 2, null, "eu-" + i)).get(30, TimeUnit.SECONDS);
                producer.send(new ProducerRecord<>("orders-secret", 0, null, "secret-" + i)).get(30, TimeUnit.SECONDS);
            }
        }
    }

    @AfterEach
    void stop() {
        brook.close();
    }

    private void allow(ResourceType type, String name, AclOperation... ops) throws Exception {
        List<AclBinding> acls = new ArrayList<>();
        for (AclOperation op : ops) {
            acls.add(new AclBinding(new ResourcePattern(type, name, PatternType.LITERAL),
                    new AccessControlEntry("User:alice", "*", op, AclPermissionType.ALLOW)));
        }
        try (Admin admin = Admin.create(PlainUsers.client(addr, "admin"))) {
            admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
        }
    }

    private KafkaConsumer<String, String> consumer(String group) {
        Properties p = PlainUsers.client(addr, "alice");
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    @Test
    void aPatternCoversOnlyTheTopicsTheMemberMayDescribe() throws Exception {
        allow(ResourceType.GROUP, "readers", AclOperation.READ, AclOperation.DESCRIBE);
        allow(ResourceType.TOPIC, "orders-eu", AclOperation.READ);
        try (KafkaConsumer<String, String> c = consumer("readers")) {
            c.subscribe(new SubscriptionPattern("orders-.*"));
            List<String> read = new ArrayList<>();
            Await.until("alice to read orders-eu", Duration.ofSeconds(60), () -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    read.add(r.value());
                }
                return read.size() >= 3;
            });
            assertThat(read).containsExactlyInAnyOrder("eu-0", "eu-1", "eu-2");
            Set<String> topics = new HashSet<>();
            c.assignment().forEach(tp -> topics.add(tp.topic()));
            assertThat(topics).containsExactly("orders-eu");
        }
        try (Admin admin = Admin.create(PlainUsers.client(addr, "admin"))) {
            var described = admin.describeConsumerGroups(List.of("readers")).all().get(30, TimeUnit.SECONDS).get("readers");
            assertThat(described.members()).allSatisfy(m -> assertThat(m.assignment().topicPartitions())
                    .allSatisfy(tp -> assertThat(tp.topic()).isEqualTo("orders-eu")));
        }
    }

    @Test
    void aMemberWithoutReadOnItsGroupIsRefusedAndDescribeNeedsDescribe() throws Exception {
        allow(ResourceType.TOPIC, "orders-eu", AclOperation.READ);
        try (KafkaConsumer<String, String> c = consumer("forbidden")) {
            c.subscribe(List.of("orders-eu"));
            assertThatThrownBy(() -> Await.until("the refusal", Duration.ofSeconds(60), () -> {
                c.poll(Duration.ofMillis(100));
                return false;
            })).isInstanceOf(GroupAuthorizationException.class);
        }
        try (Admin admin = Admin.create(PlainUsers.client(addr, "alice"))) {
            assertThatThrownBy(() -> admin.describeConsumerGroups(List.of("forbidden")).all().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(GroupAuthorizationException.class);
        }
    }
}
