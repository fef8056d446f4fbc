package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.tools.ConfigCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A connection limit changed at run time with {@code kafka-configs.sh --alter --entity-type brokers
 * --entity-default}, as an operator does during a connection storm: with
 * {@code max.connections.per.ip.overrides=127.0.0.2:1}, a second connection from 127.0.0.2 is
 * closed on accept while the first is still served, and other addresses are not limited; deleting
 * the setting lifts the limit. Connections are made from 127.0.0.2 and 127.0.0.3 (loopback
 * addresses) so that the tool itself, on 127.0.0.1, is never refused. Against Kafka the change
 * reaches the broker through its metadata a moment after the tool returns, hence the waits.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConnectionLimitsCompatTest {

    private static final String KEY = "max.connections.per.ip.overrides";
    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    private static Tools.Result configs(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", cluster.bootstrapServers(), "--entity-type",
                "brokers", "--entity-default"));
        all.addAll(List.of(args));
        Tools.Result r = Tools.kafkaTool(ConfigCommand.class, all.toArray(String[]::new));
        assertThat(r.exit()).as("kafka-configs %s: %s%s", List.of(args), r.out(), r.err()).isZero();
        return r;
    }

    /** A connection from {@code from} that has been answered once. */
    private static RawKafkaRequests served(String from) throws IOException {
        RawKafkaRequests c = new RawKafkaRequests(cluster.bootstrapServers(), InetAddress.getByName(from));
        assertThat(answers(c)).isTrue();
        return c;
    }

    private static boolean answers(RawKafkaRequests c) {
        try {
            ApiVersionsResponse r = (ApiVersionsResponse) c.call(new ApiVersionsRequest.Builder(
                    new ApiVersionsRequestData().setClientSoftwareName("compat").setClientSoftwareVersion("1"),
                    (short) 3, (short) 3).build());
            return r.data().errorCode() == 0;
        } catch (IOException e) {
            return false; // closed by the broker
        }
    }

    /** Whether a new connection from {@code from} is served (it is closed again either way). */
    private static boolean newConnectionServed(String from) {
        try (RawKafkaRequests c = new RawKafkaRequests(cluster.bootstrapServers(), InetAddress.getByName(from))) {
            return answers(c);
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void kafkaConfigsLimitsTheConnectionsOfOneAddressAtRunTime() throws Exception {
        try (RawKafkaRequests first = served("127.0.0.2")) {
            configs("--alter", "--add-config", KEY + "=127.0.0.2:1");
            try {
                Await.until("a second connection from 127.0.0.2 refused", Duration.ofSeconds(30),
                        () -> !newConnectionServed("127.0.0.2"));
                assertThat(answers(first)).as("the connection open before the change").isTrue();
                assertThat(newConnectionServed("127.0.0.3")).as("another address").isTrue();
                assertThat(configs("--describe").out()).contains(KEY + "=127.0.0.2:1");
            } finally {
                configs("--alter", "--delete-config", KEY);
            }
            Await.until("127.0.0.2 unlimited again", Duration.ofSeconds(30), () -> newConnectionServed("127.0.0.2"));
        }
    }
}
