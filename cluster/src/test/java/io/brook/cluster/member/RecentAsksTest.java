package io.brook.cluster.member;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cluster.controller.ControllerError;
import io.brook.cluster.metadata.CorruptMetadataException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The controller decides an ask once however often it is sent; the envelope carries its id. */
class RecentAsksTest {

    private static final ControllerAsk.Id A = new ControllerAsk.Id(2, 77, 1);
    private static final ControllerAsk.Id B = new ControllerAsk.Id(2, 77, 2);

    @Test
    void anAskSentAgainGetsTheFirstAnswerEvenBeforeItIsGiven() {
        RecentAsks recent = new RecentAsks(8);
        AtomicInteger decided = new AtomicInteger();
        CompletableFuture<byte[]> pending = new CompletableFuture<>();

        CompletableFuture<byte[]> first = recent.answer(A, () -> {
            decided.incrementAndGet();
            return pending;
        });
        CompletableFuture<byte[]> again = recent.answer(A, () -> {
            decided.incrementAndGet();
            return CompletableFuture.completedFuture(new byte[] {9});
        });
        assertThat(again).isNotDone();
        pending.complete(new byte[] {1});

        assertThat(decided).hasValue(1);
        assertThat(first.join()).containsExactly(1);
        assertThat(again.join()).containsExactly(1);
        // another ask of the same channel is decided on its own
        assertThat(recent.answer(B, () -> {
            decided.incrementAndGet();
            return CompletableFuture.completedFuture(new byte[] {2});
        }).join()).containsExactly(2);
        assertThat(decided).hasValue(2);
    }

    @Test
    void theOldestAsksAreForgottenBeyondTheCapacity() {
        RecentAsks recent = new RecentAsks(2);
        AtomicInteger decided = new AtomicInteger();
        for (long seq = 1; seq <= 3; seq++) {
            recent.answer(new ControllerAsk.Id(1, 5, seq), () -> {
                decided.incrementAndGet();
                return CompletableFuture.completedFuture(new byte[0]);
            });
        }
        assertThat(recent.size()).isEqualTo(2);
        recent.answer(new ControllerAsk.Id(1, 5, 1), () -> {
            decided.incrementAndGet();
            return CompletableFuture.completedFuture(new byte[0]);
        });
        assertThat(decided).as("the first ask was forgotten, so decided again").hasValue(4);
    }

    @Test
    void aDecisionThatThrowsFailsItsAnswerAndStaysRemembered() {
        RecentAsks recent = new RecentAsks(8);
        CompletableFuture<byte[]> failed = recent.answer(A, () -> {
            throw new IllegalStateException("broken");
        });
        assertThat(failed).isCompletedExceptionally();
        assertThat(recent.answer(A, () -> CompletableFuture.completedFuture(new byte[0])))
                .as("sent again: the same failure, not a second decision").isSameAs(failed);
    }

    @Test
    void theEnvelopeCarriesTheIdAndTheRequestAndABareRequestPassesThrough() {
        byte[] request = new ControllerRequest.ReadBarrier().encode();
        ControllerAsk ask = ControllerAsk.unwrap(ByteBuffer.wrap(ControllerAsk.wrap(A, request)));
        assertThat(ask.id()).isEqualTo(A);
        assertThat(ControllerRequest.decode(ask.request())).isEqualTo(new ControllerRequest.ReadBarrier());

        ControllerAsk bare = ControllerAsk.unwrap(ByteBuffer.wrap(request));
        assertThat(bare.id()).isNull();
        assertThat(ControllerRequest.decode(bare.request())).isEqualTo(new ControllerRequest.ReadBarrier());
        assertThat(ControllerAsk.unwrap(ByteBuffer.wrap(new byte[] {'B', 'A'})).id()).as("too short for an id").isNull();
    }

    @Test
    void aControllerOfAnEarlierVersionRefusesTheEnvelopeInAWayTheAskingNodeRecognises() {
        // what a controller that reads only bare requests answers an envelope: its decode refuses the magic
        String refusal = null;
        try {
            ControllerRequest.decode(ByteBuffer.wrap(ControllerAsk.wrap(A, new ControllerRequest.ReadBarrier().encode())));
        } catch (CorruptMetadataException e) {
            refusal = e.getMessage();
        }
        assertThat(ControllerAsk.refusedByEarlierVersion(
                ControllerReply.refused(ControllerError.INVALID_REQUEST, refusal))).isTrue();
        // any other refusal is the controller's answer
        assertThat(ControllerAsk.refusedByEarlierVersion(
                ControllerReply.refused(ControllerError.INVALID_REQUEST, "controller request version 9 is unknown")))
                .isFalse();
        assertThat(ControllerAsk.refusedByEarlierVersion(
                ControllerReply.refused(ControllerError.NOT_CONTROLLER, refusal))).isFalse();
    }
}
