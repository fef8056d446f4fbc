package io.brook.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.brook.coordinator.runtime.InMemoryCoordinatorLog;
import io.brook.testkit.Await;
import io.brook.wire.message.HeartbeatRequest;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.message.OffsetCommitRequest;
import io.brook.wire.message.OffsetCommitResponse;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.message.SyncGroupRequest;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The coordinator on its own thread, called from several others, as the server will use it. */
@Timeout(20)
class ThreadedGroupCoordinatorTest {

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void shouldServeGroupsAndCommitsFromManyThreads() throws Exception {
        InMemoryCoordinatorLog log = new InMemoryCoordinatorLog();
        try (GroupCoordinator c = new GroupCoordinator(GroupHarness.config(), log, Clock.systemUTC())) {
            c.start();
        get(c.loaded());
            get(c.loaded());
            JoinGroupResponse first = get(c.joinGroup(GroupHarness.joinRequest("g", "", null, "range"), (short) 9, "cli", "h"));
            assertThat(Errors.forCode(first.errorCode())).isEqualTo(Errors.MEMBER_ID_REQUIRED);
            JoinGroupResponse joined = get(c.joinGroup(GroupHarness.joinRequest("g", first.memberId(), null, "range"), (short) 9, "cli", "h"));
            assertThat(joined.generationId()).isEqualTo(1);
            get(c.syncGroup(new SyncGroupRequest().groupId("g").generationId(1).memberId(joined.memberId()), (short) 5));
            assertThat(get(c.heartbeat(new HeartbeatRequest().groupId("g").generationId(1).memberId(joined.memberId()), (short) 4)).errorCode())
                    .isEqualTo(Errors.NONE.code());

            int threads = 4;
            int commitsEach = 200;
            List<Thread> workers = new ArrayList<>();
            List<CompletableFuture<OffsetCommitResponse>> results = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < threads; t++) {
                int id = t;
                Thread w = new Thread(() -> {
                    for (int i = 0; i < commitsEach; i++) {
                        OffsetCommitRequest r = new OffsetCommitRequest().groupId("simple-" + id).topics(new ArrayList<>(List.of(
                                new OffsetCommitRequest.OffsetCommitRequestTopic().name("t").partitions(new ArrayList<>(List.of(
                                        new OffsetCommitRequest.OffsetCommitRequestPartition().partitionIndex(0).committedOffset(i)))))));
                        results.add(c.commitOffsets(r, (short) 8));
                    }
                });
                workers.add(w);
                w.start();
            }
            for (Thread w : workers) w.join();
            for (CompletableFuture<OffsetCommitResponse> f : results) {
                assertThat(get(f).topics().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.NONE.code());
            }
            for (int t = 0; t < threads; t++) {
                OffsetFetchResponse r = get(c.fetchOffsets(new OffsetFetchRequest().groupId("simple-" + t).topics(null), (short) 7));
                assertThat(r.topics().get(0).partitions().get(0).committedOffset()).isEqualTo(commitsEach - 1);
            }
        }
    }

    @Test
    void shouldAnswerParkedAndLaterRequestsWithNotCoordinatorAfterClose() throws Exception {
        GroupCoordinator c = new GroupCoordinator(GroupHarness.config().withInitialRebalanceDelayMs(60_000),
                new InMemoryCoordinatorLog(), Clock.systemUTC());
        c.start();
        get(c.loaded());
        CompletableFuture<JoinGroupResponse> parked = c.joinGroup(GroupHarness.joinRequest("g", "", null, "range"), (short) 3, "cli", "h");
        // Make sure the join reached the coordinator thread before closing.
        get(c.heartbeat(new HeartbeatRequest().groupId("g").generationId(0).memberId("x"), (short) 4));
        assertThat(parked).isNotDone();
        c.close();
        assertThat(get(parked).errorCode()).isEqualTo(Errors.NOT_COORDINATOR.code());
        assertThat(get(c.heartbeat(new HeartbeatRequest().groupId("g"), (short) 4)).errorCode()).isEqualTo(Errors.NOT_COORDINATOR.code());
    }

    @Test
    void shouldStillAnswerCommitsWhoseWriteCompletesAfterClose() throws Exception {
        InMemoryCoordinatorLog log = new InMemoryCoordinatorLog();
        GroupCoordinator c = new GroupCoordinator(GroupHarness.config(), log, Clock.systemUTC());
        c.start();
        get(c.loaded());
        log.holdAppends(true);
        CompletableFuture<OffsetCommitResponse> f = c.commitOffsets(new OffsetCommitRequest().groupId("g").topics(new ArrayList<>(List.of(
                new OffsetCommitRequest.OffsetCommitRequestTopic().name("t").partitions(new ArrayList<>(List.of(
                        new OffsetCommitRequest.OffsetCommitRequestPartition().committedOffset(5))))))), (short) 8);
        Await.until("the commit reached the log", () -> log.heldCount() > 0);
        assertThat(log.heldCount()).isEqualTo(1);
        c.close();
        assertThat(f).isNotDone();
        log.releaseHeld();
        assertThat(get(f).topics().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.NONE.code());
    }
}
