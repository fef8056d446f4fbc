package io.brook.server.security.quota;

import io.brook.server.security.quota.QuotaEntity.Name;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Produce and fetch byte-rate quotas, request_percentage, connection_creation_rate and
 * controller_mutation_rate quotas, enforced as Kafka enforces them. Each request's bytes (a
 * produce request's size, a fetch response's size) are added to the rate of the quota that
 * applies to the request's user and client id, and when that rate is over the quota the answer
 * carries the time it takes to come back within it ({@link RateWindows#throttleMs}), for which
 * the network layer then stops reading the connection (KIP-219). A request's handling time (the
 * time its handler ran on a thread, measured by the network layer) is added likewise to the
 * request_percentage rate, as Kafka's ClientRequestQuotaManager adds request thread time; its
 * throttle is at most one window. A new connection counts against its address's
 * connection_creation_rate (ip entities), as in Kafka's ConnectionQuotas. The partitions a
 * CreateTopics, CreatePartitions or DeleteTopics request creates, adds or deletes are charged to
 * a {@link TokenBucket} of controller_mutation_rate ({@link #mutations}), as in Kafka's
 * ControllerMutationQuotaManager.
 *
 * <p>Which quota applies is Kafka's order of precedence, the first entity with a setting for the
 * key winning: user and client id; user and default client id; user; default user and client id;
 * default user and default client id; default user; client id; default client id. The rate is
 * shared by everyone that entity covers: a user quota by all of the user's clients; a quota
 * that names (or defaults) both user and client id by each user and client id pair; a client-id
 * quota by all users of that client id.
 *
 * <p>Settings come from the {@link ClientQuotaStore} and take effect for the next request. With no
 * quota of a kind set anywhere, a request costs one volatile read here for that kind. Rates and
 * buckets that hold nothing any more are dropped ({@link #maybeSweep}), so the memory they take is
 * bounded by what clients do in a few seconds, not by every client id or address ever seen.
 */
public final class ClientQuotas {

    /** Kafka's {@code quota.window.num} default: samples kept of each rate. */
    public static final int DEFAULT_WINDOW_NUM = 11;
    /** Kafka's {@code quota.window.size.seconds} default, in milliseconds. */
    public static final long DEFAULT_WINDOW_MS = 1000;

    private final int windowNum;
    private final long windowMs;
    private final LongSupplier nowMs;
    /** The settings of every entity with a byte-rate quota; null when there is none. */
    private volatile Map<QuotaEntity, Map<QuotaKey, Double>> byteRates;
    /** The same with a request_percentage quota; null when there is none. */
    private volatile Map<QuotaEntity, Map<QuotaKey, Double>> requestRates;
    /** The same with a connection_creation_rate quota (ip entities); null when there is none. */
    private volatile Map<QuotaEntity, Map<QuotaKey, Double>> connectionRates;
    /** The same with a controller_mutation_rate quota; null when there is none. */
    private volatile Map<QuotaEntity, Map<QuotaKey, Double>> mutationRates;
    /** The rates (each changed only under the map's lock for its key), and the buckets (under their own monitor). */
    private final Map<Rated, RateWindows> rates = new ConcurrentHashMap<>();
    private final Map<Rated, TokenBucket> buckets = new ConcurrentHashMap<>();
    /** {@code quota.window.num} windows: how long an unused rate takes to forget every value. */
    private final long idleMs;
    private final AtomicLong nextSweepMs;

    /** What one rate is kept for: a quota key and the user and client id it is shared by ("" for any). */
    private record Rated(QuotaKey key, String user, String clientId) {
    }

    /** The quota that applies to a request: its bound, and what its rate is kept for. */
    private record Applicable(Rated rated, double bound) {
    }

    /** Quotas following {@code store}, measured over {@code windowNum} windows of {@code windowMs} on {@code nowMs}. */
    public ClientQuotas(ClientQuotaStore store, int windowNum, long windowMs, LongSupplier nowMs) {
        this.windowNum = windowNum;
        this.windowMs = windowMs;
        this.nowMs = nowMs;
        this.idleMs = windowNum * windowMs;
        this.nextSweepMs = new AtomicLong(nowMs.getAsLong() + idleMs);
        store.listen(this::update);
    }

    /** No quotas, ever (brokers and tests without a store). */
    public static ClientQuotas none() {
        return new ClientQuotas(ClientQuotaStore.inMemory(), DEFAULT_WINDOW_NUM, DEFAULT_WINDOW_MS, () -> 0L);
    }

    private void update(Map<QuotaEntity, Map<QuotaKey, Double>> all) {
        boolean any = false;
        boolean anyRequest = false;
        boolean anyConnection = false;
        boolean anyMutation = false;
        for (Map<QuotaKey, Double> m : all.values()) {
            anyConnection |= m.containsKey(QuotaKey.CONNECTION_CREATION_RATE);
            anyMutation |= m.containsKey(QuotaKey.CONTROLLER_MUTATION_RATE);
            any |= m.containsKey(QuotaKey.PRODUCER_BYTE_RATE) || m.containsKey(QuotaKey.CONSUMER_BYTE_RATE);
            anyRequest |= m.containsKey(QuotaKey.REQUEST_PERCENTAGE);
        }
        byteRates = any ? all : null;
        requestRates = anyRequest ? all : null;
        connectionRates = anyConnection ? all : null;
        mutationRates = anyMutation ? all : null;
    }

    /**
     * Records a new connection from {@code ip} against its connection_creation_rate quota (the
     * quota of that address, else of the default ip entity), as Kafka's ConnectionQuotas does:
     * returns 0 when it is within the quota, else how long to hold the connection before closing
     * it (at most one window), and then it is not counted.
     */
    public int connectionCreated(String ip) {
        Map<QuotaEntity, Map<QuotaKey, Double>> all = connectionRates;
        if (all == null || ip == null) {
            return 0;
        }
        Map<QuotaKey, Double> m = all.get(new QuotaEntity(null, null, Name.of(ip)));
        Double bound = m == null ? null : m.get(QuotaKey.CONNECTION_CREATION_RATE);
        if (bound == null) {
            m = all.get(new QuotaEntity(null, null, Name.DEFAULT));
            bound = m == null ? null : m.get(QuotaKey.CONNECTION_CREATION_RATE);
        }
        if (bound == null) {
            return 0;
        }
        long throttle = recordRate(new Rated(QuotaKey.CONNECTION_CREATION_RATE, "", ip), 1, bound, true);
        return (int) Math.min(throttle, windowMs);
    }

    /**
     * Adds {@code value} to the rate kept for {@code rated} (made on first use), under the map's
     * lock for that key; returns the throttle time against {@code bound}. With {@code undoIfOver}
     * a value that takes the rate over the bound is taken back (a refused connection is not counted).
     */
    private long recordRate(Rated rated, double value, double bound, boolean undoIfOver) {
        long now = nowMs.getAsLong();
        long[] throttle = new long[1];
        rates.compute(rated, (r, w) -> {
            RateWindows rate = w == null ? new RateWindows(windowNum, windowMs) : w;
            rate.record(value, now);
            throttle[0] = rate.throttleMs(bound, now);
            if (undoIfOver && throttle[0] > 0) {
                rate.record(-value, now);
            }
            return rate;
        });
        maybeSweep(now);
        return throttle[0];
    }

    /** The length of one quota window in ms (the longest connection and request throttle). */
    public long windowMs() {
        return windowMs;
    }

    /** A broker- or listener-wide connection rate, measured on this quota's windows and clock. */
    public RateWindows newRate() {
        return new RateWindows(windowNum, windowMs);
    }

    /** Now, on the quotas' clock. */
    public long nowMs() {
        return nowMs.getAsLong();
    }

    /**
     * Records {@code nanos} of request handling time (Kafka's request_percentage: 100 is one
     * thread's whole time, so each nanosecond counts as 1e-7 percent-seconds); the throttle time
     * in ms, at most one quota window as in Kafka's ClientRequestQuotaManager (0: within quota).
     */
    public int requestTime(String principal, String clientId, long nanos) {
        Map<QuotaEntity, Map<QuotaKey, Double>> all = requestRates;
        if (all == null) {
            return 0;
        }
        int ms = record(all, QuotaKey.REQUEST_PERCENTAGE, principal, clientId, nanos * NANOS_TO_PERCENT_SECONDS);
        return (int) Math.min(ms, windowMs);
    }

    /** One nanosecond of a thread's time as a percentage of one second. */
    private static final double NANOS_TO_PERCENT_SECONDS = 100.0 / 1_000_000_000L;

    /** Records a produce request of {@code bytes}; the throttle time in ms (0: within quota). */
    public int produced(String principal, String clientId, long bytes) {
        return record(QuotaKey.PRODUCER_BYTE_RATE, principal, clientId, bytes);
    }

    /** Records a fetch response of {@code bytes}; the throttle time in ms (0: within quota). */
    public int fetched(String principal, String clientId, long bytes) {
        return record(QuotaKey.CONSUMER_BYTE_RATE, principal, clientId, bytes);
    }

    /**
     * The most a fetch answer may carry for a consumer under a {@code consumer_byte_rate} quota, as
     * Kafka bounds it: the quota times {@code quota.window.num − 1} windows, so that one answer
     * cannot take more than the rate allows over the measured span (and its throttle stays within
     * about that span). {@link Integer#MAX_VALUE} when no such quota applies.
     */
    public int maxFetchBytes(String principal, String clientId) {
        Map<QuotaEntity, Map<QuotaKey, Double>> all = byteRates;
        if (all == null) {
            return Integer.MAX_VALUE;
        }
        Applicable a = applicable(all, QuotaKey.CONSUMER_BYTE_RATE, principal, clientId);
        if (a == null) {
            return Integer.MAX_VALUE;
        }
        double cap = a.bound() * (windowNum - 1) * windowMs / 1000.0;
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, cap));
    }

    private int record(QuotaKey key, String principal, String clientId, long bytes) {
        Map<QuotaEntity, Map<QuotaKey, Double>> all = byteRates;
        if (all == null) {
            return 0;
        }
        return record(all, key, principal, clientId, (double) bytes);
    }

    private int record(Map<QuotaEntity, Map<QuotaKey, Double>> all, QuotaKey key, String principal, String clientId,
            double value) {
        Applicable a = applicable(all, key, principal, clientId);
        if (a == null) {
            return 0;
        }
        return (int) Math.min(Integer.MAX_VALUE, recordRate(a.rated(), value, a.bound(), false));
    }

    /**
     * Every {@code quota.window.num} windows, drops the rates and buckets that hold nothing a new
     * one would not: rates whose every value is that old, buckets unused that long and full again.
     * So a client that keeps changing its client id (or a flood of source addresses) leaves behind
     * at most what the last two such periods created. Kafka keeps each for an hour after its last use.
     * Each removal decides under the map's lock for its key, as the recording does, so no value is
     * recorded into a rate that is being dropped; a bucket is touched when a request takes it
     * ({@link #mutations}), so none is dropped under a request that charges it.
     */
    private void maybeSweep(long now) {
        long due = nextSweepMs.get();
        if (now - due < 0 || !nextSweepMs.compareAndSet(due, now + idleMs)) {
            return;
        }
        for (Rated k : rates.keySet()) {
            rates.computeIfPresent(k, (r, w) -> w.holdsNothing(now) ? null : w);
        }
        for (Rated k : buckets.keySet()) {
            buckets.computeIfPresent(k, (r, b) -> {
                synchronized (b) {
                    return b.idleAndFull(now, idleMs) ? null : b;
                }
            });
        }
    }

    /** How many rates and buckets are kept (tests). */
    int kept() {
        return rates.size() + buckets.size();
    }

    /**
     * The controller_mutation_rate quota of a CreateTopics, CreatePartitions or DeleteTopics
     * request from {@code principal} with {@code clientId}, {@code strict} or permissive (see
     * {@link MutationQuota}), charged on a token bucket shared as the byte rates are shared, whose
     * burst is the quota times {@code quota.window.num} times {@code quota.window.size.seconds}.
     * {@link MutationQuota#UNLIMITED} when no such quota applies (with none set anywhere, at the
     * cost of one volatile read).
     */
    public MutationQuota mutations(String principal, String clientId, boolean strict) {
        Map<QuotaEntity, Map<QuotaKey, Double>> all = mutationRates;
        if (all == null) {
            return MutationQuota.UNLIMITED;
        }
        Applicable a = applicable(all, QuotaKey.CONTROLLER_MUTATION_RATE, principal, clientId);
        if (a == null) {
            return MutationQuota.UNLIMITED;
        }
        double burst = TokenBucket.burst(a.bound(), windowNum, windowMs);
        long now = nowMs.getAsLong();
        TokenBucket bucket = buckets.compute(a.rated(), (r, b) -> {
            TokenBucket taken = b == null ? new TokenBucket(burst, now) : b;
            synchronized (taken) {
                taken.tokens(a.bound(), burst, now); // used now: not dropped while this request charges it
            }
            return taken;
        });
        maybeSweep(now);
        return new MutationQuota(bucket, a.bound(), burst, strict, nowMs);
    }

    /** The quota of {@code key} applying to {@code principal} and {@code clientId} (Kafka's precedence), or null. */
    private static Applicable applicable(Map<QuotaEntity, Map<QuotaKey, Double>> all, QuotaKey key, String principal,
            String clientId) {
        String user = userName(principal);
        String client = clientId == null ? "" : clientId;
        Name u = Name.of(user);
        Name c = Name.of(client);
        Name d = Name.DEFAULT;
        Double bound;
        Rated rated;
        if ((bound = get(all, key, u, c)) != null || (bound = get(all, key, u, d)) != null) {
            rated = new Rated(key, user, client);
        } else if ((bound = get(all, key, u, null)) != null) {
            rated = new Rated(key, user, "");
        } else if ((bound = get(all, key, d, c)) != null || (bound = get(all, key, d, d)) != null) {
            rated = new Rated(key, user, client);
        } else if ((bound = get(all, key, d, null)) != null) {
            rated = new Rated(key, user, "");
        } else if ((bound = get(all, key, null, c)) != null || (bound = get(all, key, null, d)) != null) {
            rated = new Rated(key, "", client);
        } else {
            return null;
        }
        return new Applicable(rated, bound);
    }

    private static Double get(Map<QuotaEntity, Map<QuotaKey, Double>> all, QuotaKey key, Name user, Name client) {
        Map<QuotaKey, Double> m = all.get(new QuotaEntity(user, client, null));
        return m == null ? null : m.get(key);
    }

    /** The user name of a principal ({@code User:alice} is user {@code alice}), as quota entities name users. */
    static String userName(String principal) {
        int colon = principal == null ? -1 : principal.indexOf(':');
        return colon < 0 ? String.valueOf(principal) : principal.substring(colon + 1);
    }
}
