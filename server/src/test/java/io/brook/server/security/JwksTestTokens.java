package io.brook.server.security;

import java.security.KeyPair;

/** Keys generated for the test run and tokens signed with them, for tests outside this package. */
public final class JwksTestTokens {

    private static final KeyPair UNKNOWN = JwksTokenValidatorTest.generate("RSA", null);

    private JwksTestTokens() {
    }

    /** A JWKS holding the RSA key {@code r1} and the EC key {@code e1}. */
    public static String jwks() {
        return JwksTokenValidatorTest.jwks(JwksTokenValidatorTest.rsaJwk("r1", JwksTokenValidatorTest.RSA),
                JwksTokenValidatorTest.ecJwk("e1", JwksTokenValidatorTest.EC));
    }

    /** A token signed RS256 with {@code r1}. */
    public static String rs256(String sub, String iss, String aud, long exp) throws Exception {
        return JwksTokenValidatorTest.token("RS256", "r1", JwksTokenValidatorTest.RSA.getPrivate(),
                JwksTokenValidatorTest.claims(sub, iss, aud, exp));
    }

    /** A token signed with a key the set does not hold (kid {@code r7}). */
    public static String unknownKey(String sub, String iss, String aud, long exp) throws Exception {
        return JwksTokenValidatorTest.token("RS256", "r7", UNKNOWN.getPrivate(),
                JwksTokenValidatorTest.claims(sub, iss, aud, exp));
    }
}
