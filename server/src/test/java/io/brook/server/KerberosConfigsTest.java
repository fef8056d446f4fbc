package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's Kerberos settings on a broker, which Kafka lets change at run time per broker and
 * librdkafka's own admin tests use as "a valid broker config": Brook has no GSSAPI, but accepts,
 * keeps and describes them as Kafka does (and refuses them in the cluster-wide default scope and
 * with a value not of their type, as Kafka does).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KerberosConfigsTest {

    private static final String RELOGIN = "sasl.kerberos.min.time.before.relogin";

    @TempDir
    java.nio.file.Path dir;

    private Brook brook;
    private Admin admin;
    private ConfigResource self;

    @BeforeEach
    void start() {
        open();
    }

    private void open() {
        brook = Brook.builder().port(0).dataDir(dir).start();
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        admin = Admin.create(p);
        self = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(brook.context().nodeId()));
    }

    @AfterEach
    void stop() {
        admin.close();
        brook.close();
    }

    private ConfigEntry describe(String key) throws Exception {
        return admin.describeConfigs(List.of(self)).all().get().get(self).get(key);
    }

    private void alter(ConfigResource r, String key, String value) throws Exception {
        admin.incrementalAlterConfigs(Map.of(r, List.of(new AlterConfigOp(new ConfigEntry(key, value),
                value == null ? AlterConfigOp.OpType.DELETE : AlterConfigOp.OpType.SET)))).all().get();
    }

    @Test
    void aKerberosSettingIsDescribedChangedPerBrokerKeptAcrossARestartAndDeleted() throws Exception {
        ConfigEntry unset = describe(RELOGIN);
        assertThat(unset.value()).isEqualTo("60000");
        assertThat(unset.source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        assertThat(unset.type()).isEqualTo(ConfigEntry.ConfigType.LONG);
        assertThat(unset.isReadOnly()).isFalse();

        alter(self, RELOGIN, "58000");
        ConfigEntry set = describe(RELOGIN);
        assertThat(set.value()).isEqualTo("58000");
        assertThat(set.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG);

        stop();
        open();
        assertThat(describe(RELOGIN).value()).isEqualTo("58000");

        alter(self, RELOGIN, null);
        assertThat(describe(RELOGIN).source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
    }

    @Test
    void theClusterDefaultScopeAndAValueNotOfItsTypeAreRefusedAsByKafka() {
        ConfigResource defaults = new ConfigResource(ConfigResource.Type.BROKER, "");
        assertThatThrownBy(() -> alter(defaults, RELOGIN, "58000")).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("Cannot update these configs at default cluster level, broker id must be specified: ["
                        + RELOGIN + "]");
        assertThatThrownBy(() -> alter(self, RELOGIN, "soon")).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("Invalid value soon for configuration " + RELOGIN + ": Not a number of type LONG");
    }
}
