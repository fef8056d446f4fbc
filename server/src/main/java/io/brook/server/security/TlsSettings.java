package io.brook.server.security;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.TimeUnit;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * One TLS listener's key material and handshake rules, read from Kafka's {@code ssl.*} settings
 * (each one overridable per listener as {@code listener.name.<l>.ssl.*}):
 *
 * <ul>
 * <li>{@code ssl.keystore.type} JKS (default), PKCS12 or PEM, from {@code ssl.keystore.location}
 *     with {@code ssl.keystore.password} (and {@code ssl.key.password} for the key when it
 *     differs), or as PEM text in {@code ssl.keystore.key} and {@code ssl.keystore.certificate.chain};
 * <li>{@code ssl.truststore.type}/{@code .location}/{@code .password}, or PEM text in
 *     {@code ssl.truststore.certificates}: the CAs client certificates are checked against;
 *     without one the JDK's default CAs;
 * <li>{@code ssl.client.auth} none (default), requested or required; on a SASL_SSL listener only
 *     its own {@code listener.name.<l>.ssl.client.auth} counts, as in Kafka (KIP-684);
 * <li>{@code ssl.enabled.protocols} (default TLSv1.2,TLSv1.3) and {@code ssl.cipher.suites}
 *     (default: the engine's), filtered as {@link TlsProtocols} says;
 * <li>{@code ssl.keymanager.algorithm}, {@code ssl.trustmanager.algorithm} (the JDK's defaults);
 * <li>{@code brook.ssl.engine} (Brook's own): which TLS implementation encrypts, {@code openssl}
 *     (BoringSSL through Netty's tcnative; the default), or {@code jdk} (the JDK's
 *     {@code SSLEngine}). Kafka's {@code ssl.provider} names a JCA provider instead and has no
 *     counterpart here.
 * </ul>
 *
 * Immutable; {@link #reloadIfChanged} reads the files again when their modification time, size
 * or inode changed (a file replaced by a rename, as certificate tools do, always counts), which is
 * how a renewed certificate is picked up without a restart. Kafka's way, a dynamic update of
 * {@code listener.name.<l>.ssl.keystore.location} and its siblings, builds new settings through
 * {@link ListenerSecurity#prepareTls}, which also checks them against those in use
 * ({@link #incompatibleWith}).
 */
public final class TlsSettings {

    /** {@code ssl.client.auth}. */
    public enum ClientAuth { NONE, REQUESTED, REQUIRED }

    /** {@code brook.ssl.engine}: the TLS implementation asked for. */
    public enum Engine { OPENSSL, JDK }

    /** The configuration key of {@link Engine}. */
    public static final String ENGINE_CONFIG = "brook.ssl.engine";

    private final ListenerSettings settings;
    private final String listenerName;
    private final boolean sasl;
    private final KeyManagerFactory keyManagers;
    private final TrustManagerFactory trustManagers;
    private final ClientAuth clientAuth;
    private final List<String> protocols;
    private final List<String> cipherSuites;
    private final Engine engine;
    private final List<Path> files;
    private final List<String> stamps;
    private KeyStoreIdentity identity;

    private TlsSettings(ListenerSettings settings, String listenerName, boolean sasl)
            throws GeneralSecurityException, IOException {
        this.settings = settings;
        this.listenerName = listenerName;
        this.sasl = sasl;
        this.files = new ArrayList<>();
        this.keyManagers = loadKeyManagers();
        this.trustManagers = loadTrustManagers();
        // KIP-684: a SASL_SSL listener takes ssl.client.auth only from its own listener.name.<l>. key
        String auth = sasl ? settings.listenerOnly("ssl.client.auth") : settings.get("ssl.client.auth");
        this.clientAuth = clientAuth(auth == null || auth.isBlank() ? "none" : auth.trim());
        List<String> ciphers = list(settings.getOrDefault("ssl.cipher.suites", ""));
        this.cipherSuites = ciphers.isEmpty() ? null : ciphers;
        this.protocols = TlsProtocols.enabled(list(settings.getOrDefault("ssl.enabled.protocols",
                TlsProtocols.TLS_1_2 + "," + TlsProtocols.TLS_1_3)), cipherSuites, listenerName);
        this.engine = engine(settings.getOrDefault(ENGINE_CONFIG, "openssl"));
        this.stamps = stamps(files);
    }

    /** The TLS settings of listener {@code listenerName}; {@code sasl} for a SASL_SSL one. */
    static TlsSettings read(ListenerSettings settings, String listenerName, boolean sasl) {
        try {
            return new TlsSettings(settings, listenerName, sasl);
        } catch (GeneralSecurityException | IOException | RuntimeException e) {
            throw new IllegalArgumentException("Invalid TLS configuration of listener " + listenerName + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * Settings read anew when a key or trust store file changed since these were read, else
     * null; throws when the changed files cannot be used (the caller keeps these).
     */
    public TlsSettings reloadIfChanged() throws GeneralSecurityException, IOException {
        if (files.isEmpty() || stamps(files).equals(stamps)) {
            return null;
        }
        return new TlsSettings(settings, listenerName, sasl);
    }

    /**
     * Null when these settings, read for a dynamic update, may replace {@code current} on a
     * running listener, else why not (Kafka's checks): the key store keeps its certificates'
     * DN and subject alternative names unless {@code ssl.allow.dn.changes} /
     * {@code ssl.allow.san.changes} is true, and a listener without a trust store cannot get one.
     */
    String incompatibleWith(TlsSettings current) {
        if (current.trustManagers == null && trustManagers != null) {
            return "Cannot add SSL truststore to an existing listener for which no truststore was configured.";
        }
        return current.identity.incompatible(identity, flag("ssl.allow.dn.changes"), flag("ssl.allow.san.changes"));
    }

    private boolean flag(String key) {
        String v = settings.getOrDefault(key, "false");
        if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException("Invalid value " + v + " for configuration " + settings.source(key)
                    + ": Expected value to be either true or false");
        }
        return Boolean.parseBoolean(v);
    }

    public KeyManagerFactory keyManagers() {
        return keyManagers;
    }

    /** The trust managers client certificates are checked with; null for the JDK's default CAs. */
    public TrustManagerFactory trustManagers() {
        return trustManagers;
    }

    public ClientAuth clientAuth() {
        return clientAuth;
    }

    public List<String> protocols() {
        return protocols;
    }

    /** The cipher suites to enable, or null for the engine's defaults. */
    public List<String> cipherSuites() {
        return cipherSuites;
    }

    /** The TLS implementation asked for (the network layer falls back to the JDK's when OpenSSL cannot load). */
    public Engine engine() {
        return engine;
    }

    private KeyManagerFactory loadKeyManagers() throws GeneralSecurityException, IOException {
        String type = settings.getOrDefault("ssl.keystore.type", "JKS").toUpperCase(Locale.ROOT);
        String location = settings.get("ssl.keystore.location");
        String password = settings.get("ssl.keystore.password");
        String keyPassword = settings.get("ssl.key.password");
        String inlineKey = settings.get("ssl.keystore.key");
        String inlineChain = settings.get("ssl.keystore.certificate.chain");
        KeyStore ks;
        char[] keyPass;
        if (inlineKey != null && !inlineKey.isBlank()) {
            if (!type.equals("PEM")) {
                throw new GeneralSecurityException("ssl.keystore.key needs ssl.keystore.type=PEM");
            }
            if (inlineChain == null || inlineChain.isBlank()) {
                throw new GeneralSecurityException("ssl.keystore.key needs ssl.keystore.certificate.chain");
            }
            keyPass = new char[0];
            ks = PemStores.keyStore(inlineKey + "\n" + inlineChain, chars(keyPassword), keyPass);
        } else if (location != null && !location.isBlank()) {
            Path path = Path.of(location.trim());
            files.add(path);
            if (type.equals("PEM")) {
                keyPass = new char[0];
                ks = PemStores.keyStore(PemStores.text(Files.readAllBytes(path)), chars(keyPassword), keyPass);
            } else {
                if (password == null) {
                    throw new GeneralSecurityException("ssl.keystore.password is needed for a " + type + " key store");
                }
                ks = load(type, path, password);
                keyPass = chars(keyPassword != null ? keyPassword : password);
            }
        } else {
            throw new GeneralSecurityException("a TLS listener needs ssl.keystore.location (or ssl.keystore.key"
                    + " and ssl.keystore.certificate.chain with ssl.keystore.type=PEM)");
        }
        String algorithm = settings.getOrDefault("ssl.keymanager.algorithm", KeyManagerFactory.getDefaultAlgorithm());
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(algorithm);
        kmf.init(ks, keyPass);
        identity = KeyStoreIdentity.of(ks);
        return kmf;
    }

    private TrustManagerFactory loadTrustManagers() throws GeneralSecurityException, IOException {
        String type = settings.getOrDefault("ssl.truststore.type", "JKS").toUpperCase(Locale.ROOT);
        String location = settings.get("ssl.truststore.location");
        String inline = settings.get("ssl.truststore.certificates");
        KeyStore ts;
        if (inline != null && !inline.isBlank()) {
            ts = PemStores.trustStore(inline);
        } else if (location != null && !location.isBlank()) {
            Path path = Path.of(location.trim());
            files.add(path);
            ts = type.equals("PEM") ? PemStores.trustStore(PemStores.text(Files.readAllBytes(path)))
                    : load(type, path, settings.get("ssl.truststore.password"));
        } else {
            return null;
        }
        String algorithm = settings.getOrDefault("ssl.trustmanager.algorithm", TrustManagerFactory.getDefaultAlgorithm());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(algorithm);
        tmf.init(ts);
        return tmf;
    }

    private static KeyStore load(String type, Path path, String password) throws GeneralSecurityException, IOException {
        KeyStore ks = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(path)) {
            ks.load(in, chars(password));
        }
        return ks;
    }

    private static ClientAuth clientAuth(String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "none" -> ClientAuth.NONE;
            case "requested" -> ClientAuth.REQUESTED;
            case "required" -> ClientAuth.REQUIRED;
            default -> throw new IllegalArgumentException("ssl.client.auth must be none, requested or required: " + value);
        };
    }

    private static Engine engine(String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "openssl" -> Engine.OPENSSL;
            case "jdk" -> Engine.JDK;
            default -> throw new IllegalArgumentException(ENGINE_CONFIG + " must be openssl or jdk: " + value);
        };
    }

    private static List<String> list(String value) {
        List<String> out = new ArrayList<>();
        for (String s : value.split(",")) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return List.copyOf(out);
    }

    private static char[] chars(String s) {
        return s == null ? null : s.toCharArray();
    }

    private static List<String> stamps(List<Path> files) {
        List<String> out = new ArrayList<>(files.size());
        for (Path p : files) {
            try {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                out.add(a.lastModifiedTime().to(TimeUnit.NANOSECONDS) + "/" + a.size() + "/" + a.fileKey());
            } catch (IOException e) {
                out.add("missing");
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return "TLS(engine=" + engine + ", clientAuth=" + clientAuth + ", protocols=" + protocols + ", files=" + files + ")";
    }
}
