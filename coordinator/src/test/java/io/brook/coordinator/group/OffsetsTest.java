package io.brook.coordinator.group;

import static io.brook.coordinator.group.GroupHarness.done;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.brook.coordinator.runtime.CoordinatorLogException;
import io.brook.coordinator.runtime.CoordinatorLogException.Reason;
import io.brook.wire.message.JoinGroupRequest;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.message.OffsetCommitResponse;
import io.brook.wire.message.OffsetDeleteRequest;
import io.brook.wire.message.OffsetDeleteResponse;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** OffsetCommit, OffsetFetch, OffsetDelete and the expiry of committed offsets. */
@Timeout(10)
class OffsetsTest {

    // ------------------------------------------------------------------ OffsetCommit validation

    @Test
    void shouldCreateSimpleGroupOnStandaloneCommit() {
        GroupHarness h = new GroupHarness();
        assertThat(h.commitError("simple", -1, "", 8)).isEqualTo(Errors.NONE);
        assertThat(h.state("simple")).isEqualTo(GroupState.EMPTY);
        assertThat(h.group("simple").protocolType).isNull();
        assertThat(h.committed("simple", "t", 0)).isEqualTo(42);
        assertThat(h.fetch("simple", "t", 0, false).committedLeaderEpoch()).isEqualTo(3);
        assertThat(h.fetch("simple", "t", 0, false).metadata()).isEqualTo("m");
        // Again, now that the group exists and is Empty.
        assertThat(h.commitError("simple", -1, "", 8)).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldRejectCommitToUnknownGroupWithGenerationByVersion() {
        GroupHarness h = new GroupHarness();
        assertThat(h.commitError("nope", 1, "m", 8)).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(h.commitError("nope", 1, "m", 9)).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        assertThat(h.group("nope")).isNull();
    }

    /** Kafka keeps the empty group id for standalone commits (clients from before KIP-289 defaulted to it). */
    @Test
    void shouldAcceptStandaloneCommitsToTheEmptyGroupId() {
        GroupHarness h = new GroupHarness();
        assertThat(h.commitError("", -1, "", 9)).isEqualTo(Errors.NONE);
        assertThat(h.group("")).isNotNull();
        assertThat(h.commitError("", 1, "m", 9)).as("no member joins the empty group").isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void shouldValidateCommitsAgainstMembershipAndGeneration() {
        GroupHarness h = new GroupHarness();
        String id = h.stableConsumer("g", "t");
        assertThat(h.commitError("g", 1, id, 8)).isEqualTo(Errors.NONE);
        assertThat(h.commitError("g", -1, "", 8)).as("standalone commit to a non-empty group").isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(h.commitError("g", 1, "ghost", 8)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(h.commitError("g", 7, id, 8)).isEqualTo(Errors.ILLEGAL_GENERATION);
        // PreparingRebalance: commits of the current generation are still accepted.
        CompletableFuture<JoinGroupResponse> newcomer = h.joinNew("g", "range");
        assertThat(h.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(h.commitError("g", 1, id, 8)).isEqualTo(Errors.NONE);
        // CompletingRebalance: rejected.
        done(h.join("g", id, "range"));
        done(newcomer);
        assertThat(h.state("g")).isEqualTo(GroupState.COMPLETING_REBALANCE);
        assertThat(h.commitError("g", 2, id, 8)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
    }

    @Test
    void shouldRejectOnlyPartitionsWithTooLargeMetadata() {
        GroupHarness h = new GroupHarness();
        io.brook.wire.message.OffsetCommitRequest request = new io.brook.wire.message.OffsetCommitRequest().groupId("g")
                .generationIdOrMemberEpoch(-1).memberId("").topics(new ArrayList<>(List.of(
                        new io.brook.wire.message.OffsetCommitRequest.OffsetCommitRequestTopic().name("t").partitions(new ArrayList<>(List.of(
                                new io.brook.wire.message.OffsetCommitRequest.OffsetCommitRequestPartition().partitionIndex(0)
                                        .committedOffset(5).committedMetadata("x".repeat(4097)),
                                new io.brook.wire.message.OffsetCommitRequest.OffsetCommitRequestPartition().partitionIndex(1)
                                        .committedOffset(6).committedMetadata("x".repeat(4096))))))));
        CompletableFuture<OffsetCommitResponse> f = h.coordinator.commitOffsets(request, (short) 8);
        h.run();
        assertThat(done(f).topics().get(0).partitions()).extracting(p -> Errors.forCode(p.errorCode()))
                .containsExactly(Errors.OFFSET_METADATA_TOO_LARGE, Errors.NONE);
        assertThat(h.committed("g", "t", 0)).isEqualTo(-1);
        assertThat(h.committed("g", "t", 1)).isEqualTo(6);
    }

    @Test
    void shouldAnswerCommitOnlyAfterRecordsAreDurable() {
        GroupHarness h = new GroupHarness();
        h.log.holdAppends(true);
        CompletableFuture<OffsetCommitResponse> f = h.commit("g", -1, "", null, 8, "t", 0, 10, null);
        assertThat(f).isNotDone();
        assertThat(h.committed("g", "t", 0)).as("not visible before durable").isEqualTo(-1);
        h.log.releaseHeld();
        h.run();
        assertThat(Errors.forCode(done(f).topics().get(0).partitions().get(0).errorCode())).isEqualTo(Errors.NONE);
        assertThat(h.committed("g", "t", 0)).isEqualTo(10);
        assertThat(h.fetch("g", "t", 0, false).metadata()).as("null metadata is stored as empty").isEmpty();
    }

    @Test
    void shouldReportCoordinatorNotAvailableWhenAppendFails() {
        GroupHarness h = new GroupHarness();
        h.log.failAppends(true);
        OffsetCommitResponse r = done(h.commit("g", -1, "", null, 8, "t", 0, 10, ""));
        assertThat(Errors.forCode(r.topics().get(0).partitions().get(0).errorCode())).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(h.committed("g", "t", 0)).isEqualTo(-1);
    }

    @Test
    void shouldMapFailedOffsetWritesLikeKafka() {
        assertThat(GroupOffsets.commitAppendError(new CoordinatorLogException(Reason.RECORDS_TOO_LARGE, "big")))
                .isEqualTo(Errors.INVALID_COMMIT_OFFSET_SIZE);
        assertThat(GroupOffsets.commitAppendError(new CoordinatorLogException(Reason.NOT_LEADER, "moved")))
                .isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(GroupOffsets.commitAppendError(new CompletionException(new CoordinatorLogException(Reason.UNAVAILABLE, "disk"))))
                .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(GroupOffsets.commitAppendError(new IllegalStateException())).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
    }

    // ------------------------------------------------------------------ OffsetFetch

    @Test
    void shouldFetchAllCommittedOffsetsWhenTopicsIsNull() {
        GroupHarness h = new GroupHarness();
        done(h.commit("g", -1, "", null, 8, "b", 1, 11, ""));
        done(h.commit("g", -1, "", null, 8, "a", 0, 10, ""));
        CompletableFuture<OffsetFetchResponse> f = h.coordinator.fetchOffsets(new OffsetFetchRequest().groupId("g").topics(null), (short) 7);
        h.run();
        OffsetFetchResponse r = done(f);
        assertThat(r.topics()).extracting(OffsetFetchResponse.OffsetFetchResponseTopic::name).containsExactly("a", "b");
        assertThat(r.topics().get(1).partitions().get(0).committedOffset()).isEqualTo(11);
        // Unknown group: nothing committed, no error.
        CompletableFuture<OffsetFetchResponse> none = h.coordinator.fetchOffsets(new OffsetFetchRequest().groupId("x").topics(null), (short) 7);
        h.run();
        assertThat(done(none).topics()).isEmpty();
        assertThat(h.fetch("x", "t", 3, false).committedOffset()).isEqualTo(-1);
        assertThat(h.fetch("x", "t", 3, false).committedLeaderEpoch()).isEqualTo(-1);
    }

    @Test
    void shouldFetchSeveralGroupsInOneRequestFromV8() {
        GroupHarness h = new GroupHarness();
        done(h.commit("g1", -1, "", null, 8, "t", 0, 100, ""));
        done(h.commit("g2", -1, "", null, 8, "t", 0, 200, ""));
        OffsetFetchRequest request = new OffsetFetchRequest().groups(new ArrayList<>(List.of(
                new OffsetFetchRequest.OffsetFetchRequestGroup().groupId("g1").topics(new ArrayList<>(List.of(
                        new OffsetFetchRequest.OffsetFetchRequestTopics().name("t").partitionIndexes(new ArrayList<>(List.of(0, 1)))))),
                new OffsetFetchRequest.OffsetFetchRequestGroup().groupId("g2").topics(null))));
        CompletableFuture<OffsetFetchResponse> f = h.coordinator.fetchOffsets(request, (short) 8);
        h.run();
        OffsetFetchResponse r = done(f);
        assertThat(r.groups()).extracting(OffsetFetchResponse.OffsetFetchResponseGroup::groupId).containsExactly("g1", "g2");
        assertThat(r.groups().get(0).topics().get(0).partitions())
                .extracting(OffsetFetchResponse.OffsetFetchResponsePartitions::committedOffset).containsExactly(100L, -1L);
        assertThat(r.groups().get(1).topics().get(0).partitions().get(0).committedOffset()).isEqualTo(200);
    }

    @Test
    void shouldReportUnstableOffsetOnlyWhenStableIsRequired() {
        GroupHarness h = new GroupHarness();
        done(h.commit("g", -1, "", null, 8, "t", 0, 10, ""));
        h.coordinator.offsets().markPendingTransactional("g", "t", 0, true);
        assertThat(Errors.forCode(h.fetch("g", "t", 0, true).errorCode())).isEqualTo(Errors.UNSTABLE_OFFSET_COMMIT);
        assertThat(h.fetch("g", "t", 0, false).committedOffset()).isEqualTo(10);
        h.coordinator.offsets().markPendingTransactional("g", "t", 0, false);
        assertThat(h.fetch("g", "t", 0, true).committedOffset()).isEqualTo(10);
    }

    @Test
    void shouldRefuseToDeleteOffsetsOfSubscribedTopics() {
        GroupHarness h = new GroupHarness();
        String id = h.stableConsumer("g", "in-use");
        done(h.commit("g", 1, id, null, 8, "in-use", 0, 5, ""));
        done(h.commit("g", 1, id, null, 8, "old", 0, 6, ""));
        OffsetDeleteResponse r = deleteOffsets(h, "g", "in-use", "old");
        assertThat(Errors.forCode(r.errorCode())).isEqualTo(Errors.NONE);
        assertThat(r.topics()).extracting(t -> t.name() + "=" + Errors.forCode(t.partitions().get(0).errorCode()))
                .containsExactly("in-use=GROUP_SUBSCRIBED_TO_TOPIC", "old=NONE");
        assertThat(h.committed("g", "in-use", 0)).isEqualTo(5);
        assertThat(h.committed("g", "old", 0)).isEqualTo(-1);

        assertThat(Errors.forCode(deleteOffsets(h, "missing", "t").errorCode())).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
    }

    @Test
    void shouldDeleteAnyOffsetOfEmptyGroup() {
        GroupHarness h = new GroupHarness();
        done(h.commit("g", -1, "", null, 8, "t", 0, 5, ""));
        OffsetDeleteResponse r = deleteOffsets(h, "g", "t");
        assertThat(Errors.forCode(r.topics().get(0).partitions().get(0).errorCode())).isEqualTo(Errors.NONE);
        assertThat(h.committed("g", "t", 0)).isEqualTo(-1);
    }

    @Test
    void shouldRefuseOffsetDeleteForNonConsumerGroupWithMembers() {
        GroupHarness h = new GroupHarness();
        JoinGroupRequest req = GroupHarness.joinRequest("g", "", null, "x").protocolType("connect");
        String id = done(h.join(req, 9)).memberId();
        done(h.join(req.memberId(id), 9));
        assertThat(Errors.forCode(deleteOffsets(h, "g", "t").errorCode())).isEqualTo(Errors.NON_EMPTY_GROUP);
    }

    private static OffsetDeleteResponse deleteOffsets(GroupHarness h, String group, String... topics) {
        List<OffsetDeleteRequest.OffsetDeleteRequestTopic> list = new ArrayList<>();
        for (String t : topics) {
            list.add(new OffsetDeleteRequest.OffsetDeleteRequestTopic().name(t).partitions(new ArrayList<>(List.of(
                    new OffsetDeleteRequest.OffsetDeleteRequestPartition().partitionIndex(0)))));
        }
        CompletableFuture<OffsetDeleteResponse> f = h.coordinator.deleteOffsets(new OffsetDeleteRequest().groupId(group).topics(list), (short) 0);
        h.run();
        return done(f);
    }

    // ------------------------------------------------------------------ expiry

    @Test
    void shouldExpireOffsetsOfSimpleGroupByCommitTimeAndDropTheGroup() {
        GroupHarness h = new GroupHarness(GroupHarness.config().withOffsetsRetention(100_000, 10_000));
        done(h.commit("g", -1, "", null, 8, "t", 0, 5, ""));
        h.advance(50_000);
        done(h.commit("g", -1, "", null, 8, "t", 1, 6, ""));
        h.advance(50_000);
        assertThat(h.committed("g", "t", 0)).isEqualTo(-1);
        assertThat(h.committed("g", "t", 1)).isEqualTo(6);
        h.advance(50_000);
        assertThat(h.committed("g", "t", 1)).isEqualTo(-1);
        assertThat(h.group("g")).isNull();
    }

    @Test
    void shouldKeepOffsetsWhileGroupHasMembersAndExpireThemAfterItBecomesEmpty() {
        GroupHarness h = new GroupHarness(GroupHarness.config().withOffsetsRetention(100_000, 10_000));
        String id = h.stableConsumer("g", "t");
        done(h.commit("g", 1, id, null, 8, "t", 0, 5, ""));
        for (int i = 0; i < 30; i++) {
            h.advance(5_000);
            assertThat(h.heartbeat("g", 1, id)).isEqualTo(Errors.NONE);
        }
        assertThat(h.committed("g", "t", 0)).as("subscribed topic of a Stable group never expires").isEqualTo(5);
        h.leave("g", id, 1);
        assertThat(h.state("g")).isEqualTo(GroupState.EMPTY);
        h.advance(90_000);
        assertThat(h.committed("g", "t", 0)).isEqualTo(5);
        h.advance(20_000);
        assertThat(h.committed("g", "t", 0)).isEqualTo(-1);
    }

    @Test
    void shouldExpireOffsetsOfUnsubscribedTopicsOfStableConsumerGroup() {
        GroupHarness h = new GroupHarness(GroupHarness.config().withOffsetsRetention(100_000, 10_000));
        String id = h.stableConsumer("g", "t");
        done(h.commit("g", 1, id, null, 8, "gone", 0, 5, ""));
        for (int i = 0; i < 25; i++) {
            h.advance(5_000);
            h.heartbeat("g", 1, id);
        }
        assertThat(h.committed("g", "gone", 0)).isEqualTo(-1);
        assertThat(h.state("g")).isEqualTo(GroupState.STABLE);
    }
}
