package io.brook.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

class TxnProduceOrderTest {

    private static final Executor INLINE = Runnable::run;

    @Test
    void requestsOfAnIdWaitBehindOneThatWaitsAndRunInArrivalOrder() {
        TxnProduceOrder order = new TxnProduceOrder();
        List<String> ran = new ArrayList<>();
        List<String> detached = new ArrayList<>();
        CompletableFuture<Void> firstAppended = new CompletableFuture<>();
        order.run("t", INLINE, () -> detached.add("1"), () -> {
            ran.add("1");
            return firstAppended;
        });
        order.run("t", INLINE, () -> detached.add("2"), () -> {
            ran.add("2");
            return null;
        });
        order.run("t", INLINE, () -> detached.add("3"), () -> {
            ran.add("3");
            return null;
        });
        order.run("other", INLINE, () -> detached.add("other"), () -> {
            ran.add("other");
            return null;
        });
        assertThat(ran).containsExactly("1", "other");
        assertThat(detached).containsExactly("2", "3");

        firstAppended.complete(null);
        assertThat(ran).containsExactly("1", "other", "2", "3");
    }

    @Test
    void aRequestAfterTheQueueDrainedRunsAtOnce() {
        TxnProduceOrder order = new TxnProduceOrder();
        List<String> ran = new ArrayList<>();
        CompletableFuture<Void> appended = new CompletableFuture<>();
        order.run("t", INLINE, () -> { }, () -> appended);
        appended.complete(null);
        order.run("t", INLINE, () -> ran.add("detached"), () -> {
            ran.add("ran");
            return null;
        });
        assertThat(ran).containsExactly("ran");
    }
}
