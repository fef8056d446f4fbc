package io.brook.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * PKCS12 key stores made for a test by the JDK's {@code keytool}: one self-signed EC certificate
 * each, valid two days, nothing committed.
 */
public final class TestKeyStores {

    public static final String PASSWORD = "test-secret";

    private TestKeyStores() {
    }

    /** The settings of a listener that serves {@code store} (made by {@link #create}). */
    public static java.util.Map<String, String> serving(Path store) {
        return java.util.Map.of("ssl.keystore.type", "PKCS12", "ssl.keystore.location", store.toString(),
                "ssl.keystore.password", PASSWORD);
    }

    /** {@code dir/<name>.p12} for {@code dname} with the subject alternative names {@code san} (keytool's syntax). */
    public static Path create(Path dir, String name, String dname, String san) throws IOException, InterruptedException {
        Path ks = dir.resolve(name + ".p12");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "broker", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", dname,
                "-ext", "SAN=" + san, "-validity", "2", "-keystore", ks.toString(), "-storetype", "PKCS12",
                "-storepass", PASSWORD, "-keypass", PASSWORD));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool failed: " + output);
        }
        return ks;
    }

    /** The certificate of a store made by {@link #create}. */
    public static X509Certificate certificate(Path p12) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(p12)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        return (X509Certificate) ks.getCertificate("broker");
    }

    /** {@code dir/<name>.p12}: a PKCS12 trust store holding the certificate of {@code keyStore}. */
    public static Path trustStore(Path dir, String name, Path keyStore) throws IOException, GeneralSecurityException {
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        ts.setCertificateEntry(name, certificate(keyStore));
        Path out = dir.resolve(name + ".p12");
        try (java.io.OutputStream o = Files.newOutputStream(out)) {
            ts.store(o, PASSWORD.toCharArray());
        }
        return out;
    }

    /** A client's trust manager that accepts any server certificate (the tests check what they are served). */
    public static javax.net.ssl.X509TrustManager trustingAnyServer() {
        return new javax.net.ssl.X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
    }
}
