package io.brook.server.cluster.interbroker;

import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * One request of the {@link InterBrokerClient} from {@code send} to its answer: the message, how
 * to read the answer, the caller's future, and (once sent) its correlation id. Confined to its
 * connection's event loop after {@code send}.
 */
final class PendingRequest<R extends ApiMessage> {

    final ApiMessage request;
    final short version;
    private final ResponseReader<R> reader;
    private final CompletableFuture<R> answer;
    int correlationId = -1;
    ScheduledFuture<?> timeout;

    PendingRequest(ApiMessage request, short version, ResponseReader<R> reader, CompletableFuture<R> answer) {
        this.request = request;
        this.version = version;
        this.reader = reader;
        this.answer = answer;
    }

    ApiKey apiKey() {
        return request.apiKey();
    }

    /** Reads the body (the buffer at the body's start) and completes the caller's future. */
    void answer(ByteBuffer body) {
        R r = reader.read(body, version);
        cancelTimeout();
        answer.complete(r);
    }

    void fail(Throwable cause) {
        cancelTimeout();
        answer.completeExceptionally(cause);
    }

    private void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel(false);
        }
    }

    @Override
    public String toString() {
        return request.apiKey() + " v" + version + (correlationId >= 0 ? " (correlation id " + correlationId + ")" : "");
    }
}
