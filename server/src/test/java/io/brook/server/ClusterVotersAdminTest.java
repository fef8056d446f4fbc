package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.Await;
import java.io.Reader;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.RaftVoterEndpoint;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.BrokerIdNotRegisteredException;
import org.apache.kafka.common.errors.DuplicateVoterException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.VoterNotFoundException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * AddRaftVoter, RemoveRaftVoter and UnregisterBroker sent by kafka-clients' Admin (what
 * {@code kafka-metadata-quorum.sh add-controller / remove-controller} and {@code kafka-cluster.sh
 * unregister} call) to a node that is not the one they change (docs/cluster.md, section 6b), with
 * Kafka's errors; and a single node's answers.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterVotersAdminTest extends InJvmClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Uuid DIRECTORY = Uuid.fromString("AAAAAAAAAAEAAAAAAAAAAQ");
    private static final Uuid OTHER_DIRECTORY = Uuid.fromString("AAAAAAAAAAIAAAAAAAAAAg");
    private static final Set<RaftVoterEndpoint> ENDPOINTS = Set.of(new RaftVoterEndpoint("CONTROLLER", "127.0.0.1", 1));

    private static QuorumInfo quorum(Admin admin) throws Exception {
        return admin.describeMetadataQuorum().quorumInfo().get();
    }

    private static boolean voters(Admin admin, Integer... ids) {
        try {
            return quorum(admin).voters().stream().map(QuorumInfo.ReplicaState::replicaId).toList()
                    .containsAll(Set.of(ids)) && quorum(admin).voters().size() == ids.length;
        } catch (Exception e) {
            return false;
        }
    }

    private static boolean observer(Admin admin, int id) {
        try {
            return quorum(admin).observers().stream().anyMatch(r -> r.replicaId() == id);
        } catch (Exception e) {
            return false;
        }
    }

    private static Class<? extends Throwable> failure(org.apache.kafka.common.KafkaFuture<?> f) {
        try {
            f.get();
        } catch (ExecutionException e) {
            return e.getCause().getClass();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("expected a failure");
    }

    /** Node {@code id}'s directory id from its meta.properties, as kafka-metadata-quorum.sh reads it. */
    private Uuid directoryOf(int id) throws Exception {
        Properties meta = new Properties();
        try (Reader r = Files.newBufferedReader(dirs.resolve("node" + id).resolve("meta/meta.properties"))) {
            meta.load(r);
        }
        return Uuid.fromString(meta.getProperty("directory.id"));
    }

    private static Uuid directoryReported(Admin admin, int id) {
        QuorumInfo q;
        try {
            q = quorum(admin);
        } catch (Exception e) {
            return null;
        }
        return java.util.stream.Stream.concat(q.voters().stream(), q.observers().stream())
                .filter(r -> r.replicaId() == id).map(QuorumInfo.ReplicaState::replicaDirectoryId).findFirst()
                .orElse(null);
    }

    @Test
    void addsAListenerAsAVoterRemovesItAndUnregistersTheStoppedBroker() throws Exception {
        cluster = InJvmCluster.start(dirs, "brook-voters-test", 3, Map.of());
        Brook four = cluster.startBrokerOnly(4);
        Uuid directory = directoryOf(4);
        Uuid directoryOfOne = directoryOf(1);
        try (Admin admin = Admin.create(InJvmCluster.clientProps(cluster.nodes.get(0).bootstrapServers()))) {
            // each node reports its directory id once registered, on its own time
            Await.until("node 4 follows the log and the directory ids of nodes 1 and 4 are known", WAIT,
                    () -> observer(admin, 4) && directory.equals(directoryReported(admin, 4))
                            && directoryOfOne.equals(directoryReported(admin, 1)));

            assertThat(failure(admin.addRaftVoter(4, Uuid.ZERO_UUID, ENDPOINTS).all()))
                    .isEqualTo(InvalidRequestException.class);
            assertThat(failure(admin.addRaftVoter(4, directory,
                    Set.of(new RaftVoterEndpoint("PLAINTEXT", "127.0.0.1", 1))).all()))
                    .isEqualTo(InvalidRequestException.class);
            assertThat(failure(admin.addRaftVoter(4, OTHER_DIRECTORY, ENDPOINTS).all()))
                    .isEqualTo(VoterNotFoundException.class);
            assertThat(failure(admin.addRaftVoter(9, OTHER_DIRECTORY, ENDPOINTS).all()))
                    .isEqualTo(VoterNotFoundException.class);
            assertThat(failure(admin.addRaftVoter(2, directoryOf(2), ENDPOINTS).all()))
                    .isEqualTo(DuplicateVoterException.class);

            admin.addRaftVoter(4, directory, ENDPOINTS).all().get();
            Await.until("node 4 is a voter", WAIT, () -> voters(admin, 1, 2, 3, 4));
            assertThat(failure(admin.addRaftVoter(4, directory, ENDPOINTS).all()))
                    .isEqualTo(DuplicateVoterException.class);

            assertThat(failure(admin.removeRaftVoter(4, OTHER_DIRECTORY).all())).isEqualTo(VoterNotFoundException.class);
            admin.removeRaftVoter(4, directory).all().get();
            Await.until("node 4 is an observer again", WAIT, () -> voters(admin, 1, 2, 3) && observer(admin, 4));
            assertThat(failure(admin.removeRaftVoter(4, directory).all())).isEqualTo(VoterNotFoundException.class);
            assertThat(failure(admin.removeRaftVoter(1, Uuid.ZERO_UUID).all())).isEqualTo(InvalidRequestException.class);

            four.close();
            admin.unregisterBroker(4).all().get();
            assertThat(failure(admin.unregisterBroker(4).all())).isEqualTo(BrokerIdNotRegisteredException.class);
            assertThat(failure(admin.unregisterBroker(99).all())).isEqualTo(BrokerIdNotRegisteredException.class);
        }
    }

    @Test
    void aSingleNodeCannotChangeItsVotersAndKnowsNoOtherBroker() throws Exception {
        try (Brook single = Brook.builder().dataDir(dirs.resolve("single")).config(Map.of("node.id", "1")).start();
             Admin admin = Admin.create(InJvmCluster.clientProps(single.bootstrapServers()))) {
            assertThat(failure(admin.addRaftVoter(2, DIRECTORY, ENDPOINTS).all()))
                    .isEqualTo(UnsupportedVersionException.class);
            assertThat(failure(admin.removeRaftVoter(1, DIRECTORY).all()))
                    .isEqualTo(UnsupportedVersionException.class);
            assertThat(failure(admin.unregisterBroker(2).all())).isEqualTo(BrokerIdNotRegisteredException.class);
            assertThat(failure(admin.unregisterBroker(1).all())).isEqualTo(InvalidRequestException.class);
        }
    }
}
