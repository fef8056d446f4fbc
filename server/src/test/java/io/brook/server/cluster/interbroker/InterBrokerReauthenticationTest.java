package io.brook.server.cluster.interbroker;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import io.brook.server.config.SecurityProtocol;
import io.brook.server.security.InterBrokerLogin;
import io.brook.testkit.Await;
import io.brook.wire.message.AlterUserScramCredentialsRequest;
import io.brook.wire.message.AlterUserScramCredentialsResponse;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataResponse;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The inter-broker client renewing its session as Kafka's clients do (KIP-368), against an
 * embedded Brook whose SASL_PLAINTEXT listener bounds sessions to 1.5 s
 * ({@code connections.max.reauth.ms}); the broker closes a connection whose session expired at
 * its next request unless it re-authenticates. The client logs in again on the same connection
 * before that, so every request is answered; once its credential is gone the re-authentication
 * fails and so do the next logins.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InterBrokerReauthenticationTest {

    private static final InterBrokerSettings FAST = new InterBrokerSettings(5_000, 2, 1_000, 20, 200, 2_000);

    private EventLoopGroup loops;
    private Brook brook;

    @BeforeEach
    void start() throws Exception {
        loops = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        brook = Brook.builder()
                .config("listeners", "SASL_PLAINTEXT://127.0.0.1:0")
                .config("sasl.enabled.mechanisms", "SCRAM-SHA-512")
                .config("connections.max.reauth.ms", "1500")
                .config("brook.sasl.scram.bootstrap.credentials", "SCRAM-SHA-512=[name=broker,password=broker-secret]")
                .config("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
                .config("super.users", "User:broker")
                .start();
        brook.createTopic("t", 1);
    }

    @AfterEach
    void stop() throws Exception {
        brook.close();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private InterBrokerClient client() {
        InterBrokerLogin login = InterBrokerLogin.of(Map.of(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "SCRAM-SHA-512",
                "sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512",
                "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"broker\""
                        + " password=\"broker-secret\";"), "SASL_PLAINTEXT", SecurityProtocol.SASL_PLAINTEXT);
        InetSocketAddress address = new InetSocketAddress("127.0.0.1", brook.port());
        return new InterBrokerClient(loops, NioSocketChannel.class, id -> address, "broker-9", FAST, login);
    }

    private static MetadataResponse metadata(InterBrokerClient c) throws Exception {
        return c.send(1, new MetadataRequest().topics(null), (short) 12, MetadataResponse::read)
                .get(10, TimeUnit.SECONDS);
    }

    @Test
    void renewsItsSessionOnTheSameConnectionSoEveryRequestIsAnswered() throws Exception {
        try (InterBrokerClient c = client()) {
            assertThat(metadata(c).topics()).isNotEmpty();
            // requests all along: each is answered, none meets a session the broker closed
            Await.until("two re-authentications", Duration.ofSeconds(30), () -> {
                try {
                    assertThat(metadata(c).topics()).isNotEmpty();
                } catch (Exception e) {
                    throw new AssertionError("a request failed across a session renewal", e);
                }
                return c.reauthentications() >= 2;
            });
            assertThat(c.openConnections()).isEqualTo(1);
        }
    }

    @Test
    void aRenewalTheBrokerRefusesClosesTheConnectionAndTheNextLoginFails() throws Exception {
        try (InterBrokerClient c = client()) {
            assertThat(metadata(c).topics()).isNotEmpty();
            AlterUserScramCredentialsResponse removed = c.send(1, new AlterUserScramCredentialsRequest()
                    .deletions(List.of(new AlterUserScramCredentialsRequest.ScramCredentialDeletion()
                            .name("broker").mechanism((byte) 2))), (short) 0, AlterUserScramCredentialsResponse::read)
                    .get(10, TimeUnit.SECONDS);
            assertThat(removed.results()).allSatisfy(r -> assertThat(r.errorCode()).isZero());
            // the session outlives its credential until it is to be renewed; then the login is refused
            Await.until("a request refused for the login", Duration.ofSeconds(30), () -> {
                try {
                    metadata(c);
                    return false;
                } catch (ExecutionException e) {
                    return String.valueOf(e.getCause().getMessage()).contains("refused the login of broker");
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            assertThat(c.reauthentications()).isZero();
        }
    }
}
