package io.brook.compat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;
import org.apache.kafka.common.security.oauthbearer.internals.secured.BasicOAuthBearerToken;

/**
 * A client login handler that hands kafka-clients an unsigned JWS ({@code alg: none}) for the
 * user named by the JAAS option {@code sub}, valid for an hour. Kafka's own unsecured login
 * handler builds the same token but needs Jackson, which kafka-clients declares optional.
 */
public final class UnsignedTokenLogin implements AuthenticateCallbackHandler {

    private String sub;

    @Override
    public void configure(Map<String, ?> configs, String mechanism, List<AppConfigurationEntry> entries) {
        sub = (String) entries.get(0).getOptions().get("sub");
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback c : callbacks) {
            if (!(c instanceof OAuthBearerTokenCallback tc)) {
                throw new UnsupportedCallbackException(c);
            }
            long now = System.currentTimeMillis();
            String header = b64("{\"alg\":\"none\"}");
            String claims = b64("{\"sub\":\"" + sub + "\",\"iat\":" + now / 1000 + ",\"exp\":" + (now / 1000 + 3600) + "}");
            String value = header + "." + claims + ".";
            tc.token(new BasicOAuthBearerToken(value, Set.of(), now + 3_600_000L, sub, now));
        }
    }

    private static String b64(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
    }
}
