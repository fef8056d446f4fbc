package io.brook.coordinator.group;

import static io.brook.coordinator.group.GroupHarness.done;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.brook.wire.message.TxnOffsetCommitRequest;
import io.brook.wire.message.TxnOffsetCommitResponse;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Transactional offset commits: pending until the transaction ends, KIP-447 member checks, replay. */
class TxnOffsetsTest {

    private final GroupHarness h = new GroupHarness();

    private Errors txnCommit(String group, long pid, int generation, String memberId, String instanceId, long offset) {
        TxnOffsetCommitRequest r = new TxnOffsetCommitRequest().transactionalId("tx").groupId(group).producerId(pid)
                .producerEpoch((short) 0).generationIdOrMemberEpoch(generation).memberId(memberId)
                .groupInstanceId(instanceId).topics(new ArrayList<>(List.of(new TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic()
                        .name("t").partitions(new ArrayList<>(List.of(new TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition()
                                .partitionIndex(0).committedOffset(offset).committedMetadata("m")))))));
        CompletableFuture<TxnOffsetCommitResponse> f = h.coordinator.txnOffsetCommit(r, (short) 4);
        h.run();
        return Errors.forCode(done(f).topics().get(0).partitions().get(0).errorCode());
    }

    private void complete(long pid, boolean commit) {
        CompletableFuture<Void> f = h.coordinator.completeTransaction(pid, commit);
        h.run();
        assertThat(f).isCompleted();
    }

    @Test
    void offsetsBecomeVisibleOnlyWhenTheTransactionCommits() {
        assertThat(txnCommit("g", 7, -1, "", null, 42)).isEqualTo(Errors.NONE);
        assertThat(h.committed("g", "t", 0)).isEqualTo(-1);
        assertThat(Errors.forCode(h.fetch("g", "t", 0, true).errorCode())).isEqualTo(Errors.UNSTABLE_OFFSET_COMMIT);
        int written = h.log.size();
        complete(7, true);
        assertThat(h.log.size()).isGreaterThan(written);
        assertThat(h.committed("g", "t", 0)).isEqualTo(42);
        assertThat(Errors.forCode(h.fetch("g", "t", 0, true).errorCode())).isEqualTo(Errors.NONE);
        // and they survive a restart, as ordinary commits
        GroupHarness again = new GroupHarness(GroupHarness.config(), h.log, h.clock);
        assertThat(again.committed("g", "t", 0)).isEqualTo(42);
    }

    @Test
    void anAbortDropsTheOffsets() {
        txnCommit("g", 7, -1, "", null, 42);
        int written = h.log.size();
        complete(7, false);
        assertThat(h.log.size()).isEqualTo(written);
        assertThat(h.committed("g", "t", 0)).isEqualTo(-1);
        assertThat(Errors.forCode(h.fetch("g", "t", 0, true).errorCode())).isEqualTo(Errors.NONE);
    }

    @Test
    void theGroupMetadataOfKip447IsChecked() {
        String member = h.stableConsumer("g", "t");
        assertThat(txnCommit("g", 7, 1, member, null, 1)).isEqualTo(Errors.NONE);
        assertThat(txnCommit("g", 7, 2, member, null, 1)).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(txnCommit("g", 7, 1, "stranger", null, 1)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        // old clients (no generation, no member) are accepted, as in Kafka
        assertThat(txnCommit("g", 7, -1, "", null, 1)).isEqualTo(Errors.NONE);
        assertThat(txnCommit("unknown", 7, 3, "m", null, 1)).isEqualTo(Errors.ILLEGAL_GENERATION);
    }
}
