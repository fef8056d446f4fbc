package io.brook.server.security;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677): the hash behind each, the type code
 * AlterUserScramCredentials and DescribeUserScramCredentials use for it, Kafka's bounds on the
 * iteration count, and the key derivations both sides compute.
 */
public enum ScramMechanism {
    SCRAM_SHA_256((byte) 1, "SCRAM-SHA-256", "SHA-256", "HmacSHA256", "PBKDF2WithHmacSHA256"),
    SCRAM_SHA_512((byte) 2, "SCRAM-SHA-512", "SHA-512", "HmacSHA512", "PBKDF2WithHmacSHA512");

    /** Kafka's bounds on a credential's iteration count. */
    public static final int MIN_ITERATIONS = 4096;

    /**
     * The salts Brook makes (for the bootstrap credentials, and the made-up salts of unknown users)
     * look like those Kafka's tools and admin client make: a random number of this many bits,
     * written in base 36 (25 or 26 ASCII characters, rarely fewer), so that a salt's shape does
     * not tell a made-up one from a real one.
     */
    static final int SALT_BITS = 130;

    /** {@code bits} (non-negative, at most {@link #SALT_BITS} bits) as a salt of that shape. */
    static byte[] salt(java.math.BigInteger bits) {
        return bits.toString(Character.MAX_RADIX).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
    public static final int MAX_ITERATIONS = 16384;

    private final byte type;
    private final String mechanismName;
    private final String digest;
    private final String hmac;
    private final String pbkdf2;

    ScramMechanism(byte type, String mechanismName, String digest, String hmac, String pbkdf2) {
        this.type = type;
        this.mechanismName = mechanismName;
        this.digest = digest;
        this.hmac = hmac;
        this.pbkdf2 = pbkdf2;
    }

    public byte type() {
        return type;
    }

    /** The SASL mechanism name, e.g. {@code SCRAM-SHA-256}. */
    public String mechanismName() {
        return mechanismName;
    }

    /** The mechanism of type code {@code type}, or null. */
    public static ScramMechanism ofType(byte type) {
        for (ScramMechanism m : values()) {
            if (m.type == type) {
                return m;
            }
        }
        return null;
    }

    /** The mechanism named {@code name} (as in sasl.enabled.mechanisms), or null. */
    public static ScramMechanism ofName(String name) {
        for (ScramMechanism m : values()) {
            if (m.mechanismName.equals(name.toUpperCase(Locale.ROOT))) {
                return m;
            }
        }
        return null;
    }

    /** Hi(password, salt, i): PBKDF2 with this mechanism's HMAC, as long as its hash. */
    byte[] saltedPassword(String password, byte[] salt, int iterations) {
        try {
            PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, hashLength() * 8);
            return SecretKeyFactory.getInstance(pbkdf2).generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(pbkdf2 + " is missing from this JDK", e);
        }
    }

    /** The stored and server keys of a salted password. */
    ScramCredential credential(byte[] salt, byte[] saltedPassword, int iterations) {
        byte[] clientKey = hmac(saltedPassword, "Client Key".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        byte[] serverKey = hmac(saltedPassword, "Server Key".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        return new ScramCredential(salt.clone(), hash(clientKey), serverKey, iterations);
    }

    byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance(hmac);
            mac.init(new SecretKeySpec(key, hmac));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(hmac + " is missing from this JDK", e);
        }
    }

    byte[] hash(byte[] data) {
        try {
            return MessageDigest.getInstance(digest).digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(digest + " is missing from this JDK", e);
        }
    }

    int hashLength() {
        return this == SCRAM_SHA_256 ? 32 : 64;
    }
}
