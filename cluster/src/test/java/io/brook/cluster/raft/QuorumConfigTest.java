package io.brook.cluster.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A Kafka KRaft server.properties read as a quorum config. */
class QuorumConfigTest {

    private static Map<String, String> kafkaProperties() {
        Map<String, String> p = new HashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "2");
        p.put("cluster.id", "MkU3OEVBNTcwNTJENDM2Qk");
        p.put("controller.quorum.voters", "1@localhost:9093, 2@localhost:9095,3@localhost:9097");
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listeners", "PLAINTEXT://:9094,CONTROLLER://:9095");
        p.put("log.dirs", "/data/brook-2,/data2/brook-2");
        return p;
    }

    @Test
    void readsKafkasKraftPropertyNames() {
        QuorumConfig c = QuorumConfig.fromProperties(kafkaProperties());

        assertThat(c.processRoles()).isEqualTo(Set.of("broker", "controller"));
        assertThat(c.nodeId()).isEqualTo(2);
        assertThat(c.voters()).containsOnlyKeys(1, 2, 3);
        assertThat(c.address()).isEqualTo(InetSocketAddress.createUnresolved("localhost", 9095));
        assertThat(c.metadataDir()).isEqualTo(Path.of("/data/brook-2", "__cluster_metadata-0"));
    }

    @Test
    void electionTimeOutIsKafkasRandomisedBetweenItAndTwiceIt() {
        QuorumConfig defaults = QuorumConfig.fromProperties(kafkaProperties());
        assertThat(defaults.electionTimeoutMin()).isEqualTo(Duration.ofMillis(1000));
        assertThat(defaults.electionTimeoutMax()).isEqualTo(Duration.ofMillis(2000));

        Map<String, String> p = kafkaProperties();
        p.put("controller.quorum.election.timeout.ms", "400");
        QuorumConfig c = QuorumConfig.fromProperties(p);
        assertThat(c.electionTimeoutMin()).isEqualTo(Duration.ofMillis(400));
        assertThat(c.electionTimeoutMax()).isEqualTo(Duration.ofMillis(800));

        p.put("controller.quorum.election.timeout.ms", "0");
        assertThatThrownBy(() -> QuorumConfig.fromProperties(p))
                .hasMessageContaining("controller.quorum.election.timeout.ms");
    }

    @Test
    void refusesInconsistentSettingsWithTheKeyInTheMessage() {
        Map<String, String> p = kafkaProperties();
        p.put("process.roles", "");
        assertThatThrownBy(() -> QuorumConfig.fromProperties(p)).hasMessageContaining("single-node Brook");

        Map<String, String> notVoter = kafkaProperties();
        notVoter.put("node.id", "4");
        notVoter.put("listeners", "CONTROLLER://:9099");
        assertThatThrownBy(() -> QuorumConfig.fromProperties(notVoter)).hasMessageContaining("not in controller.quorum.voters");

        Map<String, String> wrongPort = kafkaProperties();
        wrongPort.put("listeners", "PLAINTEXT://:9094,CONTROLLER://:9999");
        assertThatThrownBy(() -> QuorumConfig.fromProperties(wrongPort)).hasMessageContaining("port 9999")
                .hasMessageContaining("gives port 9095");

        Map<String, String> twice = kafkaProperties();
        twice.put("controller.quorum.voters", "1@a:1,1@b:2");
        assertThatThrownBy(() -> QuorumConfig.fromProperties(twice)).hasMessageContaining("voter 1 twice");

        Map<String, String> malformed = kafkaProperties();
        malformed.put("controller.quorum.voters", "1@localhost");
        assertThatThrownBy(() -> QuorumConfig.fromProperties(malformed)).hasMessageContaining("id@host:port");

        Map<String, String> noCluster = kafkaProperties();
        noCluster.remove("cluster.id");
        // a Kafka user's server.properties has no cluster.id (Kafka's format step writes it): say where it comes from
        assertThatThrownBy(() -> QuorumConfig.fromProperties(noCluster)).hasMessageContaining("cluster.id is required")
                .hasMessageContaining("kafka-storage.sh format --cluster-id")
                .hasMessageContaining("without process.roles Brook runs as a single node");

        Map<String, String> badRole = kafkaProperties();
        badRole.put("process.roles", "broker,zookeeper");
        assertThatThrownBy(() -> QuorumConfig.fromProperties(badRole)).hasMessageContaining("unknown role 'zookeeper'");
    }

    @Test
    void aBrokerOnlyNodeFollowsTheLogOnItsControllerListenerOrAFreePort() {
        Map<String, String> p = kafkaProperties();
        p.put("process.roles", "broker");
        p.put("node.id", "4");
        p.put("listeners", "PLAINTEXT://10.0.0.4:9092");
        QuorumConfig free = QuorumConfig.fromProperties(p);
        assertThat(free.configuredVoter()).isFalse();
        assertThat(free.address()).isEqualTo(InetSocketAddress.createUnresolved("10.0.0.4", 0));

        p.put("listeners", "PLAINTEXT://10.0.0.4:9092,CONTROLLER://10.0.0.4:9099");
        assertThat(QuorumConfig.fromProperties(p).address())
                .isEqualTo(InetSocketAddress.createUnresolved("10.0.0.4", 9099));
    }

    @Test
    void readsKafkasBootstrapServersForANodeThatJoins() {
        Map<String, String> p = kafkaProperties();
        p.remove("controller.quorum.voters");
        p.put("controller.quorum.bootstrap.servers", "localhost:9093, localhost:9095");
        p.put("node.id", "5");
        p.put("listeners", "PLAINTEXT://:9098,CONTROLLER://:9099");
        QuorumConfig c = QuorumConfig.fromProperties(p);
        assertThat(c.voters()).isEmpty();
        assertThat(c.bootstrapServers()).containsExactly(InetSocketAddress.createUnresolved("localhost", 9093),
                InetSocketAddress.createUnresolved("localhost", 9095));
        assertThat(c.address().getPort()).isEqualTo(9099);

        p.put("controller.quorum.bootstrap.servers", "localhost");
        assertThatThrownBy(() -> QuorumConfig.fromProperties(p)).hasMessageContaining("host:port");
        p.remove("controller.quorum.bootstrap.servers");
        assertThatThrownBy(() -> QuorumConfig.fromProperties(p))
                .hasMessageContaining("controller.quorum.voters or controller.quorum.bootstrap.servers is required");
    }

    @Test
    void aControllerOnlyNodeIsAVoterOfItsOwnAddress() {
        Map<String, String> p = kafkaProperties();
        p.put("process.roles", "controller");
        QuorumConfig c = QuorumConfig.fromProperties(p);
        assertThat(c.processRoles()).containsExactly("controller");
        assertThat(c.configuredVoter()).isTrue();
        assertThat(c.address()).isEqualTo(c.voters().get(c.nodeId()));
    }
}
