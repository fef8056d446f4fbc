package io.brook.cluster.member;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.raft.MetadataQuorumNode;
import io.brook.cluster.raft.QuorumConfig;
import io.brook.testkit.FreePorts;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A one-node cluster asked for decisions from the moment it starts, as a broker under clients is
 * (RELIABILITY.md, finding 9): the requests sent before its election wait for it, and once the
 * node leads its own controller answers them in this process. None goes through Ratis' client,
 * whose connection a refused request used to reset, failing the requests beside it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OneNodeControllerChannelTest {

    private static final int REQUESTS = 60;

    @TempDir
    Path dir;

    @Test
    void requestsBeforeTheElectionWaitForItAndTheLeaderAnswersItsOwnNode() throws Exception {
        QuorumConfig config = new QuorumConfig(Set.of("broker", "controller"), 1, "one-node-cluster",
                Map.of(1, InetSocketAddress.createUnresolved("127.0.0.1", FreePorts.next())), dir.resolve("node-1"),
                Duration.ofMillis(1000), Duration.ofMillis(1500), 0,
                // a sole voter stands for election at once; here it waits, so that the requests meet an election
                Map.of("raft.server.rpc.first-election.timeout.min", "1000ms",
                        "raft.server.rpc.first-election.timeout.max", "1500ms"));
        try (ClusterMember member = RatisClusterMember.start(config, ClusterMemberTestNodes.registration(1),
                Clock.systemUTC())) {
            List<CompletableFuture<?>> asked = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                asked.add(i % 2 == 0 ? member.readBarrier() : member.leaderQuorumStatus());
            }
            asked.add(member.unfenced()); // the registration, sent at start, and its heartbeats

            CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertThat(member.allocateProducerIds().get(30, TimeUnit.SECONDS)).isNotNull();

            assertThat(((RatisClusterMember) member).quorumNode().remoteQueries())
                    .as("requests sent through Ratis' client").isZero();
        }
    }

    @Test
    void anAskThatArrivesTwiceIsDecidedOnceAndABareRequestTwice() throws Exception {
        QuorumConfig config = new QuorumConfig(Set.of("broker", "controller"), 1, "one-node-cluster",
                Map.of(1, InetSocketAddress.createUnresolved("127.0.0.1", FreePorts.next())), dir.resolve("node-1"),
                Duration.ofMillis(300), Duration.ofMillis(600), 0, Map.of());
        try (ClusterMember member = RatisClusterMember.start(config, ClusterMemberTestNodes.registration(1),
                Clock.systemUTC())) {
            member.unfenced().get(30, TimeUnit.SECONDS);
            MetadataQuorumNode node = ((RatisClusterMember) member).quorumNode();
            byte[] write = new ControllerRequest.WriteSecurity(List.of(new MetadataRecord.AccessControlEntry((byte) 2,
                    "orders", (byte) 3, "User:alice", "*", (byte) 3, (byte) 3))).encode();
            long before = member.<Long>read(MetadataImage::securityChanges);

            // as Ratis' client sends it again after a failed stream: the same ask, the same id
            byte[] ask = ControllerAsk.wrap(new ControllerAsk.Id(7, 42, 1), write);
            ByteBuffer first = node.query(ask).get(30, TimeUnit.SECONDS);
            ByteBuffer again = node.query(ask).get(30, TimeUnit.SECONDS);
            assertThat(again).isEqualTo(first);
            assertThat(ControllerReply.decode(again).outcome()).isEqualTo(ControllerReply.Outcome.DECIDED);
            member.readBarrier().get(30, TimeUnit.SECONDS);
            assertThat(member.<Long>read(MetadataImage::securityChanges)).as("one entry in the log").isEqualTo(before + 1);

            // without the envelope each arrival is a decision of its own
            node.query(write).get(30, TimeUnit.SECONDS);
            node.query(write).get(30, TimeUnit.SECONDS);
            member.readBarrier().get(30, TimeUnit.SECONDS);
            assertThat(member.<Long>read(MetadataImage::securityChanges)).isEqualTo(before + 3);
        }
    }
}
