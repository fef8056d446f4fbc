package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.message.SaslHandshakeRequest;
import io.brook.wire.message.SaslHandshakeResponse;
import io.brook.wire.protocol.Errors;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client that authenticates with raw tokens after a v0 handshake (kafka-python) and whose
 * OAUTHBEARER token is refused gets RFC 7628's error challenge before the connection closes, as
 * from Kafka, so it reports a failed authentication rather than a broker that went away.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OAuthBearerRawTokenTest {

    @Test
    void aRefusedRawTokenGetsTheErrorChallengeThenTheClose() throws Exception {
        try (Brook brook = Brook.builder()
                .config("listeners", "SASL_PLAINTEXT://127.0.0.1:0")
                .config("sasl.enabled.mechanisms", "OAUTHBEARER")
                .config("connection.failed.authentication.delay.ms", "0")
                .config("listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;")
                .start();
                ProtocolClient c = new ProtocolClient(brook.bootstrapServers("SASL_PLAINTEXT"))) {
            SaslHandshakeResponse h = c.call(new SaslHandshakeRequest().mechanism("OAUTHBEARER"), (short) 0);
            assertThat(h.errorCode()).isEqualTo(Errors.NONE.code());
            c.raw().sendFrame(ByteBuffer.wrap("n,,\u0001auth=Bearer not-a-token\u0001\u0001"
                    .getBytes(StandardCharsets.UTF_8)));

            ByteBuffer challenge = c.raw().readFrame();
            assertThat(StandardCharsets.UTF_8.decode(challenge).toString()).isEqualTo("{\"status\":\"invalid_token\"}");
            assertThat(c.raw().closedByBroker()).isTrue();
        }
    }
}
