package io.brook.server.network;

import io.brook.server.security.Session;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.ApiRequest;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.RequestHeader;
import io.netty.buffer.ByteBuf;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request in flight on a connection, from the moment its frame was read until its response
 * (or the decision not to send one) is known. Completed exactly once, from any thread, by
 * {@link #respond}, {@link #noResponse}, {@link #fail} or {@link #closeConnection} — or by the
 * connection, which abandons the contexts still in flight when it closes; later calls are
 * ignored. Completion releases the request frame (and gives its bytes back to the broker-wide
 * request budget), so a handler must not touch the request's zero-copy fields (records) after it
 * completed the context.
 *
 * <p>Work that waits for something (a long-poll fetch) registers its cancellation with
 * {@link #onConnectionClosed}, so that a closed connection leaves nothing registered behind.
 */
public final class RequestContext {

    private static final Logger LOG = LoggerFactory.getLogger(RequestContext.class);

    /** The reason a connection closes after a failed authentication (logged at INFO where it failed, not again). */
    public static final String FAILED_AUTHENTICATION = "failed authentication";

    /** What a completed context carries instead of a response message. */
    enum Outcome { RESPONSE, NO_RESPONSE, CLOSE, ABANDONED }

    private final Connection connection;
    private final RequestHeader header;
    private final ApiTable.Entry<? extends ApiRequest> entry;
    private final ApiRequest request;
    private final short responseVersion;
    private final int frameSize;
    /** The heap estimate of the decoded request, counted in the request budget with the frame. */
    private final long decodedBytes;
    private ByteBuf frame;
    private final AtomicReference<Object> result = new AtomicReference<>();

    private volatile ApiMessage response;
    private volatile Outcome outcome;
    private volatile String closeReason;
    private volatile Runnable onClose;
    // the request's path through the broker, for the RequestObserver (System.nanoTime())
    private final long receivedNanos = System.nanoTime();
    private volatile long startedNanos;
    private volatile long handledNanos;
    private volatile long completedNanos;
    private volatile boolean failed;
    /**
     * Set by a {@link RequestInterceptor} before the handler runs, read at completion (the
     * handler's hand-off of the context orders the two): 0 in production.
     */
    private long answerDelayNanos;
    /**
     * Set before the handler runs by checks that refused part of the request (null otherwise):
     * adds their answers to the handler's response; with {@link #closeIfSilent}, a handler that
     * answers nothing closes the connection instead.
     */
    private volatile UnaryOperator<ApiMessage> responseMerge;
    private volatile String closeIfSilent;
    /** Set by the handler before it completes the context (completion publishes it): 0 unless throttled. */
    private volatile int throttleMs;
    /** Whether the request arrived while an earlier one of its connection was unanswered (set before it runs). */
    private boolean pipelined;

    RequestContext(Connection connection, RequestHeader header, ApiTable.Entry<? extends ApiRequest> entry,
            ApiRequest request, short responseVersion, ByteBuf frame, int frameSize, long decodedBytes) {
        this.connection = connection;
        this.decodedBytes = decodedBytes;
        this.header = header;
        this.entry = entry;
        this.request = request;
        this.responseVersion = responseVersion;
        this.frame = frame;
        this.frameSize = frameSize;
    }

    RequestHeader header() {
        return header;
    }

    /** On the event loop, before the request runs: it arrived behind an unanswered request of its connection. */
    void pipelined() {
        this.pipelined = true;
    }

    /** Whether the request arrived behind an unanswered request of its connection (what the fair share counts). */
    boolean arrivedPipelined() {
        return pipelined;
    }

    /** The decoded request body (interceptors: a rule that depends on the request's fields). */
    public ApiRequest request() {
        return request;
    }

    public ApiKey apiKey() {
        return entry.key();
    }

    /** The request's API version (also the version the response is written in). */
    public short apiVersion() {
        return header.apiVersion();
    }

    public int correlationId() {
        return header.correlationId();
    }

    public String clientId() {
        return header.clientId();
    }

    public SocketAddress clientAddress() {
        return connection.remoteAddress();
    }

    /** The connection's security state: its listener, its principal, its authentication. */
    public Session session() {
        return connection.session();
    }

    /** The table this request was dispatched from (what the broker serves). */
    public ApiTable apis() {
        return connection.apis();
    }

    /**
     * Answers once {@code future} completes, on whichever thread completes it: with its response,
     * or, when it completes exceptionally, as {@link #fail} does. For handlers over a coordinator
     * that completes its futures after its writes are durable.
     */
    public void respondWhenDone(CompletableFuture<? extends ApiMessage> future) {
        future.whenComplete((response, failure) -> {
            if (failure != null) {
                fail(failure);
            } else {
                respond(response);
            }
        });
    }

    /**
     * Where to continue non-blocking work for this request later (a waiting fetch's re-checks):
     * the connection's event loop when requests run inline, else the I/O pool.
     */
    public Executor nonBlockingExecutor() {
        return connection.nonBlockingExecutor();
    }

    public void respond(ApiMessage message) {
        if (message == null) {
            throw new NullPointerException("response");
        }
        complete(Outcome.RESPONSE, merged(message), null);
    }

    /**
     * Answers with {@code error} in the request's own error response, as its handler would for a
     * request failing as a whole (interceptors: a rejected request; an authorization failure).
     */
    public void respondWithError(Errors error) {
        complete(Outcome.RESPONSE, merged(errorResponse(error)), null);
    }

    /**
     * Passes the handler's response (whichever way it is completed with one) through
     * {@code merge} before it is sent: the ACL checks, which gave the handler only the part of the
     * request the client may use, add their own answers for the rest, as Kafka answers such a
     * request per topic. With a non-null {@code closeIfSilent}, a handler that answers nothing
     * (acks=0) closes the connection instead, with that reason: Kafka's way of telling an acks=0
     * producer that part of its request failed. Call before the handler; a second call adds its
     * merge after the first.
     */
    public void mergeIntoResponse(UnaryOperator<ApiMessage> merge, String closeIfSilent) {
        UnaryOperator<ApiMessage> earlier = responseMerge;
        this.responseMerge = earlier == null ? merge : m -> merge.apply(earlier.apply(m));
        if (closeIfSilent != null) {
            this.closeIfSilent = closeIfSilent;
        }
    }

    private ApiMessage merged(ApiMessage message) {
        UnaryOperator<ApiMessage> m = responseMerge;
        return m == null ? message : m.apply(message);
    }

    /**
     * The answer, once complete, leaves {@code nanos} later (interceptors: latency). Later answers
     * of the connection wait behind it, as they do behind any slow answer. Call before the handler.
     */
    public void delayAnswer(long nanos) {
        this.answerDelayNanos = Math.max(0, nanos);
    }

    /**
     * Once this request's answer is sent (or, without one, once it is complete), the connection
     * reads nothing more for {@code ms} (a quota's throttle time, KIP-219: the client is told in
     * the response and the broker holds the connection meanwhile). Call before completing.
     */
    public void throttle(int ms) {
        this.throttleMs = Math.max(throttleMs, ms);
    }

    int throttleMs() {
        return throttleMs;
    }

    /** Completes without a response (Produce with acks=0); order of later responses is kept. */
    public void noResponse() {
        String close = closeIfSilent;
        if (close != null) {
            complete(Outcome.CLOSE, null, close);
            return;
        }
        complete(Outcome.NO_RESPONSE, null, null);
    }

    /** Answers with {@link Errors#UNKNOWN_SERVER_ERROR} for this request only. */
    public void fail(Throwable cause) {
        LOG.error("{} v{} from {} (correlation id {}) failed", entry.key().displayName(), apiVersion(),
                clientAddress(), header.correlationId(), cause);
        ApiMessage error;
        try {
            error = merged(errorResponse(Errors.UNKNOWN_SERVER_ERROR));
        } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
            // (even the error answer could not be made: the request must still end, or the
            // connection would wait for it for ever)
            LOG.error("{}: could not build an error response", entry.key().displayName(), e);
            closeConnection("internal error handling " + entry.key().displayName());
            return;
        }
        failed = true;
        complete(Outcome.RESPONSE, error, null);
    }

    /**
     * Answers with {@code message} and closes the connection once it is sent (Kafka's answer to
     * a failed authentication).
     */
    public void respondThenClose(ApiMessage message, String reason) {
        if (message == null) {
            throw new NullPointerException("response");
        }
        complete(Outcome.RESPONSE, merged(message), reason);
    }

    /** The client's address as ACLs name hosts ({@code 192.0.2.1}), or {@code *} when unknown. */
    public String clientHost() {
        return clientAddress() instanceof java.net.InetSocketAddress a && a.getAddress() != null
                ? a.getAddress().getHostAddress() : "*";
    }

    /** Closes the connection once every earlier response has been sent (e.g. acks=0 failures). */
    public void closeConnection(String reason) {
        complete(Outcome.CLOSE, null, reason);
    }

    /**
     * Runs {@code cancel} if the connection closes before this request is answered (at once when
     * it closed already), on the connection's event loop or the registering thread. It must be
     * idempotent and cheap: it releases what the request's waiting holds (a timer, a watch).
     */
    public void onConnectionClosed(Runnable cancel) {
        onClose = cancel;
        if (result.get() == Outcome.ABANDONED) {
            cancel.run();
        }
    }

    /**
     * The connection closed with this request unanswered: releases the frame, runs the
     * registered cancellation, and makes every later completion a silent no-op. Event loop only.
     */
    void abandon() {
        if (result.compareAndSet(null, Outcome.ABANDONED)) {
            releaseFrame();
            this.outcome = Outcome.ABANDONED;
            Runnable cancel = onClose;
            if (cancel != null) {
                cancel.run();
            }
        }
    }

    ApiMessage errorResponse(Errors error) {
        return request.errorResponse(responseVersion, error);
    }

    boolean isDone() {
        return outcome != null;
    }

    /** Runs the handler on the caller's thread (the event loop: inline requests). */
    void run() {
        startedNanos = System.nanoTime();
        try {
            RequestInterceptor hook = connection.apis().interceptor();
            if (hook != null && hook.intercept(this)) {
                return;
            }
            @SuppressWarnings("unchecked")
            ApiHandler<ApiRequest> handler = (ApiHandler<ApiRequest>) entry.handler;
            handler.handle(this, request);
            handledNanos = System.nanoTime();
        } catch (Throwable t) {
            handledNanos = System.nanoTime();
            if (isDone()) {
                // answered already: failing it now would answer twice
                LOG.error("{} v{} from {} (correlation id {}) failed after it was completed", entry.key().displayName(),
                        apiVersion(), clientAddress(), header.correlationId(), t);
            } else {
                fail(t);
            }
        }
    }

    /**
     * Runs the handler on the I/O pool, where the connection queued it with a reference to the
     * frame of its own (released here), unless the connection closed meanwhile.
     */
    void runQueued(ByteBuf ownReference) {
        try {
            if (result.get() != Outcome.ABANDONED) {
                run();
            }
        } finally {
            ownReference.release();
        }
    }

    private void complete(Outcome o, ApiMessage message, String reason) {
        if (!result.compareAndSet(null, o)) {
            if (result.get() != Outcome.ABANDONED) {
                LOG.warn("{} (correlation id {}) completed twice; ignoring {}", entry.key().displayName(),
                        header.correlationId(), o);
            }
            return;
        }
        this.response = message;
        this.closeReason = reason;
        this.completedNanos = System.nanoTime();
        if (o == Outcome.RESPONSE) {
            chargeRequestTime(message);
        }
        chargeFairShare(o, message);
        releaseFrame();
        long delay = answerDelayNanos;
        if (delay > 0) {
            connection.completedAfter(delay, () -> {
                this.outcome = o;
                connection.completed();
            });
            return;
        }
        this.outcome = o;
        connection.completed();
    }

    /**
     * The request_percentage quota, as Kafka's ClientRequestQuotaManager charges it: the time the
     * handler ran on its thread (until it returned, or until it answered if it answered before
     * returning) is added to the client's rate, and a throttle goes into the response and mutes
     * the connection, the longer of it and a byte-rate throttle winning. Costs nothing more than
     * the two clock reads the request takes anyway.
     */
    private void chargeRequestTime(ApiMessage message) {
        RequestTimeQuota quota = connection.apis().requestTimeQuota();
        long started = startedNanos;
        if (quota == null || started == 0 || entry.key() == ApiKey.SASL_HANDSHAKE
                || entry.key() == ApiKey.SASL_AUTHENTICATE) {
            return; // authentication is not charged, as in Kafka, where the authenticator serves it
        }
        long handled = handledNanos;
        long nanos = (handled != 0 ? handled : completedNanos) - started;
        int ms = quota.recorded(session().principal(), clientId(), Math.max(0, nanos));
        if (ms > 0) {
            message.raiseThrottleTimeMs(ms);
            throttle(ms);
        }
    }

    /**
     * The broker's fairness between client ids while saturated ({@link FairShare}): every answered
     * request counts, and a client id past its share is throttled as a quota would throttle it,
     * the throttle time in its answer (when it gets one) and its connection muted meanwhile.
     */
    private void chargeFairShare(Outcome o, ApiMessage message) {
        if (entry.key() == ApiKey.SASL_HANDSHAKE || entry.key() == ApiKey.SASL_AUTHENTICATE) {
            return;
        }
        int ms = connection.fairShareThrottle(header.clientId(), pipelined);
        if (ms > 0) {
            if (o == Outcome.RESPONSE) {
                message.raiseThrottleTimeMs(ms);
            }
            throttle(ms);
        }
    }

    private void releaseFrame() {
        ByteBuf f = frame;
        frame = null;
        if (f != null) {
            f.release();
            connection.requestBytesReleased(frameSize, decodedBytes);
        }
    }

    // read by the connection's event loop after isDone() returned true
    Outcome outcome() {
        return outcome;
    }

    ApiMessage response() {
        return response;
    }

    String closeReason() {
        return closeReason;
    }

    short responseVersion() {
        return responseVersion;
    }

    /** The size of the request as it came in (its frame, without the size prefix). */
    public int requestBytes() {
        return frameSize;
    }

    int frameSize() {
        return frameSize;
    }

    /** Tells {@code observer} of this answered request; {@code writing}, {@code written}: its write's start and end. */
    void observed(RequestObserver observer, long writing, long written) {
        long started = startedNanos == 0 ? receivedNanos : startedNanos;
        long completed = completedNanos;
        long handled = handledNanos == 0 ? completed : handledNanos;
        observer.answered(entry.key(), header.apiVersion(), receivedNanos, started, handled, completed, writing, written,
                failed, outcome == Outcome.RESPONSE ? response : null);
    }
}
