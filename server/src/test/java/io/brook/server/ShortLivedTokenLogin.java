package io.brook.server;

import io.brook.server.security.JwksTestTokens;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;
import org.apache.kafka.common.security.oauthbearer.internals.secured.BasicOAuthBearerToken;

/**
 * A client login handler that signs a fresh token at each login (with the key of
 * {@link JwksTestTokens#jwks()}, issuer {@code https://issuer}, audience {@code kafka}) for the
 * principal named by the JAAS option {@code sub}, expiring {@code lifetimeSeconds} later (at a
 * whole second, as a JWT's {@code exp} is written), and counts the logins: kafka-clients logs in
 * again before its token expires, as it would fetch a fresh token from a provider.
 */
public final class ShortLivedTokenLogin implements AuthenticateCallbackHandler {

    /** How many tokens were handed out, by every instance (one client per test at a time). */
    static final AtomicInteger LOGINS = new AtomicInteger();

    private String sub;
    private long lifetimeSeconds;

    @Override
    public void configure(Map<String, ?> configs, String mechanism, List<AppConfigurationEntry> entries) {
        Map<String, ?> options = entries.get(0).getOptions();
        sub = (String) options.get("sub");
        lifetimeSeconds = Long.parseLong((String) options.get("lifetimeSeconds"));
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback c : callbacks) {
            if (!(c instanceof OAuthBearerTokenCallback tc)) {
                throw new UnsupportedCallbackException(c);
            }
            long now = System.currentTimeMillis();
            long expS = now / 1000 + lifetimeSeconds;
            String value;
            try {
                value = JwksTestTokens.rs256(sub, "https://issuer", "kafka", expS);
            } catch (Exception e) {
                throw new IllegalStateException("cannot sign a token", e);
            }
            tc.token(new BasicOAuthBearerToken(value, Set.of(), expS * 1000, sub, now));
            LOGINS.incrementAndGet();
        }
    }

    @Override
    public void close() {
    }
}
