package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.Await;
import io.brook.testkit.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.tools.ConfigCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's way to renew a broker's certificate without a restart, with Kafka's own tool:
 * {@code kafka-configs.sh --bootstrap-server ... --entity-type brokers --entity-name 1 --alter
 * --add-config listener.name.ssl.ssl.keystore.location=<new store>}. A stock client that trusts
 * only the new certificate then connects, a producer connected before the change keeps its
 * connection, {@code --describe} shows the setting, and a store for another host (its DN
 * differs) is refused with nothing changed. The broker is the embedded Brook or, under
 * run-against-kafka.sh, the reference Kafka ({@link SecuredBroker}), configured alike.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KeyStoreUpdateCompatTest {

    private static final String PW = TestCertificates.PASSWORD;
    private static final String LOCATION = "listener.name.ssl.ssl.keystore.location";

    @TempDir
    Path dir;

    private static Map<String, Object> sslClient(Path trustStore) {
        Map<String, Object> p = new HashMap<>();
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, trustStore.toString());
        p.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, PW);
        p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
        return p;
    }

    private static Collection<Node> nodes(String bootstrap, Map<String, Object> security) throws Exception {
        Map<String, Object> p = new HashMap<>(security);
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        try (Admin a = Admin.create(p)) {
            return a.describeCluster().nodes().get(30, TimeUnit.SECONDS);
        }
    }

    private static boolean connects(String bootstrap, Map<String, Object> security) {
        try {
            return nodes(bootstrap, security).size() == 1;
        } catch (Exception e) {
            return false;
        }
    }

    private static Tools.Result configs(String bootstrap, String... args) throws Exception {
        String[] all = new String[args.length + 6];
        all[0] = "--bootstrap-server";
        all[1] = bootstrap;
        all[2] = "--entity-type";
        all[3] = "brokers";
        all[4] = "--entity-name";
        all[5] = "1";
        System.arraycopy(args, 0, all, 6, args.length);
        return Tools.kafkaTool(ConfigCommand.class, all);
    }

    @Test
    void kafkaConfigsSwapsTheKeyStoreOfARunningListener() throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        Path first = certs.keyStore("first", "localhost");
        Path renewed = certs.keyStore("renewed", "localhost");
        Path otherHost = certs.keyStore("other-host", "elsewhere");
        Path trustFirst = certs.trustStore("trust-first", first);
        Path trustRenewed = certs.trustStore("trust-renewed", renewed);
        Files.createDirectories(dir.resolve("data"));
        try (SecuredBroker b = SecuredBroker.start(dir.resolve("data"), Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0",
                "ssl.keystore.type", "PKCS12",
                "ssl.keystore.location", first.toString(),
                "ssl.keystore.password", PW))) {
            String plain = b.bootstrapServers("PLAINTEXT");
            String ssl = b.bootstrapServers("SSL");
            String topic = Groups.unique("renewed-cert");
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, plain))) {
                admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
                Groups.awaitTopic(admin, topic, 1);
            }
            assertThatThrownBy(() -> nodes(ssl, sslClient(trustRenewed)))
                    .hasCauseInstanceOf(SslAuthenticationException.class);

            Map<String, Object> producerConfig = sslClient(trustFirst);
            producerConfig.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, ssl);
            producerConfig.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            producerConfig.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            try (KafkaProducer<String, String> before = new KafkaProducer<>(producerConfig)) {
                before.send(new ProducerRecord<>(topic, "before")).get(30, TimeUnit.SECONDS);

                Tools.Result set = configs(plain, "--alter", "--add-config", LOCATION + "=" + renewed);
                assertThat(set.exit()).as("%s%s", set.out(), set.err()).isZero();
                // Kafka applies the update from its metadata log a moment after acknowledging it
                Await.until("new connections get the renewed certificate", Duration.ofSeconds(30),
                        () -> connects(ssl, sslClient(trustRenewed)));
                assertThat(connects(ssl, sslClient(trustFirst))).isFalse();
                // the producer's connection from before the change keeps its session
                before.send(new ProducerRecord<>(topic, "after")).get(30, TimeUnit.SECONDS);
            }

            Tools.Result described = configs(plain, "--describe");
            assertThat(described.exit()).as(described.err()).isZero();
            assertThat(described.out()).contains(LOCATION + "=" + renewed);

            Tools.Result refused = configs(plain, "--alter", "--add-config", LOCATION + "=" + otherHost);
            assertThat(refused.exit()).isNotZero();
            assertThat(refused.out() + refused.err()).contains("DistinguishedName");
            assertThat(connects(ssl, sslClient(trustRenewed))).isTrue();
            assertThat(configs(plain, "--describe").out()).contains(LOCATION + "=" + renewed);
        }
    }
}
