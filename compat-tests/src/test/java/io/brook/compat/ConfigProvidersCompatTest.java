package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.tools.ConfigCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code server.properties} that keeps its secrets and some settings out of itself, through
 * Kafka's config providers: the key store's password from a properties file
 * ({@code FileConfigProvider}, limited by {@code allowed.paths}), {@code num.partitions} from
 * the same file and {@code log.retention.ms} from a file in a directory
 * ({@code DirectoryConfigProvider}, the way Kubernetes mounts a secret). A stock client connects
 * over TLS (so the password was resolved), a topic created without a partition count gets the
 * resolved default, and {@code kafka-configs.sh --describe --all} shows the resolved values and
 * {@code config.providers}, never the password. The broker is the embedded Brook or, under
 * run-against-kafka.sh, the reference Kafka with the same properties ({@link SecuredBroker}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConfigProvidersCompatTest {

    private static final String PROVIDERS = "org.apache.kafka.common.config.provider.";

    @TempDir
    Path dir;

    @Test
    void aServerPropertiesWithVariablesOfTheFileAndDirectoryProviders() throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        Path keyStore = certs.keyStore("broker", "localhost");
        Path trustStore = certs.trustStore("trust", keyStore);
        Path secrets = Files.createDirectory(dir.resolve("secrets"));
        Path file = Files.writeString(secrets.resolve("broker.properties"),
                "keystore.password=" + TestCertificates.PASSWORD + "\npartitions=3\n");
        Path mounted = Files.createDirectory(secrets.resolve("mounted"));
        Files.writeString(mounted.resolve("retention"), "7200000");
        Files.createDirectories(dir.resolve("data"));

        try (SecuredBroker b = SecuredBroker.start(dir.resolve("data"), Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0",
                "config.providers", "file,dir",
                "config.providers.file.class", PROVIDERS + "FileConfigProvider",
                "config.providers.file.param.allowed.paths", secrets.toString(),
                "config.providers.dir.class", PROVIDERS + "DirectoryConfigProvider",
                "ssl.keystore.type", "PKCS12",
                "ssl.keystore.location", keyStore.toString(),
                "ssl.keystore.password", "${file:" + file + ":keystore.password}",
                "num.partitions", "${file:" + file + ":partitions}",
                "log.retention.ms", "${dir:" + mounted + ":retention}"))) {
            String topic = Groups.unique("provided");
            try (Admin admin = Admin.create(Map.<String, Object>of(
                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b.bootstrapServers("SSL"),
                    CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL",
                    SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, trustStore.toString(),
                    SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD,
                    SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12"))) {
                admin.createTopics(List.of(new NewTopic(topic, Optional.empty(), Optional.empty())))
                        .all().get(30, TimeUnit.SECONDS);
                Groups.awaitTopic(admin, topic, 3);
                assertThat(admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                        .get(topic).partitions()).hasSize(3);
            }

            Tools.Result described = Tools.kafkaTool(ConfigCommand.class, "--bootstrap-server",
                    b.bootstrapServers("PLAINTEXT"), "--entity-type", "brokers", "--entity-name", "1", "--describe",
                    "--all");
            assertThat(described.exit()).as(described.err()).isZero();
            assertThat(described.out())
                    .contains("num.partitions=3 sensitive=false")
                    .contains("log.retention.ms=7200000 sensitive=false")
                    .contains("config.providers=file,dir sensitive=false")
                    .doesNotContain(TestCertificates.PASSWORD);
        }
    }
}
