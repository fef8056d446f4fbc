package io.brook.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * A client login handler that hands kafka-clients the token in the file named by the JAAS option
 * {@code tokenFile}, for the principal named by {@code sub}: what Kafka's
 * OAuthBearerLoginCallbackHandler does with a {@code file://} token endpoint, without the Jackson
 * library that handler needs and kafka-clients declares optional.
 */
public final class SignedTokenFileLogin implements AuthenticateCallbackHandler {

    private Path file;
    private String sub;

    @Override
    public void configure(Map<String, ?> configs, String mechanism, List<AppConfigurationEntry> entries) {
        Map<String, ?> options = entries.get(0).getOptions();
        file = Path.of((String) options.get("tokenFile"));
        sub = (String) options.get("sub");
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback c : callbacks) {
            if (!(c instanceof OAuthBearerTokenCallback tc)) {
                throw new UnsupportedCallbackException(c);
            }
            String value;
            try {
                value = Files.readString(file).trim();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            long now = System.currentTimeMillis();
            tc.token(new BasicOAuthBearerToken(value, Set.of(), now + 600_000L, sub, now));
        }
    }

    @Override
    public void close() {
    }
}
