package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListConfigResourcesOptions;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A consumer group's own settings (Kafka's group configs, KIP-848): the admin client and
 * {@code kafka-configs.sh --entity-type groups} set, describe, list and delete
 * {@code consumer.session.timeout.ms} and {@code consumer.heartbeat.interval.ms}, and values
 * outside the broker's {@code group.consumer.min/max.*} bounds, a session timeout not above the
 * heartbeat interval and unknown names are refused with Kafka's errors. Runs against Kafka too
 * ({@link BrookCluster}); the values used lie within both brokers' bounds.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GroupConfigsCompatTest {

    private static final String SESSION = "consumer.session.timeout.ms";
    private static final String HEARTBEAT = "consumer.heartbeat.interval.ms";

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    private static ConfigResource group(String name) {
        return new ConfigResource(ConfigResource.Type.GROUP, name);
    }

    private static Config describe(Admin admin, String name) throws Exception {
        return admin.describeConfigs(List.of(group(name))).all().get(30, TimeUnit.SECONDS).get(group(name));
    }

    private static void set(Admin admin, String name, String key, String value) throws Exception {
        admin.incrementalAlterConfigs(Map.of(group(name), List.of(new AlterConfigOp(new ConfigEntry(key, value),
                AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
    }

    @Test
    void aGroupsSettingsAreSetDescribedListedAndDeleted() throws Exception {
        try (Admin admin = cluster.admin()) {
            Config before = describe(admin, "tuned");
            assertThat(before.get(SESSION).source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
            // (the heartbeat interval's source is STATIC_BROKER_CONFIG where the broker's file sets it)
            assertThat(before.get(SESSION).type()).isEqualTo(ConfigEntry.ConfigType.INT);

            set(admin, "tuned", SESSION, "50000");
            set(admin, "tuned", HEARTBEAT, "6000");
            Config after = describe(admin, "tuned");
            assertThat(after.get(SESSION).value()).isEqualTo("50000");
            assertThat(after.get(SESSION).source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG);
            assertThat(after.get(HEARTBEAT).value()).isEqualTo("6000");
            assertThat(describe(admin, "other").get(SESSION).source()).as("another group")
                    .isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
            assertThat(admin.listConfigResources(java.util.Set.of(ConfigResource.Type.GROUP),
                    new ListConfigResourcesOptions()).all().get(30, TimeUnit.SECONDS)).contains(group("tuned"));

            admin.incrementalAlterConfigs(Map.of(group("tuned"), List.of(new AlterConfigOp(new ConfigEntry(SESSION, ""),
                    AlterConfigOp.OpType.DELETE)))).all().get(30, TimeUnit.SECONDS);
            Config deleted = describe(admin, "tuned");
            assertThat(deleted.get(SESSION).source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
            assertThat(deleted.get(HEARTBEAT).value()).isEqualTo("6000");
        }
    }

    @Test
    void valuesOutsideTheBrokersBoundsAndUnknownNamesAreRefused() throws Exception {
        try (Admin admin = cluster.admin()) {
            assertThatThrownBy(() -> set(admin, "strict", HEARTBEAT, "100"))
                    .hasCauseInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("consumer.heartbeat.interval.ms must be in the range");
            assertThatThrownBy(() -> set(admin, "strict", SESSION, "70000"))
                    .hasCauseInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("consumer.session.timeout.ms must be in the range 45000 to 60000"
                            + " inclusive.");
            assertThatThrownBy(() -> set(admin, "strict", SESSION, "soon"))
                    .hasCauseInstanceOf(InvalidConfigurationException.class);
            assertThatThrownBy(() -> set(admin, "strict", "consumer.nonsense.ms", "1"))
                    .hasCauseInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("Unknown group config name: consumer.nonsense.ms");
            // validate_only checks without storing
            admin.incrementalAlterConfigs(Map.of(group("strict"), List.of(new AlterConfigOp(
                    new ConfigEntry(SESSION, "50000"), AlterConfigOp.OpType.SET))),
                    new AlterConfigsOptions().validateOnly(true)).all().get(30, TimeUnit.SECONDS);
            assertThat(describe(admin, "strict").get(SESSION).source())
                    .isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        }
    }

    @Test
    void kafkaConfigsSetsAndDescribesAGroupsSettings() throws Exception {
        CliToolsCompatTest.Run set = CliToolsCompatTest.tool("org.apache.kafka.tools.ConfigCommand", "--bootstrap-server",
                cluster.bootstrapServers(), "--entity-type", "groups", "--entity-name", "cli-group", "--alter",
                "--add-config", SESSION + "=55000");
        assertThat(set.exit()).as(set.output()).isZero();
        assertThat(set.output()).contains("Completed updating config for group cli-group.");
        CliToolsCompatTest.Run described = CliToolsCompatTest.tool("org.apache.kafka.tools.ConfigCommand",
                "--bootstrap-server", cluster.bootstrapServers(), "--entity-type", "groups", "--entity-name", "cli-group",
                "--describe");
        assertThat(described.exit()).as(described.output()).isZero();
        assertThat(described.output()).contains("Dynamic configs for group cli-group are:").contains(SESSION + "=55000");
    }
}
