package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kafka-transactions.sh} (Kafka's TransactionsCommand) with ACLs on, over SASL/PLAIN: a
 * user with READ on the topic but no cluster permission sees her own transaction in
 * {@code list} but not another user's, and may not {@code abort} a hanging transaction; the super
 * user aborts it (what {@code find-hanging} looks for is gone). Embedded broker only.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TransactionsCliAclCompatTest {

    private static final String TRANSACTIONS = org.apache.kafka.tools.TransactionsCommand.class.getName();
    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " user_admin=\"admin-secret\" user_alice=\"alice-secret\";";

    @BeforeAll
    static void embeddedOnly() {
        Assumptions.assumeTrue(System.getProperty("bootstrap.servers") == null
                || System.getProperty("bootstrap.servers").isBlank(), "embedded broker only");
    }

    private static Properties client(String bootstrap, String user) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " username=\"" + user + "\" password=\"" + user + "-secret\";");
        return p;
    }

    private record Run(int exit, String output) { }

    private static Run tool(Path dir, String bootstrap, String user, String... args)
            throws IOException, InterruptedException {
        Path config = dir.resolve(user + ".properties");
        Properties p = client(bootstrap, user);
        p.remove(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
        try (var out = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
            p.store(out, null);
        }
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                TRANSACTIONS, "--bootstrap-server", bootstrap, "--command-config", config.toString()));
        cmd.addAll(List.of(args));
        Process proc = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = proc.getInputStream().readAllBytes();
        assertThat(proc.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Run(proc.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    private static AclBinding allow(ResourceType type, String name, AclOperation op) {
        return new AclBinding(new ResourcePattern(type, name, PatternType.LITERAL),
                new AccessControlEntry("User:alice", "*", op, AclPermissionType.ALLOW));
    }

    private static KafkaProducer<String, String> producer(String bootstrap, String user, String id) {
        Properties p = client(bootstrap, user);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        return new KafkaProducer<>(p);
    }

    @Test
    void onlyAnAdministratorAbortsAHangingTransaction(@TempDir Path data, @TempDir Path dir) throws Exception {
        try (Brook b = Brook.builder().dataDir(data).config(Map.of(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS,
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users", "User:admin",
                "transaction.state.log.num.partitions", "2")).start()) {
            String addr = b.bootstrapServers("SASL_PLAINTEXT");
            try (Admin admin = Admin.create(client(addr, "admin"))) {
                admin.createTopics(List.of(new NewTopic("hang", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
                admin.createAcls(List.of(allow(ResourceType.TOPIC, "hang", AclOperation.WRITE),
                        allow(ResourceType.TOPIC, "hang", AclOperation.READ),
                        allow(ResourceType.TRANSACTIONAL_ID, "alice-tx", AclOperation.WRITE)))
                        .all().get(30, TimeUnit.SECONDS);
            }
            try (KafkaProducer<String, String> other = producer(addr, "admin", "admin-tx");
                    KafkaProducer<String, String> p = producer(addr, "alice", "alice-tx")) {
                other.initTransactions();
                p.initTransactions();
                p.beginTransaction();
                p.send(new ProducerRecord<>("hang", 0, "k", "hanging")).get(30, TimeUnit.SECONDS);

                Run list = tool(dir, addr, "alice", "list");
                assertThat(list.exit()).as(list.output()).isZero();
                assertThat(list.output()).contains("alice-tx").doesNotContain("admin-tx");
                Run denied = tool(dir, addr, "alice", "abort", "--topic", "hang", "--partition", "0",
                        "--start-offset", "0");
                assertThat(denied.exit()).as(denied.output()).isNotZero();
                assertThat(denied.output()).contains("failed due to cluster authorization error");
                Run abort = tool(dir, addr, "admin", "abort", "--topic", "hang", "--partition", "0",
                        "--start-offset", "0");
                assertThat(abort.exit()).as(abort.output()).isZero();
                try (Admin admin = Admin.create(client(addr, "admin"))) {
                    TopicPartition tp = new TopicPartition("hang", 0);
                    assertThat(admin.describeProducers(List.of(tp)).partitionResult(tp).get(30, TimeUnit.SECONDS)
                            .activeProducers())
                            .allSatisfy(s -> assertThat(s.currentTransactionStartOffset()).isEmpty());
                }
            }
        }
    }
}
