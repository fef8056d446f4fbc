package io.brook.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Key and trust stores made for a test or a test harness by the JDK's own {@code keytool} (no certificate is
 * committed, none outlives the test: two days of validity). Each identity is a self-signed
 * certificate; a trust store holds the certificates of the identities it trusts. PEM text is
 * written from the PKCS#12 store with the JDK's KeyStore API (PKCS#8 key, X.509 chain).
 */
public final class TestCertificates {

    public static final String PASSWORD = "test-secret";

    private final Path dir;

    public TestCertificates(Path dir) {
        this.dir = dir;
    }

    /** A PKCS12 key store {@code <name>.p12} for {@code CN=<cn>} valid for localhost and 127.0.0.1. */
    public Path keyStore(String name, String cn) throws IOException, InterruptedException {
        Path ks = dir.resolve(name + ".p12");
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + cn,
                "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2", "-keystore", ks.toString(),
                "-storetype", "PKCS12", "-storepass", PASSWORD, "-keypass", PASSWORD);
        return ks;
    }

    /**
     * The broker's identity for the tests of non-Java clients: a key store for localhost, and its
     * certificate written beside it as {@code ca.pem}, the trust anchor those clients take.
     */
    public record BrokerIdentity(Path keyStore, Path caPem) {
        /** The broker settings that name the key store, and then {@code more} (key, value, key, value, ...). */
        public Map<String, String> settings(String... more) {
            if (more.length % 2 != 0) {
                throw new IllegalArgumentException("keys and values in pairs: " + String.join(", ", more));
            }
            Map<String, String> all = new LinkedHashMap<>();
            all.put("ssl.keystore.type", "PKCS12");
            all.put("ssl.keystore.location", keyStore.toString());
            all.put("ssl.keystore.password", PASSWORD);
            for (int i = 0; i < more.length; i += 2) {
                all.put(more[i], more[i + 1]);
            }
            return all;
        }
    }

    /** Makes the {@link BrokerIdentity} ({@code broker.p12} and {@code ca.pem}). */
    public BrokerIdentity brokerIdentity() throws IOException, InterruptedException, GeneralSecurityException {
        Path ks = keyStore("broker", "localhost");
        Path pem = dir.resolve("ca.pem");
        Files.writeString(pem, certificatePem(ks));
        return new BrokerIdentity(ks, pem);
    }

    /** The same key store as JKS, {@code <name>.jks}. */
    public Path asJks(Path p12, String name) throws IOException, InterruptedException {
        Path jks = dir.resolve(name + ".jks");
        keytool("-importkeystore", "-srckeystore", p12.toString(), "-srcstoretype", "PKCS12", "-srcstorepass",
                PASSWORD, "-destkeystore", jks.toString(), "-deststoretype", "JKS", "-deststorepass", PASSWORD,
                "-destkeypass", PASSWORD, "-noprompt");
        return jks;
    }

    /** A PKCS12 trust store {@code <name>.p12} with the certificates of {@code keyStores}. */
    public Path trustStore(String name, Path... keyStores) throws IOException, InterruptedException, GeneralSecurityException {
        Path ts = dir.resolve(name + ".p12");
        int i = 0;
        for (Path ks : keyStores) {
            Path pem = dir.resolve(name + "-" + i + ".pem");
            Files.writeString(pem, certificatePem(ks));
            keytool("-importcert", "-noprompt", "-alias", "cert" + i++, "-file", pem.toString(), "-keystore",
                    ts.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD);
        }
        return ts;
    }

    /** The certificate chain of a PKCS12 key store as PEM. */
    public static String certificatePem(Path p12) throws IOException, GeneralSecurityException {
        KeyStore ks = load(p12);
        StringBuilder out = new StringBuilder();
        for (Certificate c : ks.getCertificateChain(ks.aliases().nextElement())) {
            out.append(pem("CERTIFICATE", c.getEncoded()));
        }
        return out.toString();
    }

    /** The private key of a PKCS12 key store as unencrypted PKCS#8 PEM. */
    public static String privateKeyPem(Path p12) throws IOException, GeneralSecurityException {
        KeyStore ks = load(p12);
        Key key = ks.getKey(ks.aliases().nextElement(), PASSWORD.toCharArray());
        return pem("PRIVATE KEY", key.getEncoded());
    }

    private static KeyStore load(Path p12) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(p12)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        return ks;
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool " + String.join(" ", args) + " failed: " + output);
        }
    }
}
