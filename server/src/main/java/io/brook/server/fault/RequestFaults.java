package io.brook.server.fault;

import io.brook.server.network.ApiTable;
import io.brook.server.network.RequestContext;
import io.brook.server.network.RequestInterceptor;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.protocol.Errors;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Request interception by API key: reject the next N requests of a key with an error code, delay
 * the answers of a key (or of all, as network latency), and record every request in a log. It
 * sits on the handler table as its {@link RequestInterceptor} only while a rule or the log is on,
 * so a broker without rules dispatches as in production.
 *
 * <p>What a client sees: a rejected request is answered with the given error in the request's
 * own error response (every topic and partition of a Produce, for instance), without the handler
 * running, so nothing is written; a delayed request is handled at once and its answer leaves
 * later, with the answers behind it on the same connection (answers keep request order). A
 * Produce with acks=0 expects no answer: rejecting one closes its connection after the answers
 * before it, as Kafka (and {@code ProduceHandler}) does when an acks=0 produce fails, so the
 * client loses the records without being told and reconnects on its next send.
 *
 * <p>Threading: any thread. Rules change under the instance's monitor (so the interceptor set on
 * the table always matches the rules); requests read them without it (concurrent maps, counters).
 */
public final class RequestFaults implements RequestInterceptor {
    /** A request as the log records it. */
    public record Seen(short apiKey, short apiVersion, int correlationId, String clientId) {
    }

    private final Map<Short, Rejection> rejections = new ConcurrentHashMap<>();
    private final Map<Short, Long> delays = new ConcurrentHashMap<>();
    private final List<Seen> log = new ArrayList<>();
    private volatile long latencyNanos;
    private volatile boolean recording;
    private volatile Consumer<RequestInterceptor> table = i -> { };

    private record Rejection(AtomicInteger left, Errors error) {
    }

    /** Serves the broker's (new) handler table: the interceptor is set there while needed. */
    public synchronized void attach(ApiTable apis) {
        table = apis::intercept;
        update();
    }

    /** The next {@code count} requests with {@code apiKey} are answered with {@code errorCode}. */
    public synchronized void reject(short apiKey, int count, short errorCode) {
        if (count <= 0) {
            rejections.remove(apiKey);
        } else {
            rejections.put(apiKey, new Rejection(new AtomicInteger(count), Errors.forCode(errorCode)));
        }
        update();
    }

    /** Answers to requests with {@code apiKey} leave {@code delay} later (zero: no delay). */
    public synchronized void delay(short apiKey, Duration delay) {
        if (delay.isZero() || delay.isNegative()) {
            delays.remove(apiKey);
        } else {
            delays.put(apiKey, delay.toNanos());
        }
        update();
    }

    /** Every answer leaves {@code latency} later (on top of nothing: the larger of this and a key's delay). */
    public synchronized void latency(Duration latency) {
        latencyNanos = Math.max(0, latency.toNanos());
        update();
    }

    /** Starts (or stops) recording requests; starting clears the log. */
    public synchronized void record(boolean on) {
        synchronized (log) {
            if (on) {
                log.clear();
            }
        }
        recording = on;
        update();
    }

    /** The requests recorded so far, in the order their handlers were about to run. */
    public List<Seen> recorded() {
        synchronized (log) {
            return List.copyOf(log);
        }
    }

    /** Rejections still to come for {@code apiKey}. */
    public int rejectionsLeft(short apiKey) {
        Rejection r = rejections.get(apiKey);
        return r == null ? 0 : Math.max(0, r.left().get());
    }

    /** Removes every rule and stops recording (the log stays readable). */
    public synchronized void clear() {
        rejections.clear();
        delays.clear();
        latencyNanos = 0;
        recording = false;
        update();
    }

    private void update() {
        boolean needed = recording || latencyNanos > 0 || !rejections.isEmpty() || !delays.isEmpty();
        table.accept(needed ? this : null);
    }

    @Override
    public boolean intercept(RequestContext request) {
        short key = request.apiKey().id();
        if (recording) {
            Seen seen = new Seen(key, request.apiVersion(), request.correlationId(), request.clientId());
            synchronized (log) {
                log.add(seen);
            }
        }
        Rejection r = rejections.get(key);
        if (r != null && r.left().getAndDecrement() > 0) {
            if (request.request() instanceof ProduceRequest produce && produce.acks() == 0) {
                request.closeConnection("acks=0 produce rejected by a fault rule: " + r.error());
            } else {
                request.respondWithError(r.error());
            }
            return true;
        }
        long delay = Math.max(latencyNanos, delays.getOrDefault(key, 0L));
        if (delay > 0) {
            request.delayAnswer(delay);
        }
        return false;
    }
}
