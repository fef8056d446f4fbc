package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.TestCertificates;
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
 * kcat (librdkafka) over TLS, and over SASL_SSL with SCRAM-SHA-512 and with OAUTHBEARER (the
 * unsecured token librdkafka makes itself, checked by the broker's default unsecured validator:
 * an independent implementation of the token and of the client message). The kcat of Debian 12 is built on
 * librdkafka 2.0.2, which repeats the client nonce in its SCRAM client-final message (fixed in
 * librdkafka 2.6.1); Brook accepts that one legacy form, Kafka 4 refuses it (the test expects each
 * broker's answer). The broker is described once ({@link SecuredBroker}). Skipped where kcat is
 * not installed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KcatSecurityCompatTest {

    @TempDir
    static Path dir;
    private static SecuredBroker brook;
    private static Path caPem;

    @BeforeAll
    static void start() throws Exception {
        Tools.require(Tools.onPath("kcat") != null, "kcat");
        TestCertificates.BrokerIdentity tls = new TestCertificates(dir).brokerIdentity();
        caPem = tls.caPem();
        Path data = Files.createDirectories(dir.resolve("broker"));
        brook = SecuredBroker.start(data, tls.settings(
                "listeners", "SSL://127.0.0.1:0,SASL_SSL://127.0.0.1:0",
                "sasl.enabled.mechanisms", "SCRAM-SHA-512,OAUTHBEARER"), "SCRAM-SHA-512=[name=admin,password=admin-secret]");
    }

    @AfterAll
    static void stop() {
        if (brook != null) {
            brook.close();
        }
    }

    private static Tools.Result kcat(String listener, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Tools.onPath("kcat").toString(), "-b",
                brook.bootstrapServers(listener), "-X", "ssl.ca.location=" + caPem, "-m", "20"));
        cmd.addAll(List.of(args));
        return Tools.run(cmd, null, 60);
    }

    /** True for a kcat built on librdkafka before 2.6.1, which repeats the client nonce in SCRAM. */
    private static boolean legacyScramNonce() throws Exception {
        Tools.Result v = Tools.run(List.of(Tools.onPath("kcat").toString(), "-V"), null, 30);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("librdkafka (\\d+)\\.(\\d+)\\.(\\d+)")
                .matcher(v.out() + v.err());
        if (!m.find()) {
            return false;
        }
        int version = Integer.parseInt(m.group(1)) * 10_000 + Integer.parseInt(m.group(2)) * 100
                + Integer.parseInt(m.group(3));
        return version < 20_601;
    }

    @Test
    void producesAndConsumesOverTls() throws Exception {
        Tools.Result p = kcat("SSL", "-X", "security.protocol=ssl", "-P", "-t", "kcat-tls", "-D", "\\n", "-K", ":",
                "-e");
        assertThat(p.exit()).as(p.err()).isZero();
        Tools.Result m = kcat("SSL", "-X", "security.protocol=ssl", "-L");
        assertThat(m.exit()).as(m.err()).isZero();
        assertThat(m.out()).contains(brook.bootstrapServers("SSL").replace("127.0.0.1:", "127.0.0.1:"));
    }

    @Test
    void authenticatesWithScramSha512OverSaslSsl() throws Exception {
        Tools.Result m = kcat("SASL_SSL", "-X", "security.protocol=sasl_ssl", "-X", "sasl.mechanisms=SCRAM-SHA-512",
                "-X", "sasl.username=admin", "-X", "sasl.password=admin-secret", "-L");
        if (brook.kafka() && legacyScramNonce()) {
            // Kafka 4 checks the nonce strictly and refuses this librdkafka's client-final message;
            // Brook accepts that one legacy form (KAFKA-DIFFERENCES.md)
            assertThat(m.exit()).as(m.out()).isNotZero();
            assertThat(m.err()).contains("Authentication failed");
            return;
        }
        assertThat(m.exit()).as(m.err()).isZero();
        Tools.Result bad = kcat("SASL_SSL", "-X", "security.protocol=sasl_ssl", "-X", "sasl.mechanisms=SCRAM-SHA-512",
                "-X", "sasl.username=admin", "-X", "sasl.password=wrong", "-L");
        assertThat(bad.exit()).isNotZero();
    }

    @Test
    void producesAndConsumesWithLibrdkafkasUnsecuredOAuthBearerToken() throws Exception {
        String[] login = {"-X", "security.protocol=sasl_ssl", "-X", "sasl.mechanisms=OAUTHBEARER", "-X",
            "enable.sasl.oauthbearer.unsecure.jwt=true", "-X", "sasl.oauthbearer.config=principal=admin scope=kafka"};
        Path records = Files.writeString(dir.resolve("oauth-records.txt"), "k1:v1\nk2:v2\n");
        List<String> produce = new ArrayList<>(List.of(login));
        produce.addAll(List.of("-P", "-t", "kcat-oauth", "-K", ":", "-l", records.toString()));
        Tools.Result p = kcat("SASL_SSL", produce.toArray(new String[0]));
        assertThat(p.exit()).as(p.err()).isZero();
        List<String> consume = new ArrayList<>(List.of(login));
        consume.addAll(List.of("-C", "-t", "kcat-oauth", "-o", "beginning", "-e", "-f", "%k=%s\\n"));
        Tools.Result c = kcat("SASL_SSL", consume.toArray(new String[0]));
        assertThat(c.exit()).as(c.err()).isZero();
        assertThat(c.out()).contains("k1=v1", "k2=v2");
    }
}
