package io.brook.server;

import io.brook.server.fault.NetworkFaults;
import io.brook.server.fault.RequestFaults;
import io.brook.server.fault.StorageFaults;
import io.brook.server.network.ApiTable;
import io.brook.server.network.NetworkServer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The fault hooks of a broker built with {@link Brook.Builder#faults(boolean) faults(true)}: what
 * a test does to the broker's network, disk and requests to watch its clients cope. Every hook
 * takes effect at once, on the running broker, and stays until it is lifted (or {@link #clear()});
 * hooks outlive {@link Brook#restart()} (the disk is still full after a restart). API keys and
 * error codes are Kafka's numbers, as kafka-clients' {@code ApiKeys.PRODUCE.id} and
 * {@code Errors.NOT_LEADER_OR_FOLLOWER.code()} give them.
 *
 * <p>Where each hook sits (docs/test-broker.md has the client-visible effects): network hooks in a
 * handler first in each connection's pipeline; disk hooks in the channel of each segment and
 * index file (storage's {@code SegmentChannels} seam); request hooks in front of the API
 * handlers (the handler table's interceptor, set only while a request hook is on).
 */
public final class Faults {
    private final StorageFaults storage;
    private final NetworkFaults network = new NetworkFaults();
    private final RequestFaults requests = new RequestFaults();

    Faults(Path dataDir) {
        this.storage = StorageFaults.install(dataDir);
    }

    /** A new run of the broker: its connections and handler table get the hooks. */
    void attach(NetworkServer server, ApiTable apis) {
        server.firstHandler(network.handlers());
        requests.attach(apis);
    }

    void storageCrashed() {
        storage.crash();
    }

    void loseUnforcedWrites() throws IOException {
        storage.loseUnforced();
    }

    void uninstall() {
        storage.uninstall();
    }

    // ---- network ----

    /**
     * The broker stops handling what clients send and answers nothing; connections stay open.
     * Clients' requests time out ({@code request.timeout.ms}), then they disconnect and retry.
     * A {@link Brook#stop()} meanwhile waits (up to its 5 s drain) for the answers held here;
     * {@link Brook#crash()} drops them.
     */
    public Faults pauseNetwork() {
        network.pause();
        return this;
    }

    /** Ends a pause: what was held is handled and answered, in order. */
    public Faults resumeNetwork() {
        network.resume();
        return this;
    }

    /** Closes every client connection now; clients see a disconnect and reconnect. */
    public Faults dropConnections() {
        network.dropConnections();
        return this;
    }

    /** Every answer leaves {@code latency} late (zero lifts it); answers keep their order. */
    public Faults latency(Duration latency) {
        requests.latency(latency);
        return this;
    }

    // ---- disk ----

    /**
     * A full disk: appends that need space fail with ENOSPC, which producers see as
     * KAFKA_STORAGE_ERROR (retriable) for the partitions written; reads go on, and appends
     * succeed again by themselves once lifted.
     */
    public Faults diskFull(boolean full) {
        storage.diskFull(full);
        return this;
    }

    /**
     * fsync fails with EIO: each partition whose flush fails goes offline until the broker
     * restarts (a failed fsync is never retried); its acks=all producers get
     * KAFKA_STORAGE_ERROR and consumers see nothing that was not fsynced before.
     */
    public Faults failFsync(boolean fail) {
        storage.failFsync(fail);
        return this;
    }

    /** Each fsync takes {@code delay} longer (zero lifts it): acks=all answers come that much later. */
    public Faults slowFsync(Duration delay) {
        storage.slowFsync(delay);
        return this;
    }

    // ---- requests ----

    /**
     * The next {@code count} requests with {@code apiKey} are answered with {@code errorCode}
     * without being handled (nothing is written); count 0 lifts it. A Produce with acks=0, which
     * is never answered, closes its connection instead (as Kafka does when one fails).
     */
    public Faults reject(short apiKey, int count, short errorCode) {
        requests.reject(apiKey, count, errorCode);
        return this;
    }

    /** How many rejections of {@code apiKey} are still to come. */
    public int rejectionsLeft(short apiKey) {
        return requests.rejectionsLeft(apiKey);
    }

    /**
     * Requests with {@code apiKey} are handled at once but answered {@code delay} later (zero lifts
     * it), and so are the answers behind them on the same connection.
     */
    public Faults delay(short apiKey, Duration delay) {
        requests.delay(apiKey, delay);
        return this;
    }

    /** Starts logging every request (clearing the log); see {@link #recordedRequests()}. */
    public Faults recordRequests() {
        requests.record(true);
        return this;
    }

    /** The requests logged since {@link #recordRequests()}, in the order they reached their handlers. */
    public List<RecordedRequest> recordedRequests() {
        List<RecordedRequest> out = new ArrayList<>();
        for (RequestFaults.Seen s : requests.recorded()) {
            out.add(new RecordedRequest(s.apiKey(), s.apiVersion(), s.correlationId(), s.clientId()));
        }
        return out;
    }

    /** Lifts every hook: network resumed, disk healthy, no request rules, logging stopped. */
    public Faults clear() {
        network.resume();
        storage.healthy();
        requests.clear();
        return this;
    }
}
