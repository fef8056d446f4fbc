package io.brook.server;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedKeyManager;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client certificate the listener does not trust is refused with the TLS alert the JDK's engine
 * (and so Kafka) sends, {@code certificate_unknown}, on both of Brook's engines: the OpenSSL
 * engine alone would say {@code internal_error}, as if the broker had broken.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientCertificateAlertTest {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "brook.ssl.engine={0}")
    @ValueSource(strings = {"jdk", "openssl"})
    void aCertificateFromAnUnknownCaIsRefusedAsUnknown(String engine) throws Exception {
        Path alice = TestKeyStores.create(dir, "alice", "CN=alice", "dns:alice");
        Path mallory = TestKeyStores.create(dir, "mallory", "CN=mallory", "dns:mallory");
        try (Brook brook = broker(engine, TestKeyStores.trustStore(dir, "trust", alice))) {
            assertThatThrownBy(() -> presenting(mallory, brook.bootstrapServers("SSL")))
                    .isInstanceOf(SSLException.class).hasMessageContaining("certificate_unknown");
        }
    }

    private Brook broker(String engine, Path trustStore) throws Exception {
        Path broker = TestKeyStores.create(dir, "broker", "CN=localhost", "dns:localhost,ip:127.0.0.1");
        return Brook.builder().dataDir(dir.resolve("data"))
                .config("listeners", "SSL://127.0.0.1:0")
                .config("brook.ssl.engine", engine)
                .config(TestKeyStores.serving(broker))
                .config("ssl.truststore.type", "PKCS12")
                .config("ssl.truststore.location", trustStore.toString())
                .config("ssl.truststore.password", TestKeyStores.PASSWORD)
                .config("ssl.client.auth", "required")
                .start();
    }

    /**
     * A TLS 1.3 connection that presents {@code store}'s certificate whatever CAs the broker names,
     * and sends one request: TLS 1.3 reports a refused client certificate only on the first read.
     */
    private static void presenting(Path store, String hostPort) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, TestKeyStores.PASSWORD.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, TestKeyStores.PASSWORD.toCharArray());
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(new KeyManager[] {new Always((X509ExtendedKeyManager) kmf.getKeyManagers()[0])},
                new TrustManager[] {TestKeyStores.trustingAnyServer()}, null);
        String[] hp = hostPort.split(":");
        try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(hp[0], Integer.parseInt(hp[1]))) {
            s.setEnabledProtocols(new String[] {"TLSv1.3"});
            s.setSoTimeout(10_000);
            s.startHandshake();
            s.getOutputStream().write(new byte[] {0, 0, 0, 10, 0, 18, 0, 0, 0, 0, 0, 1, -1, -1});
            s.getOutputStream().flush();
            new DataInputStream(s.getInputStream()).readInt();
        }
    }

    /** A client key manager that offers its one key (alias {@code broker}) to any server. */
    private static final class Always extends X509ExtendedKeyManager {
        private final X509ExtendedKeyManager keys;

        Always(X509ExtendedKeyManager keys) {
            this.keys = keys;
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return new String[] {"broker"};
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return "broker";
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            return "broker";
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return null;
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return keys.getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return keys.getPrivateKey(alias);
        }
    }
}
