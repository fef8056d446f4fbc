package io.brook.compat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
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
 * A client login handler that hands kafka-clients a fresh unsigned JWS ({@code alg: none}) at each
 * login for the user named by the JAAS option {@code sub}, valid for the JAAS option
 * {@code lifetimeSeconds} (default an hour; the expiry falls on a whole second, as a JWT's
 * {@code exp} is written), and counts the logins. Kafka's own unsecured login handler builds the
 * same token but needs Jackson, which kafka-clients declares optional.
 */
public final class UnsignedTokenLogin implements AuthenticateCallbackHandler {

    /** How many tokens were handed out, by every instance (one client per test at a time). */
    static final AtomicInteger LOGINS = new AtomicInteger();

    private String sub;
    private long lifetimeSeconds;

    @Override
    public void configure(Map<String, ?> configs, String mechanism, List<AppConfigurationEntry> entries) {
        Map<String, ?> options = entries.get(0).getOptions();
        sub = (String) options.get("sub");
        Object lifetime = options.get("lifetimeSeconds");
        lifetimeSeconds = lifetime == null ? 3600 : Long.parseLong((String) lifetime);
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback c : callbacks) {
            if (!(c instanceof OAuthBearerTokenCallback tc)) {
                throw new UnsupportedCallbackException(c);
            }
            long now = System.currentTimeMillis();
            long expS = now / 1000 + lifetimeSeconds;
            String header = b64("{\"alg\":\"none\"}");
            String claims = b64("{\"sub\":\"" + sub + "\",\"iat\":" + now / 1000 + ",\"exp\":" + expS + "}");
            String value = header + "." + claims + ".";
            tc.token(new BasicOAuthBearerToken(value, Set.of(), expS * 1000, sub, now));
            LOGINS.incrementAndGet();
        }
    }

    private static String b64(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
    }
}
