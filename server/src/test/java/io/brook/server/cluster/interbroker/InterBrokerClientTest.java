package io.brook.server.cluster.interbroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.Brook;
import io.brook.testkit.Await;
import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataResponse;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.Errors;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The inter-broker client against an embedded Brook, and against a peer that never answers. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InterBrokerClientTest {

    private static final InterBrokerSettings FAST = new InterBrokerSettings(2_000, 2, 1_000, 20, 200, 2_000);

    private EventLoopGroup loops;
    private Brook brook;
    private InterBrokerClient client;

    @BeforeEach
    void start() {
        loops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        brook = Brook.builder().start();
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        brook.close();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private InterBrokerClient client(IntFunction<InetSocketAddress> endpoints, InterBrokerSettings settings) {
        client = new InterBrokerClient(loops, NioSocketChannel.class, endpoints, "broker-test", settings);
        return client;
    }

    private IntFunction<InetSocketAddress> brookAsNode1() {
        return id -> id == 1 ? new InetSocketAddress(InetAddress.getLoopbackAddress(), brook.port()) : null;
    }

    private static CompletableFuture<ApiVersionsResponse> apiVersions(InterBrokerClient c, short version) {
        return c.send(1, new ApiVersionsRequest().clientSoftwareName("brook").clientSoftwareVersion("1"), version,
                ApiVersionsResponse::read);
    }

    @Test
    void answersEveryRequestToItsOwnCallerBeyondTheInFlightBound() throws Exception {
        InterBrokerClient c = client(brookAsNode1(), FAST);
        List<CompletableFuture<ApiVersionsResponse>> versions = new ArrayList<>();
        List<CompletableFuture<MetadataResponse>> metadata = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            // v0 answers have a v0 header and no tags, v3 a flexible body: a mismatch would not decode
            versions.add(apiVersions(c, (short) (i % 2 == 0 ? 0 : 3)));
            metadata.add(c.send(1, new MetadataRequest().topics(Collections.emptyList()), (short) 12,
                    MetadataResponse::read));
        }
        for (CompletableFuture<ApiVersionsResponse> f : versions) {
            ApiVersionsResponse r = f.get(10, TimeUnit.SECONDS);
            assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(r.apiKeys()).anyMatch(k -> k.apiKey() == ApiKey.WRITE_TXN_MARKERS.id());
        }
        for (CompletableFuture<MetadataResponse> f : metadata) {
            assertThat(f.get(10, TimeUnit.SECONDS).brokers()).hasSize(1);
        }
        assertThat(c.openConnections()).isEqualTo(1);
    }

    @Test
    void failsAtOnceForANodeWithoutAnEndpoint() {
        InterBrokerClient c = client(brookAsNode1(), FAST);
        CompletableFuture<ApiVersionsResponse> f = c.send(7, new ApiVersionsRequest(), (short) 3,
                ApiVersionsResponse::read);
        assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(InterBrokerException.class).hasMessageContaining("no endpoint");
    }

    @Test
    void timesOutARequestThatIsNeverAnswered() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            InterBrokerClient c = client(id -> new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    silent.getLocalPort()), FAST.withRequestTimeoutMs(300));
            CompletableFuture<ApiVersionsResponse> f = apiVersions(c, (short) 3);
            try (Socket accepted = silent.accept()) {
                assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(InterBrokerException.class)
                        .hasMessageContaining("not answered within 300 ms");
                // and the connection is closed, as Kafka's client closes it
                assertThat(accepted.getInputStream().skip(Long.MAX_VALUE)).isPositive();
                assertThat(accepted.getInputStream().read()).isEqualTo(-1);
            }
        }
    }

    @Test
    void reconnectsOnceTheNodeIsBack() throws Exception {
        InterBrokerClient c = client(brookAsNode1(), FAST);
        assertThat(apiVersions(c, (short) 3).get(10, TimeUnit.SECONDS).errorCode()).isZero();
        brook.stop();
        Await.until("the client sees the node gone", () -> c.openConnections() == 0);
        assertThatThrownBy(() -> apiVersions(c, (short) 3).get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(InterBrokerException.class);
        brook.start();
        Await.until("a request reaches the restarted node", () -> {
            try {
                return apiVersions(c, (short) 3).get(10, TimeUnit.SECONDS).errorCode() == 0;
            } catch (ExecutionException e) {
                return false; // backing off, or the node not accepting yet
            } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(c.openConnections()).isEqualTo(1);
    }

    @Test
    void closeFailsWhatWaitsAndEveryLaterRequest() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            InterBrokerClient c = client(id -> new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    silent.getLocalPort()), FAST.withRequestTimeoutMs(30_000));
            CompletableFuture<ApiVersionsResponse> waiting = apiVersions(c, (short) 3);
            try (Socket accepted = silent.accept()) {
                Await.until("connected", () -> c.openConnections() == 1);
                c.close();
                assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(InterBrokerException.class)
                        .hasMessageContaining("closed");
                assertThatThrownBy(() -> apiVersions(c, (short) 3).get(5, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(InterBrokerException.class);
            }
        }
    }
}
