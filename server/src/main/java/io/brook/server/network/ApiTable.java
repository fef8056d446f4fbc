package io.brook.server.network;

import io.brook.wire.message.ApiMessages;
import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.message.ApiVersionsResponse.ApiVersion;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiRequest;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.ProtocolReader;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The handlers the broker serves, indexed by API key id, each with the version range it
 * advertises. The ApiVersions response is derived from this table alone, so what is advertised
 * is exactly what is registered. Immutable once built; read by every event loop without locking.
 */
public final class ApiTable {

    /**
     * One registered API. Versions {@code advertisedMin..advertisedMax} are advertised; versions
     * below {@code acceptFrom} are advertised for old clients' feature checks but close the
     * connection when they actually arrive (Produce v0–2: old librdkafka turns compression on only
     * when it sees Produce v0 advertised).
     */
    public static final class Entry<Q extends ApiRequest> {
        private final ApiKey key;
        private final short advertisedMin;
        private final short advertisedMax;
        private final short acceptFrom;
        /** Null: the generated reader of the key's request ({@link ApiMessages#readRequest}). */
        private final BodyReader<Q> reader;
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

        public ApiKey key() {
            return key;
        }

        /**
         * Reads a request body of this entry's key at {@code version}: with {@code in}, the
         * reader of {@code body} that bounds and estimates the heap it decodes to, unless a
         * reader of the entry's own is registered.
         *
         * @throws io.brook.wire.protocol.ProtocolDecodeException on malformed input
         */
        @SuppressWarnings("unchecked") // the generated reader of the key returns the key's request class: the Q of the handler
        Q read(ProtocolReader in, ByteBuffer body, short version) {
            return reader != null ? reader.read(body, version) : (Q) ApiMessages.readRequest(key, version, in);
        }

        /** The handler, as registered (after the builder's wrapper, if any). */
        public ApiHandler<Q> handler() {
            return handler;
        }

        /** Whether the handler may run {@code body} (read by this entry's reader) on the event loop. */
        @SuppressWarnings("unchecked") // the body was read by this entry's reader, so it is a Q
        boolean runsOnEventLoop(ApiRequest body) {
            return handler.runsOnEventLoop((Q) body);
        }

        /** The lowest version in the ApiVersions response. */
        public short advertisedMin() {
            return advertisedMin;
        }

        /** The highest version in the ApiVersions response, also the highest one accepted. */
        public short advertisedMax() {
            return advertisedMax;
        }

        /** The lowest version that is read and handled; lower ones close the connection. */
        public short acceptFrom() {
            return acceptFrom;
        }

        boolean accepts(short version) {
            return version >= acceptFrom && version <= advertisedMax;
        }
    }

    private static final int SIZE = maxId() + 1;

    private final Entry<?>[] byId;
    private final List<Entry<?>> entries;
    private final ApiVersionsResponse apiVersions;
    /** Fault hooks' seam: sees every request before its handler; null unless a hook is set. */
    private volatile RequestInterceptor interceptor;
    /** The request_percentage quota; null when requests are not measured. */
    private final RequestTimeQuota requestTimeQuota;

    private ApiTable(Entry<?>[] byId, RequestTimeQuota requestTimeQuota) {
        this.byId = byId;
        this.requestTimeQuota = requestTimeQuota;
        List<Entry<?>> list = new ArrayList<>();
        List<ApiVersion> versions = new ArrayList<>();
        for (Entry<?> e : byId) {
            if (e != null) {
                list.add(e);
                versions.add(new ApiVersion().apiKey(e.key.id()).minVersion(e.advertisedMin).maxVersion(e.advertisedMax));
            }
        }
        this.entries = Collections.unmodifiableList(list);
        this.apiVersions = new ApiVersionsResponse().errorCode(Errors.NONE.code()).apiKeys(versions);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The entry for a raw key id from the wire, or null when not implemented. */
    Entry<?> entry(int apiKeyId) {
        return apiKeyId >= 0 && apiKeyId < SIZE ? byId[apiKeyId] : null;
    }

    /** Sets (or, with null, removes) what sees every request before its handler. */
    public void intercept(RequestInterceptor interceptor) {
        this.interceptor = interceptor;
    }

    RequestInterceptor interceptor() {
        return interceptor;
    }

    RequestTimeQuota requestTimeQuota() {
        return requestTimeQuota;
    }

    /** All registered entries in key-id order. */
    public List<Entry<?>> entries() {
        return entries;
    }

    /**
     * The API part of the ApiVersions answer: every registered key with its advertised range
     * (the handler adds the features section). One shared instance: responses are only read
     * while being encoded.
     */
    public ApiVersionsResponse apiVersionsResponse() {
        return apiVersions;
    }

    /**
     * KIP-511's answer to an ApiVersions request newer than we serve: a v0 body with
     * UNSUPPORTED_VERSION and only the ApiVersions entry, which every client family reads to
     * retry at our maximum.
     */
    static ApiVersionsResponse unsupportedApiVersions(Entry<?> apiVersionsEntry) {
        List<ApiVersion> keys = new ArrayList<>(1);
        keys.add(new ApiVersion().apiKey(apiVersionsEntry.key.id()).minVersion(apiVersionsEntry.advertisedMin)
                .maxVersion(apiVersionsEntry.advertisedMax));
        return new ApiVersionsResponse().errorCode(Errors.UNSUPPORTED_VERSION.code()).apiKeys(keys);
    }

    private static int maxId() {
        int max = 0;
        for (ApiKey k : ApiKey.values()) {
            max = Math.max(max, k.id());
        }
        return max;
    }

    /** Wraps each handler as it is registered (the authorizer's checks go in front of it). */
    @FunctionalInterface
    public interface HandlerWrapper {
        <Q extends ApiRequest> ApiHandler<Q> wrap(ApiKey key, ApiHandler<Q> handler);
    }

    public static final class Builder {
        private final Entry<?>[] byId = new Entry<?>[SIZE];
        private HandlerWrapper wrapper;
        private RequestTimeQuota requestTimeQuota;

        private Builder() {
        }

        /** Wraps every handler registered from now on with {@code w}. */
        public Builder wrapping(HandlerWrapper w) {
            this.wrapper = w;
            return this;
        }

        /** Measures each answered request's handling time against {@code q} (request_percentage). */
        public Builder requestTimeQuota(RequestTimeQuota q) {
            this.requestTimeQuota = q;
            return this;
        }

        /**
         * Registers {@code key}, advertising and accepting versions {@code min..max}; its bodies
         * are read by the generated reader of the key's request class, which must be the
         * handler's {@code Q} (the table's tests check each registered handler).
         *
         * <p>This form takes no reader object: a method reference per API would spin a hidden
         * class each when the table is built, which a broker's start in a new JVM pays for.
         */
        public <Q extends ApiRequest> Builder register(ApiKey key, int min, int max, ApiHandler<Q> handler) {
            return register(key, min, max, min, null, handler);
        }

        /** As {@link #register(ApiKey, int, int, ApiHandler)}, accepting only {@code acceptFrom..max}. */
        public <Q extends ApiRequest> Builder register(ApiKey key, int min, int max, int acceptFrom, ApiHandler<Q> handler) {
            return register(key, min, max, acceptFrom, null, handler);
        }

        /** Registers {@code key}, advertising and accepting versions {@code min..max}, read by {@code reader}. */
        public <Q extends ApiRequest> Builder register(ApiKey key, int min, int max, BodyReader<Q> reader,
                ApiHandler<Q> handler) {
            return register(key, min, max, min, reader, handler);
        }

        /**
         * Registers {@code key}, advertising versions {@code min..max} and accepting only
         * {@code acceptFrom..max}, read by {@code reader} (null: the generated reader of the key).
         */
        public <Q extends ApiRequest> Builder register(ApiKey key, int min, int max, int acceptFrom,
                BodyReader<Q> reader, ApiHandler<Q> handler) {
            if (byId[key.id()] != null) {
                throw new IllegalArgumentException(key + " registered twice");
            }
            ApiHandler<Q> h = wrapper == null ? handler : wrapper.wrap(key, handler);
            byId[key.id()] = new Entry<>(key, (short) min, (short) max, (short) acceptFrom, reader, h);
            return this;
        }

        public ApiTable build() {
            return new ApiTable(byId.clone(), requestTimeQuota);
        }
    }
}
