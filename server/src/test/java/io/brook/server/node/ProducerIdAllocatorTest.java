package io.brook.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.coordinator.txn.ProducerIdsPending;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Producer ids in cluster mode: blocks from the controller, asked for ahead, never waited for on a caller's thread. */
class ProducerIdAllocatorTest {

    @TempDir
    Path meta;

    private final List<CompletableFuture<ProducerIdAllocator.Block>> requests = new ArrayList<>();

    private ProducerIdAllocator clustered() throws IOException {
        ProducerIdAllocator ids = ProducerIdAllocator.open(meta);
        ids.blocksFrom(() -> {
            CompletableFuture<ProducerIdAllocator.Block> f = new CompletableFuture<>();
            requests.add(f);
            return f;
        });
        return ids;
    }

    @Test
    void theNextBlockIsAskedForOnceNinetyPercentOfTheCurrentIsUsed() throws IOException {
        ProducerIdAllocator ids = clustered();
        CompletableFuture<Long> first = ids.nextAsync();
        assertThat(requests).hasSize(1);
        requests.get(0).complete(new ProducerIdAllocator.Block(0, 10));
        assertThat(first.join()).isZero();
        for (long i = 1; i < 8; i++) {
            assertThat(ids.nextOrPending()).isEqualTo(i);
        }
        assertThat(requests).hasSize(1);
        assertThat(ids.nextOrPending()).isEqualTo(8); // 9 of 10 used: the next block is asked for
        assertThat(requests).hasSize(2);
        requests.get(1).complete(new ProducerIdAllocator.Block(100, 10));
        assertThat(ids.nextOrPending()).isEqualTo(9);
        assertThat(ids.nextOrPending()).isEqualTo(100); // no wait at the block's end
        assertThat(requests).hasSize(2);
    }

    @Test
    void aCallerThatFindsNoIdIsToldWhenToAskAgainInsteadOfWaiting() throws IOException {
        ProducerIdAllocator ids = clustered();
        ProducerIdsPending pending = null;
        try {
            ids.nextOrPending();
        } catch (ProducerIdsPending p) {
            pending = p;
        }
        assertThat(pending).isNotNull();
        assertThat(pending.ready()).isNotDone();
        // callers that run out together share the one request
        assertThatThrownBy(ids::nextOrPending).isInstanceOf(ProducerIdsPending.class);
        CompletableFuture<Long> async = ids.nextAsync();
        assertThat(requests).hasSize(1);

        requests.get(0).complete(new ProducerIdAllocator.Block(2000, 1000));
        assertThat(pending.ready()).isDone();
        assertThat(async.join()).isEqualTo(2000);
        assertThat(ids.nextOrPending()).isEqualTo(2001);
    }

    @Test
    void aSingleNodeReservesItsOwnBlocks() throws IOException {
        ProducerIdAllocator ids = ProducerIdAllocator.open(meta);
        assertThat(ids.nextOrPending()).isZero();
        assertThat(ids.nextAsync().join()).isEqualTo(1);
        assertThat(ProducerIdAllocator.open(meta).nextOrPending()).isEqualTo(ProducerIdAllocator.BLOCK);
    }
}
