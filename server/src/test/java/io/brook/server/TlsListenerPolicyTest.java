package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TLS listener configured as for Kafka gets what Kafka's JDK engine would give it, on Brook's
 * default OpenSSL engine: the broker-wide {@code ssl.client.auth} does not apply to SASL_SSL
 * listeners (KIP-684); a cipher suite OpenSSL lacks does not stop the start; a suite list without
 * TLS 1.3 suites turns TLS 1.3 off; TLSv1 and TLSv1.1 are never offered.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsListenerPolicyTest {

    private static final String GCM = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256";
    private static final String CHACHA = "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256";

    @TempDir
    Path dir;

    @Test
    void aKafkaTlsConfigurationGetsWhatKafkaWouldServe() throws Exception {
        Path store = TestKeyStores.create(dir, "broker", "CN=localhost", "dns:localhost,ip:127.0.0.1");
        try (Brook brook = Brook.builder().dataDir(dir.resolve("data"))
                .config("listeners", "SSL://127.0.0.1:0,SASL_SSL://127.0.0.1:0")
                .config("sasl.enabled.mechanisms", "PLAIN")
                .config("listener.name.sasl_ssl.plain.sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required user_bob=\"bob-secret\";")
                .config(TestKeyStores.serving(store))
                .config("ssl.client.auth", "required")
                .config("ssl.enabled.protocols", "TLSv1,TLSv1.1,TLSv1.2,TLSv1.3")
                // 3DES: a suite the JDK knows and BoringSSL does not
                .config("ssl.cipher.suites", "TLS_RSA_WITH_3DES_EDE_CBC_SHA," + GCM)
                .start()) {
            // the SSL listener takes the broker-wide setting: no certificate, no connection
            assertThatThrownBy(() -> handshake(brook.bootstrapServers("SSL"))).isInstanceOf(IOException.class);
            // the SASL_SSL listener does not (its own listener.name.sasl_ssl.ssl.client.auth would)
            try (SSLSocket s = handshake(brook.bootstrapServers("SASL_SSL"))) {
                assertThat(s.getSession().getProtocol()).isEqualTo("TLSv1.2");
                assertThat(s.getSession().getCipherSuite()).isEqualTo(GCM);
            }
        }
    }

    /**
     * Without {@code ssl.cipher.suites} a TLS 1.2 client gets the JDK's default suites, as from
     * Kafka: ChaCha20-Poly1305 among them, which Netty's shorter default list lacks.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "brook.ssl.engine={0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"jdk", "openssl"})
    void withoutACipherSuiteListTheJdksDefaultsAreServed(String engine) throws Exception {
        Path store = TestKeyStores.create(dir, "broker", "CN=localhost", "dns:localhost,ip:127.0.0.1");
        try (Brook brook = Brook.builder().dataDir(dir.resolve("data"))
                .config("listeners", "SSL://127.0.0.1:0")
                .config("brook.ssl.engine", engine)
                .config(TestKeyStores.serving(store))
                .start()) {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[] {TestKeyStores.trustingAnyServer()}, null);
            String[] hp = brook.bootstrapServers("SSL").split(":");
            try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(hp[0], Integer.parseInt(hp[1]))) {
                s.setEnabledProtocols(new String[] {"TLSv1.2"});
                s.setEnabledCipherSuites(new String[] {CHACHA});
                s.startHandshake();
                assertThat(s.getSession().getCipherSuite()).isEqualTo(CHACHA);
            }
        }
    }

    /** A TLS connection without a client certificate, trusting any server, TLS 1.2 and 1.3 offered. */
    private static SSLSocket handshake(String hostPort) throws Exception {
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, new TrustManager[] {TestKeyStores.trustingAnyServer()}, null);
        String[] hp = hostPort.split(":");
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(hp[0], Integer.parseInt(hp[1]));
        try {
            s.setEnabledProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
            s.startHandshake();
            // TLS 1.3 reports a refused client certificate only on the first read
            s.setSoTimeout(10_000);
            s.getOutputStream().write(new byte[] {0, 0, 0, 10, 0, 18, 0, 0, 0, 0, 0, 1, -1, -1});
            s.getOutputStream().flush();
            int length = new java.io.DataInputStream(s.getInputStream()).readInt();
            assertThat(length).isPositive();
            return s;
        } catch (Exception e) {
            s.close();
            throw e;
        }
    }
}
