package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.MutableClock;
import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.protocol.ApiKey;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The connection limits Kafka lets change at run time ({@code kafka-configs.sh --alter
 * --entity-type brokers}): {@code max.connections.per.ip} and its overrides, {@code max.connections}
 * and {@code max.connection.creation.rate}, a listener's own {@code listener.name.<l>.max.connections},
 * for this broker or as the cluster default. A change
 * applies to the next connections (those open stay), survives a restart, is described as dynamic,
 * and is refused with Kafka's reasons when it could not work. Clients connect from other loopback
 * addresses (127.0.0.2, 127.0.0.3) so that the test's admin client, on 127.0.0.1, is not limited.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DynamicConnectionLimitsTest {

    @TempDir
    Path dir;

    private Brook brook;
    private Admin admin;
    private final List<ProtocolClient> open = new ArrayList<>();
    private final ConfigResource defaults = new ConfigResource(ConfigResource.Type.BROKER, "");
    private final MutableClock clock = new MutableClock(1_000_000L);

    private void start() {
        brook = Brook.builder().port(0).dataDir(dir).clock(clock).start();
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        admin = Admin.create(p);
    }

    private void restart() {
        admin.close();
        brook.close();
        start();
    }

    @AfterEach
    void stop() throws Exception {
        for (ProtocolClient c : open) {
            c.close();
        }
        if (admin != null) {
            admin.close();
        }
        if (brook != null) {
            brook.close();
        }
    }

    private ConfigResource self() {
        return new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(brook.context().nodeId()));
    }

    private void alter(ConfigResource r, AlterConfigOp... ops) throws Exception {
        admin.incrementalAlterConfigs(Map.of(r, List.of(ops))).all().get(30, TimeUnit.SECONDS);
    }

    private static AlterConfigOp set(String key, String value) {
        return new AlterConfigOp(new ConfigEntry(key, value), AlterConfigOp.OpType.SET);
    }

    private static AlterConfigOp delete(String key) {
        return new AlterConfigOp(new ConfigEntry(key, ""), AlterConfigOp.OpType.DELETE);
    }

    /** A new connection from {@code from}: true when it is served, false when the broker closed it. */
    private boolean served(String from) throws Exception {
        return served(brook.bootstrapServers(), from);
    }

    private boolean served(String hostPort, String from) throws Exception {
        ProtocolClient c = connect(hostPort, from);
        c.send(versions(), (short) 3);
        return c.raw().readFrameOrClose() != null;
    }

    private ProtocolClient connect(String from) throws Exception {
        return connect(brook.bootstrapServers(), from);
    }

    private ProtocolClient connect(String hostPort, String from) throws Exception {
        InetSocketAddress to = new InetSocketAddress("127.0.0.1",
                Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1)));
        ProtocolClient c = new ProtocolClient(to, InetAddress.getByName(from));
        open.add(c);
        return c;
    }

    private static boolean servedAgain(ProtocolClient c) throws Exception {
        return c.<ApiVersionsResponse>call(versions(), (short) 3).errorCode() == 0;
    }

    private static ApiVersionsRequest versions() {
        return new ApiVersionsRequest().clientSoftwareName("brook-test").clientSoftwareVersion("1");
    }

    @Test
    void aPerAddressLimitSetAtRunTimeRefusesTheNextConnectionsKeepsTheOpenOnesAndSurvivesARestart() throws Exception {
        start();
        assertThat(served("127.0.0.2")).isTrue();
        assertThat(served("127.0.0.2")).isTrue();

        alter(defaults, set("max.connections.per.ip.overrides", "127.0.0.2:1"));

        assertThat(served("127.0.0.2")).as("a third from 127.0.0.2, over its new limit").isFalse();
        assertThat(servedAgain(open.get(0))).as("those open before the change stay").isTrue();
        assertThat(servedAgain(open.get(1))).isTrue();
        assertThat(served("127.0.0.3")).as("other addresses unaffected").isTrue();
        ConfigEntry described = admin.describeConfigs(List.of(self())).all().get(30, TimeUnit.SECONDS).get(self())
                .get("max.connections.per.ip.overrides");
        assertThat(described.value()).isEqualTo("127.0.0.2:1");
        assertThat(described.isReadOnly()).isFalse();
        assertThat(described.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
        ConfigEntry inDefaults = admin.describeConfigs(List.of(defaults), new DescribeConfigsOptions().includeSynonyms(true))
                .all().get(30, TimeUnit.SECONDS).get(defaults).get("max.connections.per.ip.overrides");
        assertThat(inDefaults.synonyms()).extracting(ConfigEntry.ConfigSynonym::name, ConfigEntry.ConfigSynonym::value,
                ConfigEntry.ConfigSynonym::source).containsExactly(org.assertj.core.groups.Tuple.tuple(
                        "max.connections.per.ip.overrides", "127.0.0.2:1",
                        ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG));

        restart();
        assertThat(served("127.0.0.2")).isTrue();
        assertThat(served("127.0.0.2")).as("the limit kept across the restart").isFalse();

        alter(defaults, delete("max.connections.per.ip.overrides"));
        assertThat(served("127.0.0.2")).as("unbounded again").isTrue();
    }

    @Test
    void maxConnectionsPerIpForThisBrokerWinsOverTheClusterDefault() throws Exception {
        start();
        alter(defaults, set("max.connections.per.ip", "1"), set("max.connections.per.ip.overrides", "127.0.0.1:100"));
        assertThat(served("127.0.0.2")).isTrue();
        assertThat(served("127.0.0.2")).isFalse();
        alter(self(), set("max.connections.per.ip", "3"));
        assertThat(served("127.0.0.2")).isTrue();
        assertThat(served("127.0.0.2")).isTrue();
        assertThat(served("127.0.0.2")).as("the fourth, over this broker's 3").isFalse();
    }

    @Test
    void maxConnectionsSetAtRunTimeRefusesConnectionsBeyondIt() throws Exception {
        start();
        assertThat(served("127.0.0.2")).isTrue();
        // the admin client's connections and the one above are open: no room for another
        alter(self(), set("max.connections", "1"));
        assertThat(served("127.0.0.3")).isFalse();
        assertThat(servedAgain(open.get(0))).isTrue();
        alter(self(), delete("max.connections"));
        assertThat(served("127.0.0.3")).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"max.connection.creation.rate", "listener.name.plaintext.max.connection.creation.rate"})
    void aConnectionCreationRateSetAtRunTimeHoldsTheConnectionsOverIt(String key) throws Exception {
        start();
        alter(self(), set(key, "1"));
        ConfigEntry described = admin.describeConfigs(List.of(self())).all().get(30, TimeUnit.SECONDS).get(self())
                .get(key);
        assertThat(described.value()).isEqualTo("1");
        assertThat(described.isReadOnly()).isFalse();
        for (int i = 0; i < 10; i++) { // 1/s over the 10 s measured, on a clock that does not move
            assertThat(served("127.0.0.2")).isTrue();
        }
        ProtocolClient held = connect("127.0.0.2");
        int id = held.send(versions(), (short) 3);
        held.raw().setReadTimeout(100);
        assertThatThrownBy(held.raw()::readFrame).as("held unread").isInstanceOf(SocketTimeoutException.class);
        held.raw().setReadTimeout(30_000);
        clock.advance(1000);
        assertThat(held.<ApiVersionsResponse>receive(ApiKey.API_VERSIONS, (short) 3, id).errorCode()).isZero();

        alter(self(), delete(key));
        for (int i = 0; i < 20; i++) {
            assertThat(served("127.0.0.3")).as("no rate any more").isTrue();
        }
    }

    @Test
    void aListenersOwnMaxConnectionsFromThePropertiesFileAndAtRunTime() throws Exception {
        brook = Brook.builder().dataDir(dir).clock(clock)
                .config("listeners", "PLAINTEXT://127.0.0.1:0,OTHER://127.0.0.1:0")
                .config("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT")
                .config("listener.name.other.max.connections", "1").start();
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers("PLAINTEXT"));
        admin = Admin.create(p);
        String other = brook.bootstrapServers("OTHER");
        assertThat(served(other, "127.0.0.2")).isTrue();
        assertThat(served(other, "127.0.0.3")).as("over OTHER's own limit, whatever the address").isFalse();
        assertThat(served(brook.bootstrapServers("PLAINTEXT"), "127.0.0.3")).as("another listener").isTrue();
        ConfigEntry configured = admin.describeConfigs(List.of(self())).all().get(30, TimeUnit.SECONDS).get(self())
                .get("listener.name.other.max.connections");
        assertThat(configured.value()).isEqualTo("1");
        assertThat(configured.isReadOnly()).isFalse();

        alter(self(), set("listener.name.other.max.connections", "3"));
        assertThat(served(other, "127.0.0.3")).isTrue();
        assertThat(served(other, "127.0.0.3")).isTrue();
        assertThat(served(other, "127.0.0.3")).as("the fourth, over the new limit of 3").isFalse();
        assertThat(admin.describeConfigs(List.of(self())).all().get(30, TimeUnit.SECONDS).get(self())
                .get("listener.name.other.max.connections").source())
                .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG);
        assertRefused(set("listener.name.other.max.connections", "0"), "Invalid max.connections 0");
    }

    @Test
    void limitsThatCouldNotWorkAreRefusedWithKafkasReasons() throws Exception {
        start();
        assertRefused(set("max.connections", "0"), "Invalid max.connections 0");
        assertRefused(set("max.connection.creation.rate", "0"), "Invalid max.connection.creation.rate 0");
        assertRefused(set("max.connections.per.ip", "0"), "can be 0 only if max.connections.per.ip.overrides is set");
        assertRefused(set("max.connections.per.ip.overrides", "127.0.0.2"), "expected host:count");
        assertRefused(set("max.connections.per.ip", "many"), "max.connections.per.ip");
        assertThat(served("127.0.0.2")).as("nothing of it applied").isTrue();
        // valid together: no address but those listed may connect
        admin.incrementalAlterConfigs(Map.of(defaults, List.of(set("max.connections.per.ip", "0"),
                set("max.connections.per.ip.overrides", "127.0.0.1:100"))), new AlterConfigsOptions().validateOnly(true))
                .all().get(30, TimeUnit.SECONDS);
        assertThat(served("127.0.0.2")).as("validate only: not applied").isTrue();
    }

    private void assertRefused(AlterConfigOp op, String reason) {
        assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(defaults, List.of(op))).all()
                .get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining(reason);
    }
}
