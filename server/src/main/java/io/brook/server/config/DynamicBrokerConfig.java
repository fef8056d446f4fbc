package io.brook.server.config;

import io.brook.storage.file.DurableFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * The broker settings changed at run time ({@code kafka-configs.sh --alter --entity-type brokers},
 * IncrementalAlterConfigs on a BROKER resource), in Kafka's two scopes: this broker's own
 * ({@code --entity-name <id>}) and the cluster-wide default ({@code --entity-default}), the
 * former winning. They override the properties file and survive restarts: each change replaces
 * {@code meta/broker-configs} (temp file, fsync, rename) before it takes effect.
 *
 * <p>Which keys may change ({@link #RECONFIGURABLE}): those Kafka's {@code DynamicLogConfig} lets
 * change, the broker-wide defaults of topic configs, which topics without their own override
 * follow at once; the replication throttles; the connection limits, a listener's own among them
 * ({@link ListenerLimitKeys}). And, in this broker's own scope only, a TLS listener's key and
 * trust stores ({@link ListenerTlsKeys}), which new connections of the listener use, and Kafka's
 * Kerberos settings ({@link SecurityConfigKeys#KERBEROS}), kept without effect. Keys Brook does not
 * know at all are custom settings ({@link #isCustom}), kept without effect as Kafka keeps them for
 * its plug-ins. Values are stored as
 * given, passwords included (as they are in the properties file): the meta directory must be as
 * private as that file. Thread-safe; a change and its persistence are one step under this
 * object's lock.
 */
public final class DynamicBrokerConfig {

    /** Kafka's ConfigSource ids for the two dynamic scopes. */
    public static final byte SOURCE_DYNAMIC_BROKER = 2;
    public static final byte SOURCE_DYNAMIC_DEFAULT_BROKER = 3;

    /**
     * The broker keys that may change at run time: the defaults of topic configs, Kafka's
     * replication throttles ({@link #REPLICATION_THROTTLES}), which the replica fetcher reads, and
     * the connection limits ({@code max.connections}, {@code max.connections.per.ip} and its
     * overrides, {@code max.connection.creation.rate}), which the listeners read for each new
     * connection. A listener's own connection limits ({@link ListenerLimitKeys}) may change too.
     */
    public static final Set<String> RECONFIGURABLE = Set.of(
            BrokerConfig.LOG_RETENTION_MS, BrokerConfig.LOG_RETENTION_BYTES, BrokerConfig.LOG_SEGMENT_BYTES,
            BrokerConfig.LOG_ROLL_MS, BrokerConfig.LOG_CLEANUP_POLICY, BrokerConfig.MESSAGE_MAX_BYTES,
            BrokerConfig.COMPRESSION_TYPE, BrokerConfig.COMPRESSION_GZIP_LEVEL, BrokerConfig.COMPRESSION_LZ4_LEVEL,
            BrokerConfig.COMPRESSION_ZSTD_LEVEL, BrokerConfig.MAX_DECOMPRESSED_MESSAGE_BYTES,
            BrokerConfig.LOG_LOCAL_RETENTION_MS, BrokerConfig.LOG_LOCAL_RETENTION_BYTES,
            BrokerConfig.LOG_REMOTE_COPY_LAG_MS, BrokerConfig.LOG_REMOTE_COPY_LAG_BYTES,
            BrokerConfig.LOG_MESSAGE_TIMESTAMP_TYPE,
            BrokerConfig.LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS, BrokerConfig.LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS,
            BrokerConfig.MIN_INSYNC_REPLICAS, BrokerConfig.LOG_CLEANER_DELETE_RETENTION_MS,
            BrokerConfig.LOG_CLEANER_MIN_COMPACTION_LAG_MS, BrokerConfig.LOG_CLEANER_MAX_COMPACTION_LAG_MS,
            BrokerConfig.LOG_CLEANER_MIN_CLEANABLE_RATIO, BrokerConfig.LOG_ROLL_JITTER_MS, BrokerConfig.LOG_PREALLOCATE,
            BrokerConfig.UNCLEAN_LEADER_ELECTION_ENABLE, BrokerConfig.LOG_INDEX_INTERVAL_BYTES,
            BrokerConfig.LOG_INDEX_SIZE_MAX_BYTES, BrokerConfig.LOG_FLUSH_INTERVAL_MESSAGES,
            BrokerConfig.LOG_FLUSH_INTERVAL_MS, BrokerConfig.LOG_SEGMENT_DELETE_DELAY_MS, BrokerConfig.FSYNC_ON_ACK,
            BrokerConfig.LEADER_REPLICATION_THROTTLED_RATE, BrokerConfig.FOLLOWER_REPLICATION_THROTTLED_RATE,
            BrokerConfig.REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND,
            BrokerConfig.MAX_CONNECTIONS, BrokerConfig.MAX_CONNECTIONS_PER_IP,
            BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES, BrokerConfig.MAX_CONNECTION_CREATION_RATE);

    /** Kafka's replication throttles in bytes per second (Long.MAX_VALUE: none), Kafka's dynamic broker quotas. */
    public static final Set<String> REPLICATION_THROTTLES = Set.of(BrokerConfig.LEADER_REPLICATION_THROTTLED_RATE,
            BrokerConfig.FOLLOWER_REPLICATION_THROTTLED_RATE, BrokerConfig.REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND);

    static final String FILE = "broker-configs";
    private static final String BROKER_PREFIX = "broker.";
    private static final String DEFAULT_PREFIX = "default.";

    private final Path file;
    private Map<String, String> broker;
    private Map<String, String> clusterDefault;

    private DynamicBrokerConfig(Path file, Map<String, String> broker, Map<String, String> clusterDefault) {
        this.file = file;
        this.broker = broker;
        this.clusterDefault = clusterDefault;
    }

    /** No dynamic settings, nothing persisted (tests of the parts that read them). */
    public static DynamicBrokerConfig none() {
        return new DynamicBrokerConfig(null, Map.of(), Map.of());
    }

    /**
     * Reads {@code metaDir/broker-configs} (none yet: no dynamic settings). A key that is no longer
     * reconfigurable or a value that no longer parses is an error: the file is Brook's own.
     */
    public static DynamicBrokerConfig open(Path metaDir) throws IOException {
        Path f = metaDir.resolve(FILE);
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(f)) {
            p.load(new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return new DynamicBrokerConfig(f, Map.of(), Map.of());
        }
        Map<String, String> broker = new TreeMap<>();
        Map<String, String> def = new TreeMap<>();
        for (String name : p.stringPropertyNames()) {
            String value = p.getProperty(name);
            if (name.startsWith(BROKER_PREFIX)) {
                broker.put(name.substring(BROKER_PREFIX.length()), value);
            } else if (name.startsWith(DEFAULT_PREFIX)) {
                def.put(name.substring(DEFAULT_PREFIX.length()), value);
            } else {
                throw new IOException(f + ": unexpected entry " + name);
            }
        }
        for (Map<String, String> m : List.of(broker, def)) {
            for (Map.Entry<String, String> e : m.entrySet()) {
                String problem = invalid(e.getKey(), e.getValue());
                if (problem == null && m == def) {
                    problem = invalidInDefaultScope(e.getKey());
                }
                if (problem != null) {
                    throw new IOException(f + ": " + problem);
                }
            }
        }
        return new DynamicBrokerConfig(f, Collections.unmodifiableMap(broker), Collections.unmodifiableMap(def));
    }

    /** Null when {@code key} may change at run time and {@code value} is valid for it, else why not. */
    public static String invalid(String key, String value) {
        if (ListenerTlsKeys.listener(key) != null) {
            return value == null ? "Null value not supported for " + key : null;
        }
        if (ListenerLimitKeys.listener(key) != null) {
            if (value == null) {
                return "Null value not supported for " + key;
            }
            try {
                ListenerLimitKeys.parse(key, value, 1);
                return null;
            } catch (IllegalArgumentException e) {
                return e.getMessage();
            }
        }
        if (SecurityConfigKeys.KERBEROS.contains(key)) {
            return value == null ? "Null value not supported for " + key
                    : SecurityConfigKeys.invalidKerberosValue(key, value);
        }
        if (ListenerTlsKeys.unprefixed(key)) {
            return "These security configs can be dynamically updated only per-listener using the listener prefix: ["
                    + key + "]";
        }
        if (isCustom(key)) {
            return value == null ? "Null value not supported for " + key : null;
        }
        if (!RECONFIGURABLE.contains(key)) {
            return "Cannot update these configs dynamically: [" + key + "]";
        }
        if (value == null) {
            return "Null value not supported for " + key;
        }
        try {
            BrokerConfig.KEYS.get(key).parse(value);
            if (key.equals(BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES)) {
                BrokerConfig.connectionOverrides(value);
            }
            return null;
        } catch (IllegalArgumentException e) { // the config parser's InvalidConfigException among them
            return e.getMessage();
        }
    }

    /**
     * Whether {@code key} is a custom setting: one Brook does not know (not a broker or security
     * setting, nor a listener's override of one, its TLS stores or its connection limits). Kafka keeps such keys
     * among a broker's dynamic settings, for the plug-ins that read them, and describes them as
     * secrets of unknown type; Brook keeps and describes them alike, and they have no effect.
     */
    public static boolean isCustom(String key) {
        return !BrokerConfig.KEYS.containsKey(key) && !SecurityConfigKeys.known(key)
                && ListenerTlsKeys.listener(key) == null && ListenerLimitKeys.listener(key) == null;
    }

    /** Null when {@code key} may be set in the cluster-wide default scope, else why not (Kafka's message). */
    public static String invalidInDefaultScope(String key) {
        return ListenerTlsKeys.listener(key) == null && !SecurityConfigKeys.KERBEROS.contains(key) ? null
                : "Cannot update these configs at default cluster level, broker id must be specified: [" + key + "]";
    }

    /** This broker's own dynamic settings. */
    public synchronized Map<String, String> broker() {
        return broker;
    }

    /** The cluster-wide default dynamic settings. */
    public synchronized Map<String, String> clusterDefault() {
        return clusterDefault;
    }

    /** What is in force: the default scope overlaid with this broker's. */
    public synchronized Map<String, String> effective() {
        Map<String, String> m = new LinkedHashMap<>(clusterDefault);
        m.putAll(broker);
        return m;
    }

    /** Where a key's dynamic value comes from: a SOURCE_DYNAMIC_* id, or 0 when it has none. */
    public synchronized byte source(String key) {
        if (broker.containsKey(key)) {
            return SOURCE_DYNAMIC_BROKER;
        }
        return clusterDefault.containsKey(key) ? SOURCE_DYNAMIC_DEFAULT_BROKER : 0;
    }

    /**
     * Replaces one scope's settings (already validated) and persists both scopes before the
     * change is visible; {@code then} runs under the lock with what is in force afterwards, so
     * that concurrent changes apply in the order they were persisted.
     */
    public synchronized void replace(boolean defaultScope, Map<String, String> values,
            java.util.function.Consumer<Map<String, String>> then) throws IOException {
        Map<String, String> nextBroker = defaultScope ? broker : Collections.unmodifiableMap(new TreeMap<>(values));
        Map<String, String> nextDefault = defaultScope ? Collections.unmodifiableMap(new TreeMap<>(values))
                : clusterDefault;
        if (file != null) {
            Properties p = new Properties();
            nextBroker.forEach((k, v) -> p.setProperty(BROKER_PREFIX + k, v));
            nextDefault.forEach((k, v) -> p.setProperty(DEFAULT_PREFIX + k, v));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            p.store(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), "Brook: broker settings changed at run time");
            DurableFiles.writeAtomically(file, out.toByteArray());
        }
        this.broker = nextBroker;
        this.clusterDefault = nextDefault;
        then.accept(effective());
    }
}
