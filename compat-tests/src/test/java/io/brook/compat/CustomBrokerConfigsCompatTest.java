package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Broker settings the broker does not define (custom settings, as plug-ins read them), set at run
 * time as {@code kafka-configs.sh --alter --entity-type brokers --add-config} sets them: Kafka
 * keeps them among the broker's dynamic settings and describes them as secrets of unknown type,
 * in the scope that holds them; so does Brook, where they have no effect (kafkajs's own tests set
 * one, {@code cleanup.policy} on a broker, and Brook refused it before).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CustomBrokerConfigsCompatTest {

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();
    private static Admin admin;
    private static ConfigResource self;
    private static final ConfigResource CLUSTER_DEFAULT = new ConfigResource(ConfigResource.Type.BROKER, "");

    @BeforeAll
    static void openAdmin() throws Exception {
        admin = cluster.admin();
        String node = String.valueOf(admin.describeCluster().controller().get(30, TimeUnit.SECONDS).id());
        self = new ConfigResource(ConfigResource.Type.BROKER, node);
    }

    @AfterAll
    static void closeAdmin() {
        admin.close();
    }

    @Test
    void aCustomSettingIsKeptDescribedAsASecretOfUnknownTypeAndDeleted() throws Exception {
        String own = "custom.plugin." + UUID.randomUUID().toString().substring(0, 8);
        String shared = own + ".default";
        alter(self, own, "42", AlterConfigOp.OpType.SET);
        alter(CLUSTER_DEFAULT, shared, "7", AlterConfigOp.OpType.SET);

        ConfigEntry e = describe(self).get(own);
        assertThat(e).as("described with the broker's settings").isNotNull();
        assertThat(e.value()).as("a secret: no value shown").isNull();
        assertThat(e.isSensitive()).isTrue();
        assertThat(e.isReadOnly()).isTrue();
        assertThat(e.type()).isEqualTo(ConfigEntry.ConfigType.UNKNOWN);
        assertThat(e.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG);
        assertThat(e.synonyms()).extracting(ConfigEntry.ConfigSynonym::source)
                .containsExactly(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG);
        assertThat(describe(self).get(shared).source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
        ConfigEntry d = describe(CLUSTER_DEFAULT).get(shared);
        assertThat(d.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
        assertThat(d.isSensitive()).isTrue();
        assertThat(describe(CLUSTER_DEFAULT).get(own)).as("set for this broker only").isNull();

        alter(self, own, null, AlterConfigOp.OpType.DELETE);
        alter(CLUSTER_DEFAULT, shared, null, AlterConfigOp.OpType.DELETE);
        // Kafka's broker applies a deleted dynamic setting a moment after the call returns
        Groups.await(Duration.ofSeconds(30), "both settings gone from the broker's description",
                () -> describeQuietly(self).get(own) == null && describeQuietly(self).get(shared) == null);
    }

    private static Config describeQuietly(ConfigResource resource) {
        try {
            return describe(resource);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void alter(ConfigResource resource, String key, String value, AlterConfigOp.OpType op)
            throws Exception {
        admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(new ConfigEntry(key, value), op))))
                .all().get(30, TimeUnit.SECONDS);
    }

    private static Config describe(ConfigResource resource) throws Exception {
        return admin.describeConfigs(List.of(resource), new DescribeConfigsOptions().includeSynonyms(true)).all()
                .get(30, TimeUnit.SECONDS).get(resource);
    }
}
