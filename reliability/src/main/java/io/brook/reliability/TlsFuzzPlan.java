package io.brook.reliability;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.net.Socket;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * What the TLS fuzzer's connections are made of: the client identities they present (none, one
 * the broker trusts, one it does not), the ways a client may offer TLS (versions 1.3, 1.2 or
 * both, with or without a server name, with the JDK's cipher suites, one suite, or only suites
 * the broker refuses), the ClientHello records such clients send (recorded from the JDK's engine,
 * the raw seeds of {@link TlsRecordMutator}), and the Kafka requests of {@link FrameCorpus}.
 */
final class TlsFuzzPlan {

    /** A way to offer TLS: protocols, and cipher suites ({@code null} for the JDK's). */
    record Offer(String[] protocols, String[] suites, boolean serverName) {
    }

    /** Offers the broker takes: what the sessions use. */
    static final List<Offer> OFFERS = List.of(
            new Offer(new String[] {"TLSv1.3"}, null, true),
            new Offer(new String[] {"TLSv1.3"}, null, false),
            new Offer(new String[] {"TLSv1.2"}, null, true),
            new Offer(new String[] {"TLSv1.2", "TLSv1.3"}, null, true),
            new Offer(new String[] {"TLSv1.2"}, new String[] {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"}, false),
            new Offer(new String[] {"TLSv1.3"}, new String[] {"TLS_CHACHA20_POLY1305_SHA256"}, true));

    /** Offers the broker refuses (CBC with RSA key exchange, TLS 1.1): only their hellos are sent. */
    static final List<Offer> REFUSED_OFFERS = List.of(
            new Offer(new String[] {"TLSv1.2"}, new String[] {"TLS_RSA_WITH_AES_128_CBC_SHA"}, true),
            new Offer(new String[] {"TLSv1.1"}, null, true));

    private final SSLContext anonymous;
    private final SSLContext trusted;
    private final SSLContext stranger;
    private final List<byte[]> hellos;
    private final List<byte[]> requests;

    /**
     * {@code brokerTrust}: a trust store holding the broker's certificate; {@code trustedKeys} and
     * {@code strangerKeys}: PKCS12 key stores of a client the broker trusts and of one it does not.
     */
    TlsFuzzPlan(Path brokerTrust, Path trustedKeys, Path strangerKeys, String password) throws IOException, GeneralSecurityException {
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(load(brokerTrust, password));
        this.anonymous = context((KeyManager[]) null, trust);
        this.trusted = context(keys(trustedKeys, password), trust);
        this.stranger = context(new KeyManager[] {new AnyIssuer(keys(strangerKeys, password))}, trust);
        this.hellos = new ArrayList<>();
        for (Offer offer : Stream.concat(OFFERS.stream(), REFUSED_OFFERS.stream()).toList()) {
            try {
                hellos.add(TlsSession.clientHello(engine(anonymous, offer, 9093)));
            } catch (IllegalArgumentException | IOException e) {
                // this JDK cannot offer it (TLS 1.1 turned off): the other hellos still stand
            }
        }
        this.requests = FrameCorpus.seeds();
    }

    /** ClientHello records, one per {@link Offer} this JDK can make, refused ones included. */
    List<byte[]> hellos() {
        return hellos;
    }

    /** Valid Kafka requests, framed. */
    List<byte[]> requests() {
        return requests;
    }

    /** A client engine for {@code port} with one of the identities (mostly none or the trusted one) and offers. */
    SSLEngine engine(Random random, int port) {
        int who = random.nextInt(10);
        SSLContext ctx = who < 4 ? anonymous : who < 9 ? trusted : stranger;
        return engine(ctx, OFFERS.get(random.nextInt(OFFERS.size())), port);
    }

    /** A client engine for {@code port} offering TLS 1.2 only, with no certificate or the trusted one. */
    SSLEngine tls12Engine(Random random, int port) {
        List<Offer> tls12 = OFFERS.stream().filter(o -> o.protocols().length == 1 && "TLSv1.2".equals(o.protocols()[0]))
                .toList();
        return engine(random.nextBoolean() ? anonymous : trusted, tls12.get(random.nextInt(tls12.size())), port);
    }

    private static SSLEngine engine(SSLContext ctx, Offer offer, int port) {
        SSLEngine e = offer.serverName() ? ctx.createSSLEngine("localhost", port) : ctx.createSSLEngine();
        e.setUseClientMode(true);
        e.setEnabledProtocols(offer.protocols());
        if (offer.suites() != null) {
            e.setEnabledCipherSuites(offer.suites());
        }
        return e;
    }

    private static SSLContext context(KeyManagerFactory keys, TrustManagerFactory trust) throws GeneralSecurityException {
        return context(keys == null ? null : keys.getKeyManagers(), trust);
    }

    private static SSLContext context(KeyManager[] keys, TrustManagerFactory trust) throws GeneralSecurityException {
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(keys, trust.getTrustManagers(), null);
        return ctx;
    }

    /**
     * The stranger's key manager: offers its certificate whatever issuers the broker asks for
     * (the JDK's own would send none, as the broker names only the issuers it trusts), so that the
     * broker has to refuse a certificate it does not trust.
     */
    private static final class AnyIssuer extends X509ExtendedKeyManager {
        private final X509ExtendedKeyManager keys;
        private final String alias;

        AnyIssuer(KeyManagerFactory factory) {
            this.keys = (X509ExtendedKeyManager) factory.getKeyManagers()[0];
            String[] aliases = keys.getClientAliases("EC", null);
            this.alias = aliases == null || aliases.length == 0 ? null : aliases[0];
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            return alias;
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return alias;
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return keys.getClientAliases(keyType, null);
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return keys.getServerAliases(keyType, issuers);
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return keys.chooseServerAlias(keyType, issuers, socket);
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

    private static KeyManagerFactory keys(Path p12, String password) throws IOException, GeneralSecurityException {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(load(p12, password), password.toCharArray());
        return kmf;
    }

    private static KeyStore load(Path p12, String password) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(p12)) {
            ks.load(in, password.toCharArray());
        }
        return ks;
    }
}
