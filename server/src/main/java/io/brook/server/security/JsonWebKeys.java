package io.brook.server.security;

import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * The public keys of a JSON Web Key Set (RFC 7517), as an OAuth provider publishes them for
 * verifying its tokens' signatures: RSA keys ({@code kty} RSA, {@code n}, {@code e}) and EC keys
 * on P-256, P-384 and P-521 ({@code kty} EC, {@code crv}, {@code x}, {@code y}). Keys meant for
 * something other than signatures ({@code use} other than {@code sig}), of other types, or
 * malformed are left out, as a JWKS consumer skips what it cannot use.
 */
final class JsonWebKeys {

    /** One usable key: its id ({@code kid}, null when absent), type, declared algorithm (or null) and key. */
    record Key(String kid, String kty, String alg, PublicKey key) {
    }

    private final List<Key> keys;

    private JsonWebKeys(List<Key> keys) {
        this.keys = List.copyOf(keys);
    }

    /** Parses a JWKS document; IllegalArgumentException when it is not one. */
    static JsonWebKeys parse(String json) {
        Map<String, Object> doc = FlatJson.parseObject(json);
        if (!(doc.get("keys") instanceof List<?> list)) {
            throw new IllegalArgumentException("not a JWKS: no \"keys\" array");
        }
        List<Key> keys = new ArrayList<>();
        for (Object o : list) {
            if (o instanceof Map<?, ?> m) {
                Key k = key(m);
                if (k != null) {
                    keys.add(k);
                }
            }
        }
        return new JsonWebKeys(keys);
    }

    List<Key> keys() {
        return keys;
    }

    /**
     * The key for a token's {@code kid} and key type: with a kid, the key of that id; without,
     * the one key of that type when there is exactly one. Null when there is none.
     */
    Key find(String kid, String kty) {
        Key only = null;
        int count = 0;
        for (Key k : keys) {
            if (!k.kty().equals(kty)) {
                continue;
            }
            if (kid != null && kid.equals(k.kid())) {
                return k;
            }
            only = k;
            count++;
        }
        return kid == null && count == 1 ? only : null;
    }

    private static Key key(Map<?, ?> m) {
        if (m.get("use") instanceof String use && !use.equals("sig")) {
            return null;
        }
        String kid = m.get("kid") instanceof String s ? s : null;
        String alg = m.get("alg") instanceof String s ? s : null;
        try {
            if ("RSA".equals(m.get("kty")) && m.get("n") instanceof String n && m.get("e") instanceof String e) {
                PublicKey key = KeyFactory.getInstance("RSA").generatePublic(new RSAPublicKeySpec(number(n), number(e)));
                return new Key(kid, "RSA", alg, key);
            }
            if ("EC".equals(m.get("kty")) && m.get("crv") instanceof String crv && m.get("x") instanceof String x
                    && m.get("y") instanceof String y) {
                String curve = switch (crv) {
                    case "P-256" -> "secp256r1";
                    case "P-384" -> "secp384r1";
                    case "P-521" -> "secp521r1";
                    default -> null;
                };
                if (curve == null) {
                    return null;
                }
                AlgorithmParameters params = AlgorithmParameters.getInstance("EC");
                params.init(new ECGenParameterSpec(curve));
                ECParameterSpec spec = params.getParameterSpec(ECParameterSpec.class);
                PublicKey key = KeyFactory.getInstance("EC").generatePublic(
                        new ECPublicKeySpec(new ECPoint(number(x), number(y)), spec));
                return new Key(kid, "EC", alg, key);
            }
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return null;
        }
        return null;
    }

    private static BigInteger number(String base64url) {
        return new BigInteger(1, Base64.getUrlDecoder().decode(base64url));
    }
}
