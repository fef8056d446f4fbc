package io.brook.bench.runner;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * The key material of the TLS workloads ({@code bench/run --tls}), made at run time by the JDK's
 * {@code keytool} in a directory of the run's own: an EC P-256 key and a self-signed certificate
 * for {@code localhost} and {@code 127.0.0.1} in a PKCS12 key store (the broker's, Brook's and
 * Kafka's alike), and the certificate as PEM (the clients' trust store). Clients connect with
 * {@code security.protocol=SSL} and kafka-clients' defaults otherwise (TLSv1.3, host name
 * verification on). With {@code --sasl} the listener is SASL_SSL instead, and the clients log in
 * with SCRAM-SHA-512 as {@link #SASL_USER} (created before the broker's listeners open: Brook's
 * {@code brook.sasl.scram.bootstrap.credentials}, Kafka's {@code kafka-storage format --add-scram}).
 */
final class TlsSetup {
    static final String PASSWORD = "bench-secret";
    /** The SCRAM user of the SASL_SSL workloads (its password is {@link #PASSWORD}). */
    static final String SASL_USER = "bench";
    static final String SASL_MECHANISM = "SCRAM-SHA-512";

    final Path keyStore;
    final Path certificate;

    private TlsSetup(Path keyStore, Path certificate) {
        this.keyStore = keyStore;
        this.certificate = certificate;
    }

    static TlsSetup create(Path dir) throws IOException, InterruptedException {
        Files2.deleteTree(dir);
        Files.createDirectories(dir);
        Path ks = dir.resolve("broker.p12");
        Path pem = dir.resolve("broker.pem");
        keytool("-genkeypair", "-alias", "broker", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2", "-keystore", ks.toString(),
                "-storetype", "PKCS12", "-storepass", PASSWORD, "-keypass", PASSWORD);
        keytool("-exportcert", "-rfc", "-alias", "broker", "-keystore", ks.toString(), "-storetype", "PKCS12",
                "-storepass", PASSWORD, "-file", pem.toString());
        return new TlsSetup(ks, pem);
    }

    /** The broker's {@code ssl.*} settings (the same for Brook and Kafka). */
    Map<String, String> brokerSettings() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("ssl.keystore.location", keyStore.toString());
        s.put("ssl.keystore.type", "PKCS12");
        s.put("ssl.keystore.password", PASSWORD);
        return s;
    }

    /** A client's settings for the SSL listener at {@code bootstrap}. */
    Map<String, String> clientSettings(String bootstrap) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("bootstrap.servers", bootstrap);
        s.put("security.protocol", "SSL");
        s.put("ssl.truststore.type", "PEM");
        s.put("ssl.truststore.location", certificate.toString());
        return s;
    }

    /** A client's settings for the SASL_SSL listener at {@code bootstrap}: SCRAM-SHA-512 as {@link #SASL_USER}. */
    Map<String, String> saslClientSettings(String bootstrap) {
        Map<String, String> s = clientSettings(bootstrap);
        s.put("security.protocol", "SASL_SSL");
        s.put("sasl.mechanism", SASL_MECHANISM);
        s.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                + SASL_USER + "\" password=\"" + PASSWORD + "\";");
        return s;
    }

    /** The SCRAM user as Kafka's {@code --add-scram} and Brook's bootstrap credentials write it. */
    static String scramCredential() {
        return SASL_MECHANISM + "=[name=" + SASL_USER + ",password=" + PASSWORD + "]";
    }

    /**
     * The protocol and cipher suite a client of this JVM with the JDK's TLS defaults (what
     * kafka-clients uses: SSLContext "TLSv1.3", the JDK's suites in the JDK's order) negotiates
     * with the broker's SSL listener at {@code host:port}, e.g. "TLSv1.3 TLS_AES_128_GCM_SHA256";
     * what went wrong instead when the handshake fails.
     */
    String negotiated(String host, int port) {
        try (InputStream in = Files.newInputStream(certificate)) {
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            trust.setCertificateEntry("broker", CertificateFactory.getInstance("X.509").generateCertificate(in));
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ctx = SSLContext.getInstance("TLSv1.3");
            ctx.init(null, tmf.getTrustManagers(), null);
            try (SSLSocket socket = (SSLSocket) ctx.getSocketFactory().createSocket(host, port)) {
                socket.setSoTimeout(10_000);
                socket.startHandshake();
                SSLSession session = socket.getSession();
                return session.getProtocol() + " " + session.getCipherSuite();
            }
        } catch (IOException | GeneralSecurityException e) {
            return "(handshake failed: " + e + ")";
        }
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool " + args[0] + " failed: " + out.trim());
        }
    }
}
