package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.message.SaslAuthenticateRequest;
import io.brook.wire.message.SaslAuthenticateResponse;
import io.brook.wire.message.SaslHandshakeRequest;
import io.brook.wire.protocol.Errors;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.config.SaslConfigs;

/**
 * The ACL tests' broker and clients: a SASL_PLAINTEXT listener with PLAIN users whose password is
 * {@code <user>-secret}, the StandardAuthorizer and {@code admin} as super user.
 */
final class PlainUsers {

    private PlainUsers() {
    }

    /** The ACL tests' broker with {@code admin} and {@code users}. */
    static Brook broker(String... users) {
        StringBuilder jaas = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " user_admin=\"admin-secret\"");
        for (String u : users) {
            jaas.append(" user_").append(u).append("=\"").append(u).append("-secret\"");
        }
        return Brook.builder()
                .config("listeners", "SASL_PLAINTEXT://127.0.0.1:0")
                .config("sasl.enabled.mechanisms", "PLAIN")
                .config("listener.name.sasl_plaintext.plain.sasl.jaas.config", jaas.append(';').toString())
                .config("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
                .config("super.users", "User:admin")
                .start();
    }

    /** A raw client of {@code brook}'s SASL_PLAINTEXT listener, logged in as {@code user}. */
    static ProtocolClient login(Brook brook, String user) throws Exception {
        ProtocolClient c = new ProtocolClient(brook.bootstrapServers("SASL_PLAINTEXT"));
        c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 1);
        SaslAuthenticateResponse a = c.call(new SaslAuthenticateRequest()
                .authBytes(("\0" + user + "\0" + user + "-secret").getBytes(StandardCharsets.UTF_8)), (short) 2);
        assertThat(a.errorCode()).isEqualTo(Errors.NONE.code());
        return c;
    }

    /** A stock client's settings (admin time-outs of 15 and 10 s) for {@code user} at {@code bootstrap}. */
    static Properties client(String bootstrap, String user) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " username=\"" + user + "\" password=\"" + user + "-secret\";");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return p;
    }
}
