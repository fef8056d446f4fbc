package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.tools.AclCommand;
import org.apache.kafka.tools.ConfigCommand;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's security tools against a secured broker, each checked by what a client can then do:
 * {@code kafka-acls.sh} adding, listing and removing literal and prefixed ACLs, its
 * {@code --producer} and {@code --consumer} shortcuts and a DENY beside an ALLOW, and
 * {@code kafka-configs.sh} managing SCRAM users and client quotas ({@code --entity-type users}
 * and {@code clients}) and describing the broker's security settings without their secrets. One SASL_PLAINTEXT listener with PLAIN and SCRAM, an ACL authorizer and
 * {@code User:admin} as super user, started as the embedded Brook or the reference Kafka
 * ({@link SecuredBroker}).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SecurityToolsCompatTest {

    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " user_admin=\"admin-secret\" user_alice=\"alice-secret\" user_bob=\"bob-secret\""
            + " user_carol=\"carol-secret\" user_erin=\"erin-secret\";";

    @TempDir
    static Path dir;
    private static SecuredBroker broker;
    private static String addr;
    private static Path adminConfig;

    @BeforeAll
    static void start() throws Exception {
        Files.createDirectories(dir.resolve("broker"));
        broker = SecuredBroker.start(dir.resolve("broker"), Map.of(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS,
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users", "User:admin"));
        addr = broker.bootstrapServers("SASL_PLAINTEXT");
        adminConfig = commandConfig("admin", AclCompatTest.client(addr, "admin"));
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    /** A {@code --command-config} file with a client's security settings. */
    private static Path commandConfig(String name, Properties client) throws Exception {
        Path f = dir.resolve(name + ".properties");
        Properties p = new Properties();
        for (String key : List.of("security.protocol", SaslConfigs.SASL_MECHANISM, SaslConfigs.SASL_JAAS_CONFIG)) {
            p.put(key, client.get(key));
        }
        try (var out = Files.newOutputStream(f)) {
            p.store(out, null);
        }
        return f;
    }

    private static Tools.Result acls(String... args) throws Exception {
        return tool(AclCommand.class, args);
    }

    private static Tools.Result configs(String... args) throws Exception {
        return tool(ConfigCommand.class, args);
    }

    private static Tools.Result tool(Class<?> main, String... args) throws Exception {
        return Tools.kafkaToolSucceeds(main, addr, adminConfig, args);
    }

    /**
     * Waits until the broker answers DescribeAcls for {@code user} with {@code count} bindings:
     * Kafka applies an ACL from its metadata log a moment after acknowledging it, and its
     * authorizer answers from the same state it enforces.
     */
    private static void awaitAcls(String user, int count) {
        AclBindingFilter filter = new AclBindingFilter(new ResourcePatternFilter(ResourceType.ANY, null,
                PatternType.ANY), new AccessControlEntryFilter(user, null, AclOperation.ANY, AclPermissionType.ANY));
        try (Admin admin = Admin.create(AclCompatTest.client(addr, "admin"))) {
            Await.until(user + " has " + count + " ACLs", Duration.ofSeconds(30),
                    () -> admin.describeAcls(filter).values().toCompletionStage().toCompletableFuture()
                            .join().size() == count);
        }
    }

    @Test
    void kafkaConfigsDescribesTheBrokersSecuritySettingsWithoutTheirSecrets() throws Exception {
        String all = configs("--describe", "--all", "--entity-type", "brokers", "--entity-name", "1").out();
        assertThat(all).doesNotContain("admin-secret", "alice-secret");
        assertThat(lines(all)).contains(
                "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512 sensitive=false"
                        + " synonyms={STATIC_BROKER_CONFIG:sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,"
                        + " DEFAULT_CONFIG:sasl.enabled.mechanisms=GSSAPI}",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config=null sensitive=true"
                        + " synonyms={STATIC_BROKER_CONFIG:listener.name.sasl_plaintext.plain.sasl.jaas.config=null}",
                "super.users=null sensitive=true synonyms={STATIC_BROKER_CONFIG:super.users=null}",
                "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer sensitive=false"
                        + " synonyms={STATIC_BROKER_CONFIG:authorizer.class.name="
                        + "org.apache.kafka.metadata.authorizer.StandardAuthorizer, DEFAULT_CONFIG:authorizer.class.name=}",
                "ssl.client.auth=none sensitive=false synonyms={DEFAULT_CONFIG:ssl.client.auth=none}",
                "ssl.keystore.password=null sensitive=true synonyms={}",
                "connections.max.reauth.ms=0 sensitive=false synonyms={DEFAULT_CONFIG:connections.max.reauth.ms=0}",
                "sasl.server.max.receive.size=524288 sensitive=false"
                        + " synonyms={DEFAULT_CONFIG:sasl.server.max.receive.size=524288}");

        ConfigResource self = new ConfigResource(ConfigResource.Type.BROKER, "1");
        String topic = Groups.unique("documented");
        try (Admin admin = Admin.create(AclCompatTest.client(addr, "admin"))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            ConfigResource t = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Map<ConfigResource, Config> plain = admin.describeConfigs(List.of(self, t)).all().get(30, TimeUnit.SECONDS);
            assertThat(plain.get(self).get("sasl.enabled.mechanisms").documentation()).isNull();
            assertThat(plain.get(t).get("retention.ms").documentation()).isNull();
            Map<ConfigResource, Config> documented = admin.describeConfigs(List.of(self, t),
                    new DescribeConfigsOptions().includeDocumentation(true)).all().get(30, TimeUnit.SECONDS);
            assertThat(documented.get(self).get("sasl.enabled.mechanisms").documentation()).isNotBlank();
            assertThat(documented.get(self).get("log.retention.ms").documentation()).isNotBlank();
            assertThat(documented.get(self).get("ssl.keystore.password").type())
                    .isEqualTo(ConfigEntry.ConfigType.PASSWORD);
            assertThat(documented.get(t).entries()).allSatisfy(e -> assertThat(e.documentation())
                    .as(e.name()).isNotBlank());
        }
    }

    private static List<String> lines(String out) {
        return out.lines().map(String::trim).toList();
    }

    @Test
    void kafkaAclsAddsListsAndRemovesAclsThatClientsFeel() throws Exception {
        String topic = Groups.unique("cli-acl-orders");
        try (Admin admin = Admin.create(AclCompatTest.client(addr, "admin"))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            Groups.awaitTopic(admin, topic, 1);
        }
        assertThatThrownBy(() -> AclCompatTest.produce(addr, "alice", topic))
                .hasRootCauseInstanceOf(TopicAuthorizationException.class);

        // a prefixed ALLOW
        acls("--add", "--allow-principal", "User:alice", "--operation", "Write", "--topic", "cli-acl-",
                "--resource-pattern-type", "prefixed");
        Tools.Result list = acls("--list", "--topic", "cli-acl-", "--resource-pattern-type", "prefixed");
        assertThat(list.out()).contains("name=cli-acl-, patternType=PREFIXED")
                .contains("(principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW)");
        awaitAcls("User:alice", 1);
        AclCompatTest.produce(addr, "alice", topic);

        // --producer: WRITE, DESCRIBE and CREATE on the topic
        acls("--add", "--producer", "--allow-principal", "User:bob", "--topic", topic);
        Tools.Result bob = acls("--list", "--principal", "User:bob");
        assertThat(bob.out()).contains("operation=WRITE, permissionType=ALLOW")
                .contains("operation=DESCRIBE, permissionType=ALLOW").contains("operation=CREATE, permissionType=ALLOW");
        awaitAcls("User:bob", 3);
        AclCompatTest.produce(addr, "bob", topic);

        // --consumer: READ and DESCRIBE on the topic, READ on the group
        String group = Groups.unique("cli-acl-group");
        acls("--add", "--consumer", "--allow-principal", "User:carol", "--topic", topic, "--group", group);
        awaitAcls("User:carol", 3);
        assertThat(AclCompatTest.consume(addr, "carol", topic, group)).isPositive();

        // a DENY wins over the ALLOW; removing it gives the ALLOW back
        acls("--add", "--deny-principal", "User:carol", "--operation", "Read", "--topic", topic);
        awaitAcls("User:carol", 4);
        assertThatThrownBy(() -> AclCompatTest.consume(addr, "carol", topic, group))
                .isInstanceOf(TopicAuthorizationException.class);
        acls("--remove", "--force", "--deny-principal", "User:carol", "--operation", "Read", "--topic", topic);
        awaitAcls("User:carol", 3);
        AclCompatTest.produce(addr, "bob", topic);
        assertThat(AclCompatTest.consume(addr, "carol", topic, group)).as("the record after carol's commit")
                .isPositive();

        // removing the prefixed ALLOW takes alice's WRITE away again
        acls("--remove", "--force", "--allow-principal", "User:alice", "--operation", "Write", "--topic", "cli-acl-",
                "--resource-pattern-type", "prefixed");
        awaitAcls("User:alice", 0);
        assertThatThrownBy(() -> AclCompatTest.produce(addr, "alice", topic))
                .hasRootCauseInstanceOf(TopicAuthorizationException.class);

        // a user without ALTER on the cluster cannot run it
        Path alice = commandConfig("alice", AclCompatTest.client(addr, "alice"));
        Tools.Result refused = Tools.kafkaTool(AclCommand.class, "--bootstrap-server", addr, "--command-config",
                alice.toString(), "--add", "--allow-principal", "User:alice", "--operation", "All", "--topic", topic);
        assertThat(refused.out() + refused.err()).contains("ClusterAuthorizationException");
    }

    private static Map<String, Object> scram(String mechanism, String user, String password) {
        return Map.of("security.protocol", "SASL_PLAINTEXT", SaslConfigs.SASL_MECHANISM, mechanism,
                SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required"
                        + " username=\"" + user + "\" password=\"" + password + "\";",
                "default.api.timeout.ms", 5_000, "request.timeout.ms", 4_000);
    }

    /** True when {@code user} logs in with {@code mechanism} and sees the cluster. */
    private static boolean logsIn(String mechanism, String user, String password) {
        Properties p = new Properties();
        p.put("bootstrap.servers", addr);
        p.putAll(scram(mechanism, user, password));
        try (Admin a = Admin.create(p)) {
            a.describeCluster().nodes().get(10, TimeUnit.SECONDS);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    void kafkaConfigsManagesScramUsers() throws Exception {
        // both brokers refuse a request that alters one user twice, even for two mechanisms
        Tools.Result twice = Tools.kafkaTool(ConfigCommand.class, "--bootstrap-server", addr, "--command-config",
                adminConfig.toString(), "--alter", "--entity-type", "users", "--entity-name", "dave", "--add-config",
                "SCRAM-SHA-256=[iterations=8192,password=dave-secret],SCRAM-SHA-512=[password=dave-secret]");
        assertThat(twice.exit()).isNotZero();
        assertThat(twice.out() + twice.err()).contains("DuplicateResourceException");
        configs("--alter", "--entity-type", "users", "--entity-name", "dave", "--add-config",
                "SCRAM-SHA-256=[iterations=8192,password=dave-secret]");
        configs("--alter", "--entity-type", "users", "--entity-name", "dave", "--add-config",
                "SCRAM-SHA-512=[password=dave-secret]");
        Tools.Result described = configs("--describe", "--entity-type", "users", "--entity-name", "dave");
        assertThat(described.out()).contains("SCRAM credential configs for user-principal 'dave' are")
                .contains("SCRAM-SHA-256=iterations=8192").contains("SCRAM-SHA-512=iterations=4096");
        Await.until("dave logs in with SCRAM-SHA-512", Duration.ofSeconds(30),
                () -> logsIn("SCRAM-SHA-512", "dave", "dave-secret"));
        assertThat(logsIn("SCRAM-SHA-256", "dave", "dave-secret")).isTrue();
        assertThat(logsIn("SCRAM-SHA-512", "dave", "wrong")).isFalse();

        configs("--alter", "--entity-type", "users", "--entity-name", "dave", "--delete-config", "SCRAM-SHA-512");
        Await.until("dave's SCRAM-SHA-512 credential is gone", Duration.ofSeconds(30),
                () -> !logsIn("SCRAM-SHA-512", "dave", "dave-secret"));
        assertThat(logsIn("SCRAM-SHA-256", "dave", "dave-secret")).isTrue();
        assertThat(configs("--describe", "--entity-type", "users", "--entity-name", "dave").out())
                .contains("SCRAM-SHA-256=iterations=8192").doesNotContain("SCRAM-SHA-512");
    }

    @Test
    void kafkaConfigsSetsClientQuotasAndAProducerOverItsRateIsThrottled() throws Exception {
        configs("--alter", "--entity-type", "users", "--entity-name", "erin", "--add-config",
                "producer_byte_rate=1024,consumer_byte_rate=2048");
        configs("--alter", "--entity-type", "clients", "--entity-name", "cli-quota-app", "--add-config",
                "request_percentage=50");
        configs("--alter", "--entity-type", "users", "--entity-name", "erin", "--entity-type", "clients",
                "--entity-name", "cli-quota-app", "--add-config", "producer_byte_rate=4096");
        assertThat(configs("--describe", "--entity-type", "users", "--entity-name", "erin").out())
                .contains("Quota configs for user-principal 'erin' are")
                .contains("producer_byte_rate=1024").contains("consumer_byte_rate=2048");
        assertThat(configs("--describe", "--entity-type", "clients", "--entity-name", "cli-quota-app").out())
                .contains("Quota configs for client-id 'cli-quota-app' are request_percentage=50");
        assertThat(configs("--describe", "--entity-type", "users", "--entity-name", "erin", "--entity-type",
                "clients", "--entity-name", "cli-quota-app").out())
                .contains("producer_byte_rate=4096");

        // erin writes about 16 KB at once, over 1 KiB/s: the answer carries a throttle time
        String topic = Groups.unique("cli-quota");
        try (Admin admin = Admin.create(AclCompatTest.client(addr, "admin"))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            Groups.awaitTopic(admin, topic, 1);
        }
        acls("--add", "--producer", "--allow-principal", "User:erin", "--topic", topic);
        awaitAcls("User:erin", 3);
        Properties p = AclCompatTest.client(addr, "erin");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 100);
        KafkaProducer<String, String> producer = new KafkaProducer<>(p);
        try {
            for (int i = 0; i < 16; i++) {
                producer.send(new ProducerRecord<>(topic, "v".repeat(1000)));
            }
            producer.flush();
            Metric throttle = producer.metrics().entrySet().stream()
                    .filter(e -> e.getKey().name().equals("produce-throttle-time-max")).findFirst().orElseThrow()
                    .getValue();
            assertThat((Double) throttle.metricValue()).as("produce-throttle-time-max").isPositive();
        } finally {
            producer.close(Duration.ofSeconds(30));
        }

        configs("--alter", "--entity-type", "users", "--entity-name", "erin", "--delete-config",
                "producer_byte_rate,consumer_byte_rate");
        configs("--alter", "--entity-type", "clients", "--entity-name", "cli-quota-app", "--delete-config",
                "request_percentage");
        assertThat(configs("--describe", "--entity-type", "users", "--entity-name", "erin").out())
                .doesNotContain("producer_byte_rate");
    }
}
