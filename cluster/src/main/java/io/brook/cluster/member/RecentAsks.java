package io.brook.cluster.member;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The controller's memory of the asks it decided lately ({@link ControllerAsk.Id} to the answer,
 * or the answer to come): an ask sent again gets the first one's answer instead of a second
 * decision. Ratis keeps the same kind of table for the writes it is sent again.
 *
 * <p>Bounded: the newest {@code capacity} asks, the oldest forgotten first. An ask is sent again
 * within seconds (a query's time-out is 10 s), while a controller decides at most a few thousand
 * asks in that time. The memory is this node's: after a change of controller, an ask sent again
 * to the new one is decided again, as Kafka's controller does with a request forwarded twice.
 *
 * <p>Thread-safe (asks arrive on Ratis' threads).
 */
final class RecentAsks {
    private final Map<ControllerAsk.Id, CompletableFuture<byte[]>> answers;

    RecentAsks(int capacity) {
        this.answers = new LinkedHashMap<>(capacity * 4 / 3 + 1, 0.75f, false) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<ControllerAsk.Id, CompletableFuture<byte[]>> eldest) {
                return size() > capacity;
            }
        };
    }

    /**
     * The answer to {@code id}: the one given (or being given) to an earlier sending of it, else
     * {@code decide}'s, remembered. {@code decide} runs on the calling thread, outside this table's
     * lock; a sending of the same ask meanwhile waits for its answer.
     */
    CompletableFuture<byte[]> answer(ControllerAsk.Id id, Supplier<CompletableFuture<byte[]>> decide) {
        CompletableFuture<byte[]> answer;
        synchronized (this) {
            CompletableFuture<byte[]> earlier = answers.get(id);
            if (earlier != null) {
                return earlier;
            }
            answer = new CompletableFuture<>();
            answers.put(id, answer);
        }
        try {
            decide.get().whenComplete((bytes, e) -> {
                if (e != null) {
                    answer.completeExceptionally(e);
                } else {
                    answer.complete(bytes);
                }
            });
        } catch (RuntimeException e) {
            answer.completeExceptionally(e);
        }
        return answer;
    }

    /** How many asks are remembered. */
    synchronized int size() {
        return answers.size();
    }
}
