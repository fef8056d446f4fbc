package io.brook.cluster.member;

import static io.brook.cluster.member.ClusterMemberTestNodes.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.controller.ControllerError;
import io.brook.cluster.controller.ControllerException;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataRecord.AccessControlEntry;
import io.brook.cluster.metadata.MetadataRecord.ClientQuota;
import io.brook.cluster.metadata.MetadataRecord.RemoveAccessControlEntry;
import io.brook.cluster.metadata.MetadataRecord.UserScramCredential;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ACLs, SCRAM credentials, client quotas and delegation tokens written through any node, a voter
 * that is not the controller or a broker-only node: one log entry, per-record outcomes, the same
 * on every node.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SecurityWriteTest {

    private static final AccessControlEntry READ = new AccessControlEntry((byte) 2, "orders", (byte) 3, "User:alice",
            "*", (byte) 3, (byte) 3);
    private static final AccessControlEntry WRITE = new AccessControlEntry((byte) 2, "orders", (byte) 4, "User:bob",
            "*", (byte) 4, (byte) 3);
    private static final UserScramCredential ALICE = new UserScramCredential("alice", (byte) 2, 8192,
            new byte[] {1, 2, 3}, new byte[] {4, 5}, new byte[] {6, 7});

    @TempDir
    Path dir;

    private ClusterMemberTestNodes nodes;

    @BeforeEach
    void setUp() {
        nodes = new ClusterMemberTestNodes(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        nodes.close();
    }

    private static ClientQuota quota(String user, Double value) {
        TreeMap<String, String> entity = new TreeMap<>();
        entity.put("user", user);
        return new ClientQuota(entity, "producer_byte_rate", value);
    }

    private static boolean holds(MetadataImage image, List<AccessControlEntry> acls, List<UserScramCredential> scram,
                                 List<ClientQuota> quotas) {
        return image.acls().equals(acls) && image.scramCredentials().equals(scram) && image.clientQuotas().equals(quotas);
    }

    @Test
    void aWriteThroughAnyNodeReachesEveryImageWithItsPerRecordOutcome() throws Exception {
        nodes.startAll();
        ClusterMember controller = nodes.awaitController();
        ClusterMember follower = nodes.members.values().stream().filter(m -> m != controller).findFirst().orElseThrow();

        List<Boolean> applied = follower.writeSecurity(List.of(READ, ALICE, quota(null, 1024.0),
                RemoveAccessControlEntry.of(WRITE), new MetadataRecord.RemoveUserScramCredential("bob", (byte) 1),
                READ)).get(WAIT.toSeconds(), TimeUnit.SECONDS);

        assertThat(applied).as("removing what is absent is not applied; adding an ACL twice is")
                .containsExactly(true, true, true, false, false, true);
        // read-your-writes on the asking node, then every node
        assertThat(follower.<Boolean>read(image -> holds(image, List.of(READ), List.of(ALICE),
                List.of(quota(null, 1024.0))))).isTrue();
        nodes.awaitEverywhere("the ACL, the credential and the quota", image -> holds(image, List.of(READ),
                List.of(ALICE), List.of(quota(null, 1024.0))));

        // a broker-only node (a Ratis listener) writes too, and sees every earlier write
        ClusterMember four = nodes.startBrokerOnly(4, true);
        four.unfenced().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(four.writeSecurity(List.of(WRITE, RemoveAccessControlEntry.of(READ), quota(null, null),
                quota("alice", 10.0))).get(WAIT.toSeconds(), TimeUnit.SECONDS)).containsExactly(true, true, true, true);
        assertThat(four.<Boolean>read(image -> holds(image, List.of(WRITE), List.of(ALICE),
                List.of(quota("alice", 10.0))))).isTrue();
        nodes.awaitEverywhere("the second write", image -> holds(image, List.of(WRITE), List.of(ALICE),
                List.of(quota("alice", 10.0))));
        assertThat(four.<Long>read(MetadataImage::securityChanges)).as("node 4 replayed both entries (every node: %s)",
                nodes.members.values().stream().map(m -> m.nodeId() + "=" + m.<Long>read(MetadataImage::securityChanges))
                        .toList()).isEqualTo(8);

        // and nothing but security records
        assertThatThrownBy(() -> follower.writeSecurity(List.of(READ, new MetadataRecord.Config(
                MetadataRecord.RESOURCE_BROKER, "1", "k", "v"))).get(WAIT.toSeconds(), TimeUnit.SECONDS))
                .cause().isInstanceOf(ControllerException.class)
                .satisfies(e -> assertThat(((ControllerException) e).error()).isEqualTo(ControllerError.INVALID_REQUEST));
        assertThat(follower.writeSecurity(List.of()).get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEmpty();
        nodes.awaitEverywhere("nothing else written", image -> holds(image, List.of(WRITE), List.of(ALICE),
                List.of(quota("alice", 10.0))));
    }

    @Test
    void tokensWrittenThroughAFollowerReachEveryImageAndTheirRenewalAndRemovalToo() throws Exception {
        nodes.startAll();
        ClusterMember controller = nodes.awaitController();
        ClusterMember follower = nodes.members.values().stream().filter(m -> m != controller).findFirst().orElseThrow();
        MetadataRecord.DelegationToken token = new MetadataRecord.DelegationToken("tok", "User:alice", "User:admin",
                List.of("User:bob"), 1_000, 90_000, 5_000);
        MetadataRecord.DelegationToken renewed = new MetadataRecord.DelegationToken("tok", "User:alice", "User:admin",
                List.of("User:bob"), 1_000, 90_000, 60_000);

        // through the controller channel, which carries the new record types
        assertThat(follower.writeSecurity(List.of(token)).get(WAIT.toSeconds(), TimeUnit.SECONDS))
                .containsExactly(true);
        nodes.awaitEverywhere("the token", image -> image.delegationTokens().equals(List.of(token)));

        assertThat(controller.writeSecurity(List.of(new MetadataRecord.DelegationTokenExpiry("tok", 60_000)))
                .get(WAIT.toSeconds(), TimeUnit.SECONDS)).containsExactly(true);
        nodes.awaitEverywhere("the renewal", image -> image.delegationTokens().equals(List.of(renewed)));

        assertThat(follower.writeSecurity(List.of(new MetadataRecord.RemoveDelegationToken("tok"),
                new MetadataRecord.RemoveDelegationToken("tok"))).get(WAIT.toSeconds(), TimeUnit.SECONDS))
                .as("a second removal of the same token applies").containsExactly(true, true);
        nodes.awaitEverywhere("the removal", image -> image.delegationTokens().isEmpty());

        // a renewal that reaches the log after the removal is rejected: the token stays gone
        assertThat(controller.writeSecurity(List.of(new MetadataRecord.DelegationTokenExpiry("tok", 70_000),
                new MetadataRecord.DelegationTokenExpiry("other", 70_000)))
                .get(WAIT.toSeconds(), TimeUnit.SECONDS)).containsExactly(false, false);
        assertThat(follower.writeSecurity(List.of(new MetadataRecord.RemoveDelegationToken("tok")))
                .get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("written after the rejected renewal").containsExactly(true);
        nodes.awaitEverywhere("the token still removed", image -> image.delegationTokens().isEmpty()
                && image.securityChanges() == 5);
    }

    @Test
    void aReadBarrierCompletesOnlyOnceTheNodeAppliedWhatTheControllerHad() throws Exception {
        nodes.startAll();
        ClusterMember controller = nodes.awaitController();
        ClusterMember lagging = nodes.members.values().stream().filter(m -> m != controller).findFirst().orElseThrow();
        // the lagging node's apply thread stops at the first entry applied after `hold` is set
        AtomicBoolean hold = new AtomicBoolean();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        lagging.onChange(() -> {
            if (hold.get()) {
                held.countDown();
                try {
                    release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        try {
            hold.set(true);
            controller.writeSecurity(List.of(quota("first", 1.0))).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(held.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the lagging node stopped applying").isTrue();
            // committed by the two others; the lagging node cannot apply it
            controller.writeSecurity(List.of(READ)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(lagging.<Boolean>read(image -> image.acls().contains(READ))).isFalse();

            CompletableFuture<Boolean> seenWhenDone = lagging.readBarrier()
                    .thenApply(v -> lagging.<Boolean>read(image -> image.acls().contains(READ)));
            assertThatThrownBy(() -> seenWhenDone.get(500, TimeUnit.MILLISECONDS))
                    .as("the barrier waits for the lagging node").isInstanceOf(TimeoutException.class);
            hold.set(false);
            release.countDown();
            assertThat(seenWhenDone.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .as("when the barrier completes, the node has the ACL made through the controller").isTrue();
        } finally {
            hold.set(false);
            release.countDown();
        }
        // the barrier writes nothing: the images end the same as after the two writes
        nodes.awaitEverywhere("both writes", image -> holds(image, List.of(READ), List.of(),
                List.of(quota("first", 1.0))));
    }
}
