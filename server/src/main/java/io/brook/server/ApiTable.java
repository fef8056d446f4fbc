package io.brook.server;

import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The handlers the broker implements, indexed by API key id. The ApiVersions response is derived
 * from this table, so what is advertised is exactly what is registered. Immutable once built;
 * read by every event loop without locking.
 */
final class ApiTable {

    /**
     * One registered API. Versions {@code advertisedMin..advertisedMax} are advertised; versions
     * below {@code acceptFrom} are advertised for old clients' feature checks but close the
     * connection when they actually arrive (Produce v0–2, protocol.md §1.5).
     */
    static final class Entry<Q extends ApiMessage> {
        final ApiKey key;
        final short advertisedMin;
        final short advertisedMax;
        final short acceptFrom;
        final BodyReader<Q> reader;
        final ApiHandler<Q> handler;

        Entry(ApiKey key, short advertisedMin, short advertisedMax, short acceptFrom, BodyReader<Q> reader,
                ApiHandler<Q> handler) {
            if (advertisedMin > advertisedMax || acceptFrom < advertisedMin || acceptFrom > advertisedMax) {
                throw new IllegalArgumentException(key + ": bad version range " + advertisedMin + ".." + advertisedMax
                        + " accepting from " + acceptFrom);
            }
            if (acceptFrom < key.oldestVersion() || advertisedMax > key.latestVersion()) {
                throw new IllegalArgumentException(key + ": versions " + acceptFrom + ".." + advertisedMax
                        + " exceed what the codec reads (" + key.oldestVersion() + ".." + key.latestVersion() + ")");
            }
            this.key = key;
            this.advertisedMin = advertisedMin;
            this.advertisedMax = advertisedMax;
            this.acceptFrom = acceptFrom;
            this.reader = reader;
            this.handler = handler;
        }

        boolean accepts(short version) {
            return version >= acceptFrom && version <= advertisedMax;
        }
    }

    private static final int SIZE = maxId() + 1;

    private final Entry<?>[] byId;
    private final List<Entry<?>> entries;

    private ApiTable(Entry<?>[] byId) {
        this.byId = byId;
        List<Entry<?>> list = new ArrayList<>();
        for (Entry<?> e : byId) {
            if (e != null) {
                list.add(e);
            }
        }
        this.entries = Collections.unmodifiableList(list);
    }

    static Builder builder() {
        return new Builder();
    }

    /** The entry for a raw key id from the wire, or null when not implemented. */
    Entry<?> entry(int apiKeyId) {
        return apiKeyId >= 0 && apiKeyId < SIZE ? byId[apiKeyId] : null;
    }

    /** All registered entries in key-id order. */
    List<Entry<?>> entries() {
        return entries;
    }

    private static int maxId() {
        int max = 0;
        for (ApiKey k : ApiKey.values()) {
            max = Math.max(max, k.id());
        }
        return max;
    }

    static final class Builder {
        private final Entry<?>[] byId = new Entry<?>[SIZE];

        /** Registers with the key's advertised range (protocol.md Appendix A), accepting what the codec reads. */
        <Q extends ApiMessage> Builder register(ApiKey key, BodyReader<Q> reader, ApiHandler<Q> handler) {
            if (!key.advertised()) {
                throw new IllegalArgumentException(key + " has no advertised range; give one explicitly");
            }
            short acceptFrom = (short) Math.max(key.advertisedMin(), key.oldestVersion());
            return register(key, key.advertisedMin(), key.advertisedMax(), acceptFrom, reader, handler);
        }

        <Q extends ApiMessage> Builder register(ApiKey key, short min, short max, short acceptFrom,
                BodyReader<Q> reader, ApiHandler<Q> handler) {
            if (byId[key.id()] != null) {
                throw new IllegalArgumentException(key + " registered twice");
            }
            byId[key.id()] = new Entry<>(key, min, max, acceptFrom, reader, handler);
            return this;
        }

        ApiTable build() {
            return new ApiTable(byId.clone());
        }
    }
}
