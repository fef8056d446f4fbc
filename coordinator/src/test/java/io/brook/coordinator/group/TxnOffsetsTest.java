package io.brook.coordinator.group;

import static io.brook.coordinator.group.GroupHarness.done;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.ReplayChunk;
import io.brook.wire.message.OffsetDeleteRequest;
import io.brook.wire.message.OffsetDeleteResponse;
import io.brook.wire.message.TxnOffsetCommitRequest;
import io.brook.wire.message.TxnOffsetCommitResponse;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Transactional offset commits: written at once as transactional records, pending until the
 * producer's marker, KIP-447 member checks, and the same outcome live and after a reload in every
 * order of transactional offsets, plain commits and markers.
 */
class TxnOffsetsTest {

    private GroupHarness h = new GroupHarness();

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
        CompletableFuture<Void> f = h.coordinator.completeTransaction(pid, (short) 0, commit,
                Set.of(h.coordinator.partitionFor("g")));
        h.run();
        assertThat(f).isCompleted();
        done(f);
    }

    private boolean unstable() {
        return Errors.forCode(h.fetch("g", "t", 0, true).errorCode()) == Errors.UNSTABLE_OFFSET_COMMIT;
    }

    private List<CoordinatorRecord> records() {
        ReplayChunk all = h.log.read(h.coordinator.partitionFor("g"), 0, Integer.MAX_VALUE);
        return all.records();
    }

    private void restart() {
        h = new GroupHarness(GroupHarness.config(), h.log, h.clock);
    }

    @Test
    void aTxnOffsetCommitIsWrittenAtOnceAsATransactionalRecordAndCommittedByTheMarker() {
        assertThat(txnCommit("g", 7, -1, "", null, 42)).isEqualTo(Errors.NONE);
        assertThat(records()).singleElement().satisfies(r -> {
            assertThat(r.producerId()).isEqualTo(7);
            assertThat(r.isMarker()).isFalse();
        });
        assertThat(h.committed("g", "t", 0)).isEqualTo(-1);
        assertThat(unstable()).isTrue();
        complete(7, true);
        assertThat(records()).hasSize(2).last().satisfies(r -> {
            assertThat(r.isMarker()).isTrue();
            assertThat(r.marker()).isEqualTo(CoordinatorRecord.Marker.COMMIT);
        });
        assertThat(h.committed("g", "t", 0)).isEqualTo(42);
        assertThat(unstable()).isFalse();
        restart();
        assertThat(h.committed("g", "t", 0)).isEqualTo(42);
        assertThat(unstable()).isFalse();
    }

    @Test
    void anAbortDropsTheOffsets() {
        txnCommit("g", 7, -1, "", null, 42);
        complete(7, false);
        assertThat(records().get(1).marker()).isEqualTo(CoordinatorRecord.Marker.ABORT);
        assertThat(h.committed("g", "t", 0)).isEqualTo(-1);
        assertThat(unstable()).isFalse();
        restart();
        assertThat(h.committed("g", "t", 0)).isEqualTo(-1);
        assertThat(unstable()).isFalse();
    }

    @Test
    void pendingOffsetsSurviveARestartAndTheMarkerWrittenAfterItCompletesThem() {
        h.commit("g", -1, "", null, 8, "t", 0, 5, "m");
        txnCommit("g", 7, -1, "", null, 42);
        restart();
        assertThat(unstable()).isTrue();
        assertThat(h.committed("g", "t", 0)).isEqualTo(5);
        complete(7, true);
        assertThat(h.committed("g", "t", 0)).isEqualTo(42);
        assertThat(unstable()).isFalse();
    }

    @Test
    void aFailedWriteIsAnsweredWithAnErrorAndLeavesNothingPending() {
        h.log.failAppends(true);
        assertThat(txnCommit("g", 7, -1, "", null, 42)).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        h.log.failAppends(false);
        assertThat(unstable()).isFalse();
    }

    @Test
    void theAnswerWaitsForTheWrite() {
        h.log.holdAppends(true);
        TxnOffsetCommitRequest r = new TxnOffsetCommitRequest().transactionalId("tx").groupId("g").producerId(7)
                .producerEpoch((short) 0).generationIdOrMemberEpoch(-1).memberId("")
                .topics(new ArrayList<>(List.of(new TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic().name("t")
                        .partitions(new ArrayList<>(List.of(new TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition()
                                .partitionIndex(0).committedOffset(1)))))));
        CompletableFuture<TxnOffsetCommitResponse> f = h.coordinator.txnOffsetCommit(r, (short) 3);
        h.run();
        assertThat(f).isNotDone();
        h.log.releaseHeld();
        h.run();
        assertThat(f).isCompleted();
    }

    @Test
    void anOffsetDeleteDropsPendingOffsetsAsKafkaDoes() {
        txnCommit("g", 7, -1, "", null, 42);
        OffsetDeleteRequest del = new OffsetDeleteRequest().groupId("g").topics(new ArrayList<>(List.of(
                new OffsetDeleteRequest.OffsetDeleteRequestTopic().name("t").partitions(new ArrayList<>(List.of(
                        new OffsetDeleteRequest.OffsetDeleteRequestPartition().partitionIndex(0)))))));
        CompletableFuture<OffsetDeleteResponse> f = h.coordinator.deleteOffsets(del, (short) 0);
        h.run();
        assertThat(done(f).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(unstable()).isFalse();
        complete(7, true);
        assertThat(h.committed("g", "t", 0)).isEqualTo(-1);
        restart();
        assertThat(h.committed("g", "t", 0)).isEqualTo(-1);
        assertThat(unstable()).isFalse();
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

    // ------------------------------------------------------------------ every order

    /** One record of the group's partition: a transactional offset (pid > 0, no marker), a plain commit (pid 0), or a marker. */
    private record Step(long pid, long offset, Boolean commit) {
        @Override
        public String toString() {
            if (commit != null) return (commit ? "COMMIT" : "ABORT") + "(" + pid + ")";
            return pid == 0 ? "commit(" + offset + ")" : "txn" + pid + "(" + offset + ")";
        }
    }

    /**
     * Kafka's rules, by record offset: a marker commits its producer's pending offset unless the
     * committed one comes from a later record; the answer is the committed offset, and whether one
     * is still pending.
     */
    private static long[] model(List<Step> steps) {
        long[] committed = null; // value, record offset
        Map<Long, long[]> pending = new HashMap<>();
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            if (s.commit() != null) {
                long[] p = pending.remove(s.pid());
                if (p != null && s.commit() && (committed == null || p[1] > committed[1])) committed = p;
            } else if (s.pid() == 0) {
                committed = new long[]{s.offset(), i};
            } else {
                pending.put(s.pid(), new long[]{s.offset(), i});
            }
        }
        return new long[]{committed == null ? -1 : committed[0], pending.isEmpty() ? 0 : 1};
    }

    private void play(Step s) {
        if (s.commit() != null) {
            complete(s.pid(), s.commit());
        } else if (s.pid() == 0) {
            assertThat(done(h.commit("g", -1, "", null, 8, "t", 0, s.offset(), "m")).topics().get(0).partitions().get(0)
                    .errorCode()).isZero();
        } else {
            assertThat(txnCommit("g", s.pid(), -1, "", null, s.offset())).isEqualTo(Errors.NONE);
        }
    }

    private static void permutations(List<Step> rest, List<Step> prefix, List<List<Step>> out) {
        if (rest.isEmpty()) {
            out.add(List.copyOf(prefix));
            return;
        }
        for (int i = 0; i < rest.size(); i++) {
            List<Step> next = new ArrayList<>(rest);
            prefix.add(next.remove(i));
            permutations(next, prefix, out);
            prefix.remove(prefix.size() - 1);
        }
    }

    @Test
    void liveAndReloadedOffsetsFollowKafkasRulesInEveryOrderOfOffsetsCommitsAndMarkers() {
        int cases = 0;
        for (boolean commit1 : new boolean[]{true, false}) {
            for (boolean commit2 : new boolean[]{true, false}) {
                List<List<Step>> orders = new ArrayList<>();
                permutations(List.of(new Step(1, 10, null), new Step(2, 20, null), new Step(0, 30, null),
                        new Step(1, 0, commit1), new Step(2, 0, commit2)), new ArrayList<>(), orders);
                for (List<Step> order : orders) {
                    long[] expected = model(order);
                    h = new GroupHarness();
                    for (Step s : order) play(s);
                    assertThat(new long[]{h.committed("g", "t", 0), unstable() ? 1 : 0}).as("live: %s", order)
                            .containsExactly(expected);
                    restart();
                    assertThat(new long[]{h.committed("g", "t", 0), unstable() ? 1 : 0}).as("reloaded: %s", order)
                            .containsExactly(expected);
                    cases++;
                }
            }
        }
        assertThat(cases).isEqualTo(4 * 120);
    }

    @Test
    void aReloadStoppedAtEveryRecordLeavesWhatTheModelSaysAndTheRestCompletesIt() {
        // every prefix of a log is a state a crash can leave: reload it, then write the rest live
        List<Step> order = List.of(new Step(0, 5, null), new Step(1, 10, null), new Step(2, 20, null),
                new Step(2, 0, true), new Step(0, 30, null), new Step(1, 0, true), new Step(3, 40, null),
                new Step(3, 0, false));
        for (int cut = 0; cut <= order.size(); cut++) {
            h = new GroupHarness();
            for (Step s : order.subList(0, cut)) play(s);
            restart();
            long[] atCut = model(order.subList(0, cut));
            assertThat(new long[]{h.committed("g", "t", 0), unstable() ? 1 : 0}).as("cut at %d", cut).containsExactly(atCut);
            for (Step s : order.subList(cut, order.size())) play(s);
            assertThat(new long[]{h.committed("g", "t", 0), unstable() ? 1 : 0}).as("cut at %d, then the rest", cut)
                    .containsExactly(model(order));
        }
    }
}
