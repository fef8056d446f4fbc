package io.brook.coordinator.group;

import static io.brook.coordinator.group.GroupHarness.SESSION;
import static io.brook.coordinator.group.GroupHarness.done;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.brook.coordinator.runtime.CoordinatorLog;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.InMemoryCoordinatorLog;
import io.brook.testkit.MutableClock;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.message.SyncGroupResponse;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A coordinator restarted over the same log sees what the previous one made durable. */
@Timeout(10)
class ReplayTest {

    private static GroupHarness restart(GroupHarness before) {
        before.coordinator.close();
        return new GroupHarness(GroupHarness.config(), before.log, before.clock);
    }

    @Test
    void shouldKeepCommittedOffsetsAcrossRestart() {
        GroupHarness h = new GroupHarness();
        done(h.commit("g", -1, "", null, 8, "t", 0, 10, "meta"));
        done(h.commit("g", -1, "", null, 8, "t", 0, 11, "newer"));
        done(h.commit("other", -1, "", null, 8, "u", 3, 30, ""));
        GroupHarness after = restart(h);
        assertThat(after.committed("g", "t", 0)).isEqualTo(11);
        assertThat(after.fetch("g", "t", 0, false).metadata()).isEqualTo("newer");
        assertThat(after.fetch("g", "t", 0, false).committedLeaderEpoch()).isEqualTo(3);
        assertThat(after.committed("other", "u", 3)).isEqualTo(30);
        assertThat(after.state("g")).isEqualTo(GroupState.EMPTY);
    }

    @Test
    void shouldRestoreGenerationMembersAndAssignmentsAcrossRestart() {
        GroupHarness h = new GroupHarness();
        JoinGroupResponse a = done(h.joinStatic("g", "", "inst-a", "range"));
        done(h.syncStatic("g", 1, a.memberId(), "inst-a", a.memberId(), "A-assignment"));
        done(h.commit("g", 1, a.memberId(), "inst-a", 8, "t", 0, 99, ""));

        GroupHarness after = restart(h);
        ClassicGroup g = after.group("g");
        assertThat(g.state).isEqualTo(GroupState.STABLE);
        assertThat(g.generation).isEqualTo(1);
        assertThat(g.protocolName).isEqualTo("range");
        assertThat(g.protocolType).isEqualTo("consumer");
        assertThat(g.leaderId).isEqualTo(a.memberId());
        assertThat(after.committed("g", "t", 0)).isEqualTo(99);
        // The member can carry on where it was, and its assignment is still there.
        assertThat(after.heartbeat("g", 1, a.memberId(), "inst-a")).isEqualTo(Errors.NONE);
        SyncGroupResponse s = done(after.syncStatic("g", 1, a.memberId(), "inst-a"));
        assertThat(new String(s.assignment(), StandardCharsets.UTF_8)).isEqualTo("A-assignment");
        // A restarted static member gets it back without a rebalance.
        JoinGroupResponse a2 = done(after.joinStatic("g", "", "inst-a", "range"));
        assertThat(a2.generationId()).isEqualTo(1);
        assertThat(after.state("g")).isEqualTo(GroupState.STABLE);
    }

    @Test
    void shouldExpireReloadedMembersThatDoNotComeBack() {
        GroupHarness h = new GroupHarness();
        String id = done(h.joinNew("g", "range")).memberId();
        done(h.sync("g", 1, id, id, "x"));
        GroupHarness after = restart(h);
        assertThat(after.state("g")).isEqualTo(GroupState.STABLE);
        after.advance(SESSION);
        assertThat(after.state("g")).isEqualTo(GroupState.EMPTY);
        assertThat(after.group("g").generation).isEqualTo(2);
        // The Empty group with its new generation is persisted as well.
        GroupHarness third = restart(after);
        assertThat(third.state("g")).isEqualTo(GroupState.EMPTY);
        assertThat(third.group("g").generation).isEqualTo(2);
    }

    @Test
    void shouldNotResurrectDeletedGroupsOrOffsets() {
        GroupHarness h = new GroupHarness();
        done(h.commit("gone", -1, "", null, 8, "t", 0, 1, ""));
        done(h.commit("kept", -1, "", null, 8, "t", 0, 1, ""));
        done(h.commit("kept", -1, "", null, 8, "t", 1, 2, ""));
        CompletableFuture<?> del = h.coordinator.deleteGroups(new io.brook.wire.message.DeleteGroupsRequest()
                .groupsNames(new java.util.ArrayList<>(List.of("gone"))), (short) 2);
        h.run();
        done(del);
        io.brook.wire.message.OffsetDeleteRequest od = new io.brook.wire.message.OffsetDeleteRequest().groupId("kept")
                .topics(new java.util.ArrayList<>(List.of(new io.brook.wire.message.OffsetDeleteRequest.OffsetDeleteRequestTopic().name("t")
                        .partitions(new java.util.ArrayList<>(List.of(new io.brook.wire.message.OffsetDeleteRequest.OffsetDeleteRequestPartition().partitionIndex(0)))))));
        CompletableFuture<?> odf = h.coordinator.deleteOffsets(od, (short) 0);
        h.run();
        done(odf);
        GroupHarness after = restart(h);
        assertThat(after.group("gone")).isNull();
        assertThat(after.committed("kept", "t", 0)).isEqualTo(-1);
        assertThat(after.committed("kept", "t", 1)).isEqualTo(2);
    }

    @Test
    void shouldWriteEachGroupToItsOwnPartition() {
        GroupHarness h = new GroupHarness();
        List<Integer> partitions = new java.util.ArrayList<>();
        CoordinatorLog spy = new CoordinatorLog() {
            @Override
            public CompletableFuture<Long> append(int partition, List<CoordinatorRecord> records) {
                partitions.add(partition);
                assertThat(records).allMatch(r -> r.partition() == partition);
                return h.log.append(partition, records);
            }

            @Override
            public io.brook.coordinator.runtime.ReplayChunk read(int partition, long fromOffset, int maxBytes) {
                return io.brook.coordinator.runtime.ReplayChunk.end(fromOffset);
            }
        };
        GroupCoordinator c = new GroupCoordinator(GroupHarness.config(), spy, h.clock, false);
        c.start();
        for (String g : List.of("alpha", "beta", "gamma", "delta")) {
            c.commitOffsets(new io.brook.wire.message.OffsetCommitRequest().groupId(g).topics(new java.util.ArrayList<>(List.of(
                    new io.brook.wire.message.OffsetCommitRequest.OffsetCommitRequestTopic().name("t").partitions(new java.util.ArrayList<>(List.of(
                            new io.brook.wire.message.OffsetCommitRequest.OffsetCommitRequestPartition().committedOffset(1))))))), (short) 8);
        }
        c.runPending();
        assertThat(partitions).containsExactly(c.partitionFor("alpha"), c.partitionFor("beta"), c.partitionFor("gamma"), c.partitionFor("delta"));
        assertThat(partitions).allMatch(p -> p >= 0 && p < 4);
        assertThat(c.partitionFor("alpha")).isEqualTo(Math.abs("alpha".hashCode()) % 4);
    }

    @Test
    void shouldSkipMalformedRecordsOnReplay() {
        InMemoryCoordinatorLog log = new InMemoryCoordinatorLog();
        log.append(0, List.of(
                new CoordinatorRecord(0, new byte[]{0, 1, 0}, new byte[]{1}),
                new CoordinatorRecord(0, CoordinatorRecords.offsetKey("g", "t", 0),
                        CoordinatorRecords.offsetValue(new CoordinatorRecords.OffsetValue(5, -1, "", 0))))).join();
        GroupHarness h = new GroupHarness(GroupHarness.config(), log, new MutableClock(0));
        assertThat(h.coordinator.replaySkipped()).isEqualTo(1);
        assertThat(h.committed("g", "t", 0)).isEqualTo(5);
    }
}
