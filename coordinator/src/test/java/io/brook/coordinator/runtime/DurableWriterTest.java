package io.brook.coordinator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.brook.testkit.MutableClock;
import org.junit.jupiter.api.Test;

class DurableWriterTest {

    private final EventLoop loop = new EventLoop(new MutableClock(0), e -> { throw new AssertionError(e); });

    @Test
    void shouldCompleteOnTheOwnerThreadOnlyOnceTheRecordsAreDurable() {
        InMemoryCoordinatorLog log = new InMemoryCoordinatorLog();
        DurableWriter writer = new DurableWriter(loop, log);
        log.holdAppends(true);
        CompletableFuture<Void> written = writer.write(0, List.of(new CoordinatorRecord(0, new byte[]{1}, null)));
        loop.runPending();
        assertThat(written).isNotDone();
        log.releaseHeld();
        assertThat(written).as("handed to the owner, not completed on the log's thread").isNotDone();
        loop.runPending();
        assertThat(written).isCompleted();
        assertThat(log.size()).isEqualTo(1);
    }

    @Test
    void shouldFailWithWhatTheLogThrewOrFailedWith() {
        IllegalStateException thrown = new IllegalStateException("thrown");
        DurableWriter throwing = new DurableWriter(loop, new CoordinatorLog() {
            @Override
            public CompletableFuture<Long> append(int partition, List<CoordinatorRecord> records) {
                throw thrown;
            }

            @Override
            public ReplayChunk read(int partition, long fromOffset, int maxBytes) {
                return ReplayChunk.end(fromOffset);
            }
        });
        CompletableFuture<Void> a = throwing.write(0, List.of(new CoordinatorRecord(0, new byte[]{1}, null)));
        InMemoryCoordinatorLog failing = new InMemoryCoordinatorLog();
        failing.failAppends(true);
        CompletableFuture<Void> b = new DurableWriter(loop, failing).write(0, List.of(new CoordinatorRecord(0, new byte[]{1}, null)));
        assertThat(a).isNotDone();
        assertThat(b).isNotDone();
        loop.runPending();
        assertThat(a.handle((v, e) -> e).join()).isSameAs(thrown);
        assertThat(b.handle((v, e) -> e).join()).isInstanceOf(CoordinatorLogException.class);
        assertThat(failing.size()).isZero();
    }
}
