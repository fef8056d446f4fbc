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
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * BROKER_LOGGER resources through Kafka's Admin client, as {@code kafka-configs.sh --entity-type
 * broker-loggers} sends them: described with the levels the loggers run at, alters checked as
 * Kafka checks them and then refused (slf4j-simple cannot change a level at run time), while a
 * validate-only alter of a valid level succeeds.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BrokerLoggersTest {

    private Brook brook;
    private Admin admin;
    private ConfigResource loggers;

    @BeforeEach
    void start() {
        brook = Brook.builder().port(0).start();
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        admin = Admin.create(p);
        loggers = new ConfigResource(ConfigResource.Type.BROKER_LOGGER,
                admin.describeCluster().controller().toCompletionStage().toCompletableFuture().join().idString());
    }

    @AfterEach
    void stop() {
        admin.close();
        brook.close();
    }

    private static String levelOf(String name) {
        org.slf4j.Logger l = LoggerFactory.getLogger(name);
        return l.isTraceEnabled() ? "TRACE" : l.isDebugEnabled() ? "DEBUG" : l.isInfoEnabled() ? "INFO"
                : l.isWarnEnabled() ? "WARN" : l.isErrorEnabled() ? "ERROR" : "OFF";
    }

    @Test
    void shouldDescribeTheLevelsTheLoggersRunAt() throws Exception {
        Config all = admin.describeConfigs(List.of(loggers)).all().get().get(loggers);
        assertThat(all.entries()).extracting(ConfigEntry::name).containsExactly("root", "io.brook");
        assertThat(all.get("root").value()).isEqualTo(levelOf(org.slf4j.Logger.ROOT_LOGGER_NAME));
        assertThat(all.get("io.brook").value()).isEqualTo(levelOf("io.brook"));
        assertThat(all.get("root").source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG);

    }

    @Test
    void shouldCheckAltersAsKafkaDoesAndRefuseTheChangeWithTheReason() throws Exception {
        AlterConfigOp debug = new AlterConfigOp(new ConfigEntry("io.brook.server", "DEBUG"), AlterConfigOp.OpType.SET);
        admin.incrementalAlterConfigs(Map.of(loggers, List.of(debug)), new AlterConfigsOptions().validateOnly(true))
                .all().get();

        assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(loggers, List.of(debug))).all().get())
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("cannot change at run time").hasMessageContaining("org.slf4j.simpleLogger.log.");
        assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(loggers, List.of(new AlterConfigOp(
                new ConfigEntry("io.brook", "LOUD"), AlterConfigOp.OpType.SET)))).all().get())
                .cause().isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("not a supported log level");
        assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(loggers, List.of(new AlterConfigOp(
                new ConfigEntry("root", ""), AlterConfigOp.OpType.DELETE)))).all().get())
                .cause().isInstanceOf(InvalidRequestException.class).hasMessageContaining("root logger");
        assertThat(levelOf("io.brook.server")).isNotEqualTo("DEBUG");
    }
}
