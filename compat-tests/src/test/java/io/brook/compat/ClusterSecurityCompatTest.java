package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ACLs and SCRAM credentials in a cluster of three Brook processes (the example nodes of
 * docs/cluster.md section 11, each with a SASL_PLAINTEXT listener that is also the inter-broker
 * listener, and the StandardAuthorizer, as section 10a shows; only node 1 names the first
 * administrator): a user made through node 1 logs in on node 3, with the Java clients and with
 * kcat, an ACL made through node 2 lets it write through node 3, a transaction over partitions
 * every node leads commits (its markers sent between the nodes over SCRAM), and the user and ACL
 * survive node 3's restart (the metadata log on its disk). Skipped against an external cluster.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ClusterSecurityCompatTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Pattern SASL_LISTENER = Pattern.compile("SASL_PLAINTEXT://([^,]+)");

    @RegisterExtension
    static final ProcessClusterExtension NODES = new ProcessClusterExtension("cluster-security",
            ClusterSecurityCompatTest::secure);

    private static ProcessCluster cluster;

    /**
     * Section 10a's settings: a SASL listener on every node, which the nodes also log in to each
     * other on as {@code broker} (the only super user besides the administrator: the PLAINTEXT
     * listener, which the harness probes nodes on, is no one's); the first administrator on node 1 only.
     */
    static void secure(int id, Properties p) {
        p.setProperty("listeners", p.getProperty("listeners") + ",SASL_PLAINTEXT://127.0.0.1:" + ProcessCluster.freePort());
        p.setProperty("listener.security.protocol.map",
                p.getProperty("listener.security.protocol.map") + ",SASL_PLAINTEXT:SASL_PLAINTEXT");
        p.setProperty("inter.broker.listener.name", "SASL_PLAINTEXT");
        p.setProperty("sasl.enabled.mechanisms", "SCRAM-SHA-512");
        p.setProperty("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
        p.setProperty("listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"broker\""
                        + " password=\"broker-secret\";");
        p.setProperty("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        p.setProperty("super.users", "User:admin;User:broker");
        p.setProperty("brook.sasl.scram.bootstrap.credentials", "SCRAM-SHA-512=[name=broker,password=broker-secret]"
                + (id == 1 ? ";SCRAM-SHA-512=[name=admin,password=admin-secret]" : ""));
    }

    @BeforeAll
    static void cluster() {
        cluster = NODES.cluster();
    }

    private static String sasl(int node) {
        Matcher m = SASL_LISTENER.matcher(cluster.properties(node).getProperty("listeners"));
        assertThat(m.find()).isTrue();
        return m.group(1);
    }

    private static Properties scram(int node, String user, String password) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, sasl(node));
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512");
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"" + user + "\" password=\"" + password + "\";");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        return p;
    }

    /** Whether {@code user} logs in on {@code node}. */
    private static boolean logsIn(int node, String user, String password) {
        try (Admin a = Admin.create(scram(node, user, password))) {
            a.describeCluster().clusterId().get(20, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SaslAuthenticationException) {
                return false;
            }
            throw new AssertionError(e);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static boolean writes(int node, String topic) {
        Properties p = scram(node, "bob", "bob-secret");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.send(new ProducerRecord<>(topic, "k", "v")).get(30, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicAuthorizationException) {
                return false;
            }
            throw new AssertionError(e);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aUserAndItsAclsMadeThroughOneNodeHoldOnEveryNode() throws Exception {
        cluster.awaitAllServing(WAIT);
        // The first administrator, named by node 1 alone, reaches the other nodes through the log;
        // the admin client below may send its requests to any of them (CreateTopics goes to the
        // controller), so it waits until every node knows the administrator.
        for (int node = 1; node <= 3; node++) {
            int n = node;
            Groups.await(WAIT, "the first administrator, named by node 1 alone, to log in on node " + n,
                    () -> logsIn(n, "admin", "admin-secret"));
        }
        String topic = Groups.unique("secured");
        try (Admin admin = Admin.create(scram(1, "admin", "admin-secret"))) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("bob",
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "bob-secret")))
                    .all().get(30, TimeUnit.SECONDS);
        }
        Groups.await(WAIT, "bob to log in on node 3", () -> logsIn(3, "bob", "bob-secret"));
        assertThat(writes(3, topic)).as("no ACL yet").isFalse();

        try (Admin admin = Admin.create(scram(2, "admin", "admin-secret"))) {
            admin.createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                    new AccessControlEntry("User:bob", "*", AclOperation.WRITE, AclPermissionType.ALLOW))))
                    .all().get(30, TimeUnit.SECONDS);
        }
        Groups.await(WAIT, "bob to write through node 3", () -> writes(3, topic));
        kcatLogsIn(3);

        transactionAcrossTheNodes(topic);

        cluster.stop(3);
        cluster.restart(3);
        assertThat(logsIn(3, "bob", "bob-secret")).as("after node 3's restart").isTrue();
        assertThat(writes(3, topic)).as("after node 3's restart").isTrue();
        assertThat(logsIn(3, "bob", "wrong")).isFalse();
    }

    /**
     * A transaction of the administrator's over the topic's partitions, led by every node: its
     * writes are verified with the coordinator and its markers written through the inter-broker
     * client, which logs in to the other nodes as {@code broker}; a read_committed consumer reads it.
     */
    private static void transactionAcrossTheNodes(String topic) throws Exception {
        Properties p = scram(1, "admin", "admin-secret");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, Groups.unique("secured-txn"));
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 60_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int partition = 0; partition < 3; partition++) {
                producer.send(new ProducerRecord<>(topic, partition, "k", "committed-" + partition));
            }
            producer.commitTransaction();
        }
        Properties c = scram(1, "admin", "admin-secret");
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<String> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
            List<TopicPartition> tps = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1),
                    new TopicPartition(topic, 2));
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Groups.await(WAIT, "the committed transaction read back", () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> read.add(r.value()));
                return read.stream().filter(v -> v.startsWith("committed-")).count() == 3;
            });
        }
    }

    /** kcat (librdkafka), an independent client, logs in as bob on {@code node} (the test is skipped without kcat). */
    private static void kcatLogsIn(int node) throws Exception {
        Tools.require(Tools.onPath("kcat") != null, "kcat");
        List<String> cmd = new ArrayList<>(List.of(Tools.onPath("kcat").toString(), "-b", sasl(node), "-m", "20",
                "-X", "security.protocol=sasl_plaintext", "-X", "sasl.mechanisms=SCRAM-SHA-512",
                "-X", "sasl.username=bob", "-X", "sasl.password=bob-secret", "-L"));
        Tools.Result m = Tools.run(cmd, null, 60);
        assertThat(m.exit()).as(m.err()).isZero();
    }
}
