package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
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
 * kcat (librdkafka) over TLS and SASL_SSL with SCRAM-SHA-512. The kcat of Debian 12 is built on
 * librdkafka 2.0.2, which repeats the client nonce in its SCRAM client-final message (fixed in
 * librdkafka 2.6.1); Brook accepts that one legacy form. Skipped where kcat is not installed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KcatSecurityCompatTest {

    @TempDir
    static Path dir;
    private static Brook brook;
    private static Path caPem;

    @BeforeAll
    static void start() throws Exception {
        Tools.require(Tools.onPath("kcat") != null, "kcat");
        TestCertificates certs = new TestCertificates(dir);
        Path ks = certs.keyStore("broker", "localhost");
        caPem = dir.resolve("ca.pem");
        Files.writeString(caPem, TestCertificates.certificatePem(ks));
        brook = Brook.builder()
                .config("listeners", "SSL://127.0.0.1:0,SASL_SSL://127.0.0.1:0")
                .config("ssl.keystore.type", "PKCS12")
                .config("ssl.keystore.location", ks.toString())
                .config("ssl.keystore.password", TestCertificates.PASSWORD)
                .config("sasl.enabled.mechanisms", "SCRAM-SHA-512")
                .config("brook.sasl.scram.bootstrap.credentials", "SCRAM-SHA-512=[name=admin,password=admin-secret]")
                .start();
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
        assertThat(m.exit()).as(m.err()).isZero();
        Tools.Result bad = kcat("SASL_SSL", "-X", "security.protocol=sasl_ssl", "-X", "sasl.mechanisms=SCRAM-SHA-512",
                "-X", "sasl.username=admin", "-X", "sasl.password=wrong", "-L");
        assertThat(bad.exit()).isNotZero();
    }
}
