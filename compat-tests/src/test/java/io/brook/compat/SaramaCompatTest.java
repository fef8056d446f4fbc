package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.TestCertificates;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sarama (Debian's {@code golang-github-shopify-sarama-dev} 1.22.1, with
 * {@code golang-github-xdg-go-scram-dev} for SCRAM; {@code .ci/run} installs them and Go), a
 * client written from the protocol in Go, driven by {@code src/test/go/sarama_client.go}, which
 * this test builds: an idempotent producer with every codec (zstd refused, as by Kafka: Sarama
 * 1.22 sends Produce v3, and zstd needs v7), its partition consumer and its
 * offset manager on a PLAINTEXT listener, and SCRAM-SHA-256/512, PLAIN, OAUTHBEARER and ACLs over
 * SASL_SSL. Sarama 1.22 speaks Kafka 2.1's request versions, the oldest Kafka 4 serves, so this
 * also holds Brook to the oldest versions it must still answer. The broker is described once
 * ({@link SecuredBroker}), so the same test runs against Kafka. Skipped locally, failed in CI,
 * when Go or the Sarama sources are missing.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SaramaCompatTest {

    private static final Path SOURCE = Path.of("src", "test", "go", "sarama_client.go");
    /** Where Debian's Go library packages install their sources, for Go's GOPATH mode. */
    private static final Path GOPATH = Path.of("/usr/share/gocode");

    @TempDir
    static Path dir;
    private static SecuredBroker broker;
    private static Path client;
    private static Path caPem;

    @BeforeAll
    static void start() throws Exception {
        Path go = Tools.onPath("go");
        Tools.require(go != null && Files.isDirectory(GOPATH.resolve("src/github.com/Shopify/sarama"))
                        && Files.isDirectory(GOPATH.resolve("src/github.com/xdg-go/scram")),
                "Go with Sarama and xdg-go/scram (golang-go, golang-github-shopify-sarama-dev,"
                        + " golang-github-xdg-go-scram-dev)");
        client = dir.resolve("sarama-client");
        // the build cache under target/ keeps a second run from compiling the zstd codec's C again
        Tools.Result build = Tools.run(List.of("env", "GO111MODULE=off", "GOFLAGS=", "GOPATH=" + GOPATH,
                "GOCACHE=" + Path.of("target", "go-build").toAbsolutePath(),
                go.toString(), "build", "-o", client.toString(), SOURCE.toString()), null, 180);
        assertThat(build.exit()).as(build.err()).isZero();

        TestCertificates.BrokerIdentity tls = new TestCertificates(dir).brokerIdentity();
        caPem = tls.caPem();
        Path data = Files.createDirectories(dir.resolve("broker"));
        broker = SecuredBroker.forClientPrograms(data, tls);
        // The first group on a fresh broker creates __consumer_offsets; Kafka then answers
        // NOT_COORDINATOR for a few seconds while it loads the partitions, longer than Sarama
        // 1.22's offset manager retries (10 times, 200 ms apart). The admin client waits that out.
        try (Admin admin = Groups.admin(broker.bootstrapServers("PLAINTEXT"))) {
            admin.listConsumerGroupOffsets(Groups.unique("sarama-warm-up")).partitionsToOffsetAndMetadata()
                    .get(60, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static Tools.Result sarama(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(client.toString()));
        cmd.addAll(List.of(args));
        return Tools.run(cmd, null, 150);
    }

    @Test
    void idempotentProducerEveryCodecPartitionConsumerAndOffsets() throws Exception {
        String topic = Groups.unique("sarama");
        Tools.Result r = sarama("plain", broker.bootstrapServers("PLAINTEXT"), topic, Groups.unique("sarama-group"));
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("create 0\n")
                .contains("produced none 10\n", "produced gzip 10\n", "produced snappy 10\n", "produced lz4 10\n")
                // Sarama 1.22 sends Produce v3; zstd needs v7 (UNSUPPORTED_COMPRESSION_TYPE), as on Kafka
                .contains("produced zstd refused 76\n")
                .contains("consumed 40\n", "intact 40\n", "committed 40\n", "end-offsets 40\n")
                .contains("deleted yes\n");
    }

    @Test
    void scramPlainOauthAndAclsOverSaslSsl() throws Exception {
        String bootstrap = broker.bootstrapServers("SASL_SSL").replace("127.0.0.1", "localhost");
        Tools.Result r = sarama("secure", bootstrap, caPem.toString(), Groups.unique("sarama-secure"),
                Groups.unique("sarama-secure-group"));
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("admin-create 0\n")
                .contains("carol-create 29\n") // TOPIC_AUTHORIZATION_FAILED: carol has no CREATE
                .contains("acls-created 4\n", "topic-acls 3\n", "alice-offsets 0,1,2\n", "carol-read r0,r1,r2\n",
                        "carol-committed 3\n", "dave-offset 3\n")
                .contains("wrong-password refused");
    }
}
