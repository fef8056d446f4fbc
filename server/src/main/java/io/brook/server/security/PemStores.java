package io.brook.server.security;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Key stores built from PEM text, as Kafka's {@code ssl.keystore.type=PEM} reads it: a key store
 * from one PKCS#8 private key ({@code BEGIN PRIVATE KEY}, or {@code BEGIN ENCRYPTED PRIVATE KEY}
 * decrypted with {@code ssl.key.password}) and its X.509 certificate chain; a trust store from
 * X.509 certificates. Other PEM blocks (PKCS#1 {@code BEGIN RSA PRIVATE KEY}) are refused, as
 * Kafka refuses them.
 */
final class PemStores {

    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*?)-----END \\1-----");
    private static final String[] KEY_ALGORITHMS = {"RSA", "EC", "Ed25519", "Ed448", "DSA"};

    private PemStores() {
    }

    /** A key store holding the key under alias {@code kafka}, protected by {@code password}. */
    static KeyStore keyStore(String pem, char[] keyPassword, char[] storePassword) throws GeneralSecurityException {
        PrivateKey key = null;
        List<Certificate> chain = new ArrayList<>();
        CertificateFactory cf = CertificateFactory.getInstance("X.509");
        Matcher m = BLOCK.matcher(pem);
        while (m.find()) {
            byte[] der = Base64.getMimeDecoder().decode(m.group(2));
            switch (m.group(1)) {
                case "PRIVATE KEY" -> key = privateKey(der);
                case "ENCRYPTED PRIVATE KEY" -> {
                    if (keyPassword == null) {
                        throw new GeneralSecurityException("the private key is encrypted and ssl.key.password is not set");
                    }
                    key = decrypt(der, keyPassword);
                }
                case "CERTIFICATE" -> chain.add(cf.generateCertificate(new ByteArrayInputStream(der)));
                default -> throw new GeneralSecurityException("unsupported PEM block '" + m.group(1)
                        + "' (a private key must be PKCS#8: BEGIN PRIVATE KEY or BEGIN ENCRYPTED PRIVATE KEY)");
            }
        }
        if (key == null) {
            throw new GeneralSecurityException("no private key in the PEM key store");
        }
        if (chain.isEmpty()) {
            throw new GeneralSecurityException("no certificate in the PEM key store");
        }
        KeyStore ks = emptyStore();
        ks.setKeyEntry("kafka", key, storePassword, chain.toArray(new Certificate[0]));
        return ks;
    }

    /** A trust store holding every certificate of {@code pem}. */
    static KeyStore trustStore(String pem) throws GeneralSecurityException {
        KeyStore ks = emptyStore();
        CertificateFactory cf = CertificateFactory.getInstance("X.509");
        Matcher m = BLOCK.matcher(pem);
        int n = 0;
        while (m.find()) {
            if (m.group(1).equals("CERTIFICATE")) {
                byte[] der = Base64.getMimeDecoder().decode(m.group(2));
                ks.setCertificateEntry("kafka" + n++, cf.generateCertificate(new ByteArrayInputStream(der)));
            }
        }
        if (n == 0) {
            throw new GeneralSecurityException("no certificate in the PEM trust store");
        }
        return ks;
    }

    private static KeyStore emptyStore() throws GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try {
            ks.load(null, null);
        } catch (java.io.IOException e) {
            throw new GeneralSecurityException(e);
        }
        return ks;
    }

    private static PrivateKey decrypt(byte[] der, char[] password) throws GeneralSecurityException {
        EncryptedPrivateKeyInfo info;
        try {
            info = new EncryptedPrivateKeyInfo(der);
        } catch (java.io.IOException e) {
            throw new GeneralSecurityException("unreadable encrypted private key", e);
        }
        SecretKeyFactory factory = SecretKeyFactory.getInstance(info.getAlgName());
        Key pbe = factory.generateSecret(new PBEKeySpec(password));
        Cipher cipher = Cipher.getInstance(info.getAlgName());
        cipher.init(Cipher.DECRYPT_MODE, pbe, info.getAlgParameters());
        return privateKey(info.getKeySpec(cipher).getEncoded());
    }

    private static PrivateKey privateKey(byte[] pkcs8) throws GeneralSecurityException {
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
            } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException e) {
                // try the next algorithm
            }
        }
        throw new InvalidKeySpecException("private key of an unsupported algorithm");
    }

    static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}
