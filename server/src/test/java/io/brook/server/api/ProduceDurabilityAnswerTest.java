package io.brook.server.api;

import io.brook.wire.message.ProduceResponse.PartitionProduceResponse;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** How an acks=all partition's answer follows the durability of its append. */
class ProduceDurabilityAnswerTest {

    @Test
    void shouldAnswerStorageErrorWhenTheDurabilityFutureFailedBeforeItWasAsked() {
        PartitionProduceResponse r = new PartitionProduceResponse().errorCode(Errors.NONE.code()).baseOffset(7);
        List<ProduceHandler.PendingDurability> pending = new ArrayList<>();

        ProduceHandler.awaitOrAnswer(r, CompletableFuture.failedFuture(new IOException("log failed")), pending);

        assertThat(Errors.forCode(r.errorCode())).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(r.baseOffset()).isEqualTo(-1L);
        assertThat(pending).isEmpty();
    }

    @Test
    void shouldWaitForAPendingFutureAndAnswerACompletedOneAtOnce() {
        PartitionProduceResponse waiting = new PartitionProduceResponse().errorCode(Errors.NONE.code());
        PartitionProduceResponse done = new PartitionProduceResponse().errorCode(Errors.NONE.code());
        List<ProduceHandler.PendingDurability> pending = new ArrayList<>();

        ProduceHandler.awaitOrAnswer(waiting, new CompletableFuture<>(), pending);
        ProduceHandler.awaitOrAnswer(done, CompletableFuture.completedFuture(null), pending);

        assertThat(pending).hasSize(1);
        assertThat(Errors.forCode(done.errorCode())).isEqualTo(Errors.NONE);
    }
}
