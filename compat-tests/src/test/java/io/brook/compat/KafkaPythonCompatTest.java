package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.TestCertificates;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-python (Debian's {@code python3-kafka} 2.0.2, a third protocol implementation beside the
 * Java client and librdkafka, with the codec modules {@code python3-snappy}, {@code python3-lz4}
 * and {@code python3-zstandard}; {@code .ci/run} installs them) driven by
 * {@code src/test/python/kafka_python_client.py}: admin, every codec, a consumer group and its
 * offsets on a PLAINTEXT listener, and SCRAM-SHA-256/512, PLAIN, OAUTHBEARER and ACLs over SASL_SSL. The
 * broker is described once ({@link SecuredBroker}), so the same test runs against Kafka.
 * Skipped locally, failed in CI, when Debian's python3 cannot import the modules.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KafkaPythonCompatTest {

    private static final Path SCRIPT = Path.of("src", "test", "python", "kafka_python_client.py");
    private static final String MODULES = "import kafka, snappy, lz4, zstandard";

    @TempDir
    static Path dir;
    private static SecuredBroker broker;
    private static Path python;
    private static Path caPem;

    @BeforeAll
    static void start() throws Exception {
        python = Path.of("/usr/bin/python3"); // where Debian's packages install the modules
        Tools.require(Files.isExecutable(python)
                && Tools.run(List.of(python.toString(), "-c", MODULES), null, 30).exit() == 0,
                "/usr/bin/python3 with kafka-python and its codecs (python3-kafka, python3-snappy, python3-lz4,"
                        + " python3-zstandard)");
        TestCertificates.BrokerIdentity tls = new TestCertificates(dir).brokerIdentity();
        caPem = tls.caPem();
        Path data = Files.createDirectories(dir.resolve("broker"));
        broker = SecuredBroker.forClientPrograms(data, tls);
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static Tools.Result script(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(python.toString(), SCRIPT.toString()));
        cmd.addAll(List.of(args));
        return Tools.run(cmd, null, 150);
    }

    @Test
    void adminEveryCodecAndAConsumerGroup() throws Exception {
        String topic = Groups.unique("kafka-python");
        Tools.Result r = script("plain", broker.bootstrapServers("PLAINTEXT"), topic, Groups.unique("kafka-python-group"));
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("create 0\n")
                .contains("produced none 10\n", "produced gzip 10\n", "produced snappy 10\n", "produced lz4 10\n",
                        "produced zstd 10\n")
                .contains("consumed 50\n", "intact 50\n", "group-state Empty\n", "committed 50\n", "end-offsets 50\n")
                .contains("deleted yes\n");
    }

    @Test
    void scramPlainAndAclsOverSaslSsl() throws Exception {
        String bootstrap = broker.bootstrapServers("SASL_SSL").replace("127.0.0.1", "localhost");
        Tools.Result r = script("secure", bootstrap, caPem.toString(), Groups.unique("kafka-python-secure"),
                Groups.unique("kafka-python-secure-group"));
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("admin-create 0\n")
                .contains("carol-create 29\n") // TOPIC_AUTHORIZATION_FAILED: carol has no CREATE
                .contains("acls-created 4\n", "alice-offsets 0,1,2\n", "carol-read r0,r1,r2\n", "dave-offset 3\n")
                .contains("wrong-password refused");
    }
}
