package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataResponse;
import io.brook.wire.message.SaslAuthenticateRequest;
import io.brook.wire.message.SaslAuthenticateResponse;
import io.brook.wire.message.SaslHandshakeRequest;
import io.brook.wire.protocol.Errors;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code brook.sasl.authentication.timeout.ms}: a connection to a SASL listener that has not
 * authenticated in time is closed, so that sockets which connect and never log in hold
 * {@code max.connections} slots only that long; an authenticated connection and one to a
 * PLAINTEXT listener live on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SaslAuthenticationTimeoutTest {

    @Test
    void aSaslConnectionThatDoesNotAuthenticateInTimeIsClosed() throws Exception {
        try (Brook brook = Brook.builder()
                .config("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0")
                .config("sasl.enabled.mechanisms", "PLAIN")
                .config("listener.name.sasl_plaintext.plain.sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"alice-secret\";")
                .config("brook.sasl.authentication.timeout.ms", "500")
                .start()) {
            try (ProtocolClient authenticated = new ProtocolClient(brook.bootstrapServers("SASL_PLAINTEXT"));
                    ProtocolClient plaintext = new ProtocolClient(brook.bootstrapServers("PLAINTEXT"))) {
                authenticated.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 1);
                SaslAuthenticateResponse a = authenticated.call(new SaslAuthenticateRequest()
                        .authBytes("\0alice\0alice-secret".getBytes(StandardCharsets.UTF_8)), (short) 2);
                assertThat(a.errorCode()).isEqualTo(Errors.NONE.code());
                try (RawClient silent = new RawClient(address(brook.bootstrapServers("SASL_PLAINTEXT")))) {
                    // opened after the other two: once it is closed, their deadline has passed too
                    assertThat(silent.closedByBroker()).as("closed within the 10 s read time-out").isTrue();
                }
                assertThat(metadata(authenticated).errorCode()).isEqualTo(Errors.NONE.code());
                assertThat(metadata(plaintext).errorCode()).isEqualTo(Errors.NONE.code());
            }
        }
    }

    private static MetadataResponse metadata(ProtocolClient c) throws Exception {
        MetadataResponse m = c.call(new MetadataRequest().topics(List.of()).allowAutoTopicCreation(false), (short) 12);
        assertThat(m.brokers()).isNotEmpty();
        return m;
    }

    private static java.net.InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new java.net.InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }
}
