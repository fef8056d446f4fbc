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
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's replication throttles as {@code kafka-reassign-partitions.sh --throttle} sets them and
 * {@code --verify} deletes them: the rates on a broker (its own and the cluster default) and the
 * throttled replicas on a topic are known, validated as Kafka validates them, described, kept
 * across a restart, and deletable.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReplicationThrottleConfigsTest {

    private static final String LEADER_RATE = "leader.replication.throttled.rate";
    private static final String FOLLOWER_RATE = "follower.replication.throttled.rate";
    private static final String ALTER_DIRS_RATE = "replica.alter.log.dirs.io.max.bytes.per.second";
    private static final String LEADER_REPLICAS = "leader.replication.throttled.replicas";
    private static final String FOLLOWER_REPLICAS = "follower.replication.throttled.replicas";

    @TempDir
    java.nio.file.Path dir;

    private Brook brook;
    private Admin admin;
    private ConfigResource self;
    private final ConfigResource defaults = new ConfigResource(ConfigResource.Type.BROKER, "");
    private final ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "moving");

    @BeforeEach
    void start() throws Exception {
        open();
        admin.createTopics(List.of(new NewTopic("moving", 2, (short) 1))).all().get();
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

    private static AlterConfigOp set(String key, String value) {
        return new AlterConfigOp(new ConfigEntry(key, value), AlterConfigOp.OpType.SET);
    }

    private static AlterConfigOp delete(String key) {
        return new AlterConfigOp(new ConfigEntry(key, ""), AlterConfigOp.OpType.DELETE);
    }

    private Config describe(ConfigResource r) throws Exception {
        return admin.describeConfigs(List.of(r)).all().get().get(r);
    }

    @Test
    void throttlesAreSetDescribedKeptAndDeleted() throws Exception {
        admin.incrementalAlterConfigs(Map.of(
                self, List.of(set(LEADER_RATE, "1000000"), set(FOLLOWER_RATE, "1000000")),
                topic, List.of(set(LEADER_REPLICAS, "0:1,1:1"), set(FOLLOWER_REPLICAS, "0:2,1:2")))).all().get();
        admin.incrementalAlterConfigs(Map.of(defaults, List.of(set(ALTER_DIRS_RATE, "5000000")))).all().get();

        stop();
        open();
        Config broker = describe(self);
        assertThat(broker.get(LEADER_RATE).value()).isEqualTo("1000000");
        assertThat(broker.get(LEADER_RATE).source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG);
        assertThat(broker.get(FOLLOWER_RATE).value()).isEqualTo("1000000");
        assertThat(broker.get(ALTER_DIRS_RATE).value()).isEqualTo("5000000");
        assertThat(broker.get(ALTER_DIRS_RATE).source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
        Config t = describe(topic);
        assertThat(t.get(LEADER_REPLICAS).value()).isEqualTo("0:1,1:1");
        assertThat(t.get(LEADER_REPLICAS).source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(t.get(FOLLOWER_REPLICAS).value()).isEqualTo("0:2,1:2");

        // what --verify does once the move is done
        admin.incrementalAlterConfigs(Map.of(
                self, List.of(delete(LEADER_RATE), delete(FOLLOWER_RATE), delete(ALTER_DIRS_RATE)),
                defaults, List.of(delete(ALTER_DIRS_RATE)),
                topic, List.of(delete(LEADER_REPLICAS), delete(FOLLOWER_REPLICAS)))).all().get();
        broker = describe(self);
        assertThat(broker.get(LEADER_RATE).value()).isEqualTo(Long.toString(Long.MAX_VALUE));
        assertThat(broker.get(ALTER_DIRS_RATE).value()).isEqualTo(Long.toString(Long.MAX_VALUE));
        t = describe(topic);
        assertThat(t.get(LEADER_REPLICAS).value()).isEmpty();
        assertThat(t.get(LEADER_REPLICAS).source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
    }

    @Test
    void valuesKafkaRefusesAreRefused() {
        assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(self, List.of(set(LEADER_RATE, "-1"))))
                .all().get()).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(InvalidConfigurationException.class);
        assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(topic, List.of(set(FOLLOWER_REPLICAS, "0-1"))))
                .all().get()).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("must be the literal '*' or a list of replicas");
        assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(topic, List.of(set(LEADER_REPLICAS, "*,0:1"))))
                .all().get()).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(InvalidConfigurationException.class);
    }

    @Test
    void everyReplicaMayBeThrottledWithAStar() throws Exception {
        admin.incrementalAlterConfigs(Map.of(topic, List.of(set(LEADER_REPLICAS, "*")))).all().get();
        assertThat(describe(topic).get(LEADER_REPLICAS).value()).isEqualTo("*");
    }
}
