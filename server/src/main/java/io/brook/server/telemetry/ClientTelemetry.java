package io.brook.server.telemetry;

import com.google.protobuf.InvalidProtocolBufferException;
import io.brook.wire.message.GetTelemetrySubscriptionsResponse;
import io.brook.wire.message.PushTelemetryRequest;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.CorruptRecordException;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * KIP-714 client telemetry on the broker, after Kafka's {@code ClientMetricsManager}: the client
 * metrics subscriptions (CLIENT_METRICS config resources, kept in {@code meta/client-metrics}),
 * the client instances that ask for them (GetTelemetrySubscriptions) and push their metrics
 * (PushTelemetry), and the latest value of every pushed series, which {@link #snapshots()} hands
 * to the Prometheus endpoint labelled by client instance and client id.
 *
 * <p>Semantics, as Kafka's: a zero client instance id gets a new random one; an instance's
 * subscription is every subscription whose match patterns it satisfies (metrics united, "*"
 * alone when any asks for all, the smallest interval, Kafka's 5 minutes when none matches), its
 * subscription id a CRC32C of that set and interval XORed with the id's hash; it is recomputed at
 * the next request after any subscription changes. A request earlier than the push interval is
 * THROTTLING_QUOTA_EXCEEDED (a GetTelemetrySubscriptions right after UNKNOWN_SUBSCRIPTION_ID or
 * UNSUPPORTED_COMPRESSION_TYPE is not: Kafka means to allow it, its check is written so that it
 * never does); a push with another subscription id is UNKNOWN_SUBSCRIPTION_ID, with an unknown
 * codec UNSUPPORTED_COMPRESSION_TYPE, larger than {@code telemetry.max.bytes}
 * TELEMETRY_TOO_LARGE, whose payload does not decompress or decode INVALID_RECORD, and any push
 * after a terminating one INVALID_REQUEST.
 *
 * <p>Where Brook differs: it asks for cumulative values ({@code DeltaTemporality} false), since
 * what it keeps is each series' latest value and a Prometheus counter is cumulative; Kafka hands
 * the payload to a plugin and asks for deltas.
 *
 * <p>Bounds: at most {@link #MAX_INSTANCES} instances (Kafka's cache size; the least recently
 * heard is forgotten first), each forgotten when not heard from for three push intervals (at
 * least a minute); a payload decompresses to at most {@link #DECOMPRESSED_FACTOR} times
 * {@code telemetry.max.bytes}; at most {@link #MAX_SERIES_PER_INSTANCE} series per instance and
 * {@link #MAX_SERIES} in all are kept (new series beyond are dropped).
 *
 * <p>Concurrency: every method is thread-safe; state changes under this object's lock, and a
 * payload is decompressed and decoded outside it.
 */
public final class ClientTelemetry {

    /** Kafka's {@code telemetry.max.bytes} default. */
    public static final int DEFAULT_MAX_BYTES = 1024 * 1024;
    static final int MAX_INSTANCES = 16_384;
    static final long MIN_EXPIRY_MS = 60_000;
    static final int DECOMPRESSED_FACTOR = 16;
    static final int MAX_SERIES_PER_INSTANCE = 10_000;
    static final int MAX_SERIES = 250_000;
    private static final long SWEEP_EVERY_MS = 1_000;
    /** The codecs a client may compress a push with, in Kafka's order of preference. */
    static final List<Byte> ACCEPTED_COMPRESSION = List.of((byte) Compression.ZSTD.id(), (byte) Compression.LZ4.id(),
            (byte) Compression.GZIP.id(), (byte) Compression.SNAPPY.id());

    private final ClientMetricsStore store;
    private final int maxBytes;
    private final Clock clock;
    private final Supplier<UUID> ids;
    /** Access order: the eldest is the instance heard from least recently. */
    private final LinkedHashMap<UUID, ClientInstance> instances = new LinkedHashMap<>(64, 0.75f, true);
    private Map<String, ClientMetricsSubscription> subscriptions;
    private int subscriptionVersion;
    private int series;
    private long lastSweepMs = Long.MIN_VALUE;

    private ClientTelemetry(ClientMetricsStore store, Map<String, ClientMetricsSubscription> subscriptions,
            int maxBytes, Clock clock, Supplier<UUID> ids) {
        this.store = store;
        this.subscriptions = subscriptions;
        this.maxBytes = maxBytes;
        this.clock = clock;
        this.ids = ids;
    }

    /**
     * Loads the subscriptions kept in {@code metaDir} (null: keep none, for tests).
     *
     * @throws IOException when the file cannot be read or holds a subscription that does not parse
     */
    public static ClientTelemetry open(Path metaDir, int maxBytes, Clock clock, Supplier<UUID> ids) throws IOException {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("telemetry.max.bytes must be at least 1: " + maxBytes);
        }
        ClientMetricsStore store = ClientMetricsStore.in(metaDir);
        Map<String, ClientMetricsSubscription> subs = new TreeMap<>();
        for (Map.Entry<String, Map<String, String>> e : store.load().entrySet()) {
            try {
                subs.put(e.getKey(), ClientMetricsSubscription.parse(e.getKey(), e.getValue()));
            } catch (InvalidSubscriptionException ex) {
                throw new IOException(ClientMetricsStore.FILE + ": subscription " + e.getKey() + ": " + ex.getMessage(), ex);
            }
        }
        return new ClientTelemetry(store, subs, maxBytes, clock, ids);
    }

    // ---- subscriptions (CLIENT_METRICS config resources)

    /** The names of the subscriptions (ListConfigResources). */
    public synchronized Set<String> subscriptionNames() {
        return Collections.unmodifiableSet(new TreeSet<>(subscriptions.keySet()));
    }

    /** The configs set on subscription {@code name}; empty when there is none. */
    public synchronized Map<String, String> configs(String name) {
        ClientMetricsSubscription s = subscriptions.get(name);
        return s == null ? Map.of() : s.configs();
    }

    /**
     * Replaces subscription {@code name}'s configs with {@code configs} (empty: removes it), durably
     * before it takes effect; only validates when {@code validateOnly}.
     */
    public synchronized void replace(String name, Map<String, String> configs, boolean validateOnly)
            throws InvalidSubscriptionException, IOException {
        ClientMetricsSubscription parsed = ClientMetricsSubscription.parse(name, configs);
        if (validateOnly) {
            return;
        }
        Map<String, ClientMetricsSubscription> next = new TreeMap<>(subscriptions);
        if (configs.isEmpty()) {
            if (next.remove(name) == null) {
                return;
            }
        } else {
            next.put(name, parsed);
        }
        Map<String, Map<String, String>> all = new TreeMap<>();
        next.forEach((n, s) -> all.put(n, s.configs()));
        store.save(all);
        subscriptions = next;
        subscriptionVersion++;
    }

    // ---- the two client requests

    /** Answers GetTelemetrySubscriptions for the client {@code client} that asked with {@code requestedId}. */
    public synchronized GetTelemetrySubscriptionsResponse subscriptions(UUID requestedId, ClientSelector client) {
        long now = clock.millis();
        sweep(now);
        UUID id = requestedId == null || TelemetryIds.isReserved(requestedId) ? newId() : requestedId;
        ClientInstance inst = instance(id, client, now);
        boolean retry = inst.lastError == Errors.UNKNOWN_SUBSCRIPTION_ID
                || inst.lastError == Errors.UNSUPPORTED_COMPRESSION_TYPE;
        if (!inst.acceptGet(now) && !retry) {
            return new GetTelemetrySubscriptionsResponse().errorCode(Errors.THROTTLING_QUOTA_EXCEEDED.code());
        }
        inst.gotSubscription(now);
        inst.lastError = Errors.NONE;
        return new GetTelemetrySubscriptionsResponse().errorCode(Errors.NONE.code()).clientInstanceId(id)
                .subscriptionId(inst.subscriptionId).acceptedCompressionTypes(ACCEPTED_COMPRESSION)
                .pushIntervalMs(inst.pushIntervalMs).telemetryMaxBytes(maxBytes).deltaTemporality(false)
                .requestedMetrics(new ArrayList<>(inst.metrics));
    }

    /** What a push is answered: an error code (NONE when accepted) and why. */
    public record PushResult(Errors error, String message) {
        static final PushResult OK = new PushResult(Errors.NONE, null);
    }

    /** Handles PushTelemetry from {@code client}. */
    public PushResult push(PushTelemetryRequest request, ClientSelector client) {
        UUID id = request.clientInstanceId();
        if (id == null || TelemetryIds.isReserved(id)) {
            return new PushResult(Errors.INVALID_REQUEST, "Invalid request from the client, invalid client instance id");
        }
        Compression codec;
        synchronized (this) {
            long now = clock.millis();
            sweep(now);
            ClientInstance inst = instance(id, client, now);
            PushResult refused = check(inst, request, now);
            inst.terminating |= request.terminating();
            if (refused != null) {
                inst.lastError = refused.error();
                return refused;
            }
            codec = Compression.forId(request.compressionType());
        }
        byte[] payload = request.metrics();
        if (payload == null || payload.length == 0) {
            return accepted(id);
        }
        OtlpMetricsDecoder.Decoded decoded;
        try {
            ByteBuffer raw = ByteBuffer.wrap(payload);
            ByteBuffer plain = codec == Compression.NONE ? raw
                    : codec.decompress(raw, (int) Math.min(Integer.MAX_VALUE - 8, (long) DECOMPRESSED_FACTOR * maxBytes));
            decoded = OtlpMetricsDecoder.decode(plain, MAX_SERIES_PER_INSTANCE);
        } catch (CorruptRecordException | InvalidProtocolBufferException e) {
            synchronized (this) {
                ClientInstance inst = instances.get(id);
                if (inst != null) {
                    inst.lastError = Errors.INVALID_RECORD;
                }
            }
            return new PushResult(Errors.INVALID_RECORD, "Telemetry payload could not be decoded: " + e.getMessage());
        }
        synchronized (this) {
            ClientInstance inst = instances.get(id);
            if (inst != null) {
                int room = Math.min(MAX_SERIES_PER_INSTANCE - inst.points.size(), MAX_SERIES - series);
                series += inst.store(decoded.points(), Math.max(0, room));
            }
        }
        return accepted(id);
    }

    private synchronized PushResult accepted(UUID id) {
        ClientInstance inst = instances.get(id);
        if (inst != null) {
            inst.lastError = Errors.NONE;
        }
        return PushResult.OK;
    }

    /** Kafka's checks of a push, in Kafka's order; null when it may go on. */
    private PushResult check(ClientInstance inst, PushTelemetryRequest request, long now) {
        if (inst.terminating) {
            return new PushResult(Errors.INVALID_REQUEST,
                    "Client sent a terminating push before; no push is accepted after that");
        }
        if (!inst.acceptPush(now) && !request.terminating()) {
            return new PushResult(Errors.THROTTLING_QUOTA_EXCEEDED,
                    "Request from the client arrived before the next push interval time");
        }
        if (request.subscriptionId() != inst.subscriptionId) {
            return new PushResult(Errors.UNKNOWN_SUBSCRIPTION_ID, "Unknown client subscription id for the client");
        }
        if (Compression.forId(request.compressionType()) == null) {
            return new PushResult(Errors.UNSUPPORTED_COMPRESSION_TYPE,
                    "Unknown compression type " + request.compressionType());
        }
        if (request.metrics() != null && request.metrics().length > maxBytes) {
            return new PushResult(Errors.TELEMETRY_TOO_LARGE,
                    "Telemetry request is larger than the maximum allowed size " + maxBytes);
        }
        return null;
    }

    // ---- instances

    /** The instance {@code id}, created (or its subscription recomputed after a change) as needed. */
    private ClientInstance instance(UUID id, ClientSelector client, long now) {
        ClientInstance inst = instances.get(id);
        if (inst == null || inst.subscriptionVersion != subscriptionVersion) {
            ClientInstance next = create(id, inst == null ? client.withInstanceId(id) : inst.client);
            if (inst != null) {
                next.points.putAll(inst.points);
                next.terminating = inst.terminating;
            }
            instances.put(id, next);
            inst = next;
            while (instances.size() > MAX_INSTANCES) {
                Iterator<ClientInstance> eldest = instances.values().iterator();
                series -= eldest.next().points.size();
                eldest.remove();
            }
        }
        inst.lastHeardMs = now;
        return inst;
    }

    private ClientInstance create(UUID id, ClientSelector client) {
        int interval = ClientMetricsSubscription.DEFAULT_INTERVAL_MS;
        Set<String> metrics = new TreeSet<>();
        boolean all = false;
        for (ClientMetricsSubscription s : subscriptions.values()) {
            if (s.matches(client)) {
                all |= s.metrics().contains(ClientMetricsSubscription.ALL_METRICS);
                metrics.addAll(s.metrics());
                interval = Math.min(interval, s.intervalMs());
            }
        }
        if (all) {
            metrics = new TreeSet<>(Set.of(ClientMetricsSubscription.ALL_METRICS));
        }
        CRC32C crc = new CRC32C();
        crc.update((metrics.toString() + interval).getBytes(StandardCharsets.UTF_8));
        int subscriptionId = (int) crc.getValue() ^ id.hashCode();
        return new ClientInstance(id, client, subscriptionVersion, subscriptionId, new ArrayList<>(metrics), interval);
    }

    private UUID newId() {
        UUID id = ids.get();
        while (!TelemetryIds.assignable(id) || instances.containsKey(id)) {
            id = ids.get();
        }
        return id;
    }

    /**
     * Forgets the instances not heard from for their expiry time: at most once a second on the
     * requests' path, at every scrape (which walks them all anyway).
     */
    private void sweep(long now) {
        sweep(now, false);
    }

    private void sweep(long now, boolean always) {
        if (!always && now - lastSweepMs < SWEEP_EVERY_MS && lastSweepMs != Long.MIN_VALUE) {
            return;
        }
        lastSweepMs = now;
        Iterator<ClientInstance> it = instances.values().iterator();
        while (it.hasNext()) {
            ClientInstance inst = it.next();
            if (now - inst.lastHeardMs >= inst.expiryMs()) {
                series -= inst.points.size();
                it.remove();
            }
        }
    }

    // ---- exposition

    /** The latest pushed values of every known instance, as Prometheus metric families. */
    public List<MetricSnapshot> snapshots() {
        List<ClientMetricsExposition.Labelled> all = new ArrayList<>();
        synchronized (this) {
            sweep(clock.millis(), true);
            for (ClientInstance inst : instances.values()) {
                String instanceId = TelemetryIds.toKafkaString(inst.id);
                for (MetricPoint p : inst.points.values()) {
                    all.add(new ClientMetricsExposition.Labelled(instanceId, inst.client.clientId(), p));
                }
            }
        }
        return ClientMetricsExposition.families(all);
    }

    /** How many client instances are known (tests). */
    synchronized int instanceCount() {
        return instances.size();
    }
}
