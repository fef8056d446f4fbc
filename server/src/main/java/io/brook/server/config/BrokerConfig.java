package io.brook.server.config;

import io.brook.coordinator.group.GroupCoordinatorConfig;
import io.brook.coordinator.txn.TxnCoordinatorConfig;
import io.brook.storage.config.ConfigKey;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's settings, read from Kafka-style properties with Kafka's names and, where Brook
 * has no reason to differ, Kafka's defaults. Immutable once built.
 *
 * <p>Where Brook differs: {@code node.id} defaults to 1 (a single node needs no quorum to give
 * it one), {@code log.dir} defaults to {@code ./data}, {@code max.connections} defaults to
 * {@value #DEFAULT_MAX_CONNECTIONS} instead of unbounded (each connection costs a file
 * descriptor and buffers; a runaway client loop should hit this, not the process fd limit),
 * {@code queued.max.request.bytes} defaults to {@value #DEFAULT_QUEUED_MAX_REQUEST_BYTES} instead
 * of unbounded (request bytes live in direct memory, which {@code bin/brook} caps at 1 GiB with
 * its heap: the bound leaves room for answers, the allocator's pools and storage, and still fits
 * two requests of the largest size), and {@code default.replication.factor} can only be 1.
 *
 * <p>The consumer-group settings ({@code group.*}, {@code offsets.retention.*}, ...) are the
 * coordinator's ({@link GroupCoordinatorConfig#CONFIG_NAMES}): known here, checked when parsed
 * and handed over as a {@link GroupCoordinatorConfig}; the transaction settings
 * ({@code transaction.*}, {@code transactional.id.expiration.ms}) likewise as a
 * {@link TxnCoordinatorConfig}.
 *
 * <p>Brook's own keys start with {@code brook.}. Unknown keys are logged once, when the
 * configuration is parsed, and otherwise ignored (Kafka configs carry many keys that mean
 * nothing to a single node): Kafka's own settings ({@link KafkaSettingNames}) together on one
 * line, any other key, most likely a typo, on a line of its own. A known key with an invalid
 * value is rejected with an {@link IllegalArgumentException} naming key, value and rule.
 */
public final class BrokerConfig {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerConfig.class);
    /** The unknown keys already logged in this JVM: each is logged once. */
    private static final Set<String> WARNED_UNKNOWN = ConcurrentHashMap.newKeySet();

    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
    public static final long DEFAULT_QUEUED_MAX_REQUEST_BYTES = 256L * 1024 * 1024;

    public static final String LISTENERS = "listeners";
    public static final String ADVERTISED_LISTENERS = "advertised.listeners";
    public static final String LISTENER_SECURITY_PROTOCOL_MAP = "listener.security.protocol.map";
    public static final String NODE_ID = "node.id";
    public static final String BROKER_ID = "broker.id";
    // cluster mode (docs/cluster.md): Kafka's KRaft names, plus cluster.id (Kafka's format step writes it)
    public static final String PROCESS_ROLES = "process.roles";
    public static final String CONTROLLER_QUORUM_VOTERS = "controller.quorum.voters";
    public static final String CONTROLLER_QUORUM_BOOTSTRAP_SERVERS = "controller.quorum.bootstrap.servers";
    public static final String CONTROLLER_LISTENER_NAMES = "controller.listener.names";
    public static final String CLUSTER_ID = "cluster.id";
    public static final String BROKER_RACK = "broker.rack";
    public static final String BROKER_HEARTBEAT_INTERVAL_MS = "broker.heartbeat.interval.ms";
    public static final String BROKER_SESSION_TIMEOUT_MS = "broker.session.timeout.ms";
    public static final String CONTROLLER_QUORUM_ELECTION_TIMEOUT_MS = "controller.quorum.election.timeout.ms";
    public static final String INTER_BROKER_LISTENER_NAME = "inter.broker.listener.name";
    public static final String SECURITY_INTER_BROKER_PROTOCOL = "security.inter.broker.protocol";
    public static final String OFFSETS_TOPIC_SEGMENT_BYTES = "offsets.topic.segment.bytes";
    public static final String OFFSETS_TOPIC_COMPRESSION_CODEC = "offsets.topic.compression.codec";
    public static final String GROUP_COORDINATOR_REBALANCE_PROTOCOLS = "group.coordinator.rebalance.protocols";
    public static final String LOG_DIRS = "log.dirs";
    public static final String LOG_DIR = "log.dir";
    public static final String NUM_PARTITIONS = "num.partitions";
    public static final String MAX_REQUEST_PARTITION_SIZE_LIMIT = "max.request.partition.size.limit";
    public static final String DEFAULT_REPLICATION_FACTOR = "default.replication.factor";
    public static final String AUTO_CREATE_TOPICS_ENABLE = "auto.create.topics.enable";
    public static final String SOCKET_REQUEST_MAX_BYTES = "socket.request.max.bytes";
    public static final String SOCKET_SEND_BUFFER_BYTES = "socket.send.buffer.bytes";
    public static final String SOCKET_RECEIVE_BUFFER_BYTES = "socket.receive.buffer.bytes";
    public static final String SOCKET_LISTEN_BACKLOG_SIZE = "socket.listen.backlog.size";
    public static final String CONNECTIONS_MAX_IDLE_MS = "connections.max.idle.ms";
    public static final String MAX_CONNECTIONS = "max.connections";
    public static final String CONNECTION_MAX_INFLIGHT_BYTES = "brook.connection.max.inflight.bytes";
    public static final String REQUEST_MAX_DECODED_BYTES = "brook.request.max.decoded.bytes";
    public static final String CONNECTION_MAX_INFLIGHT_REQUESTS = "brook.connection.max.inflight.requests";
    public static final String MAX_CONNECTIONS_PER_IP = "max.connections.per.ip";
    public static final String MAX_CONNECTIONS_PER_IP_OVERRIDES = "max.connections.per.ip.overrides";
    public static final String QUEUED_MAX_REQUEST_BYTES = "queued.max.request.bytes";
    public static final String QUEUED_MAX_RESPONSE_BYTES = "brook.queued.max.response.bytes";
    public static final String REQUEST_RECEIVE_TIMEOUT_MS = "brook.request.receive.timeout.ms";
    public static final String FETCH_MAX_BYTES = "fetch.max.bytes";
    public static final String FETCH_MAX_WAITING_PARTITIONS = "brook.fetch.max.waiting.partitions";
    public static final String MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS = "max.incremental.fetch.session.cache.slots";
    public static final String FETCH_SESSION_MAX_PARTITIONS = "brook.fetch.session.max.partitions";
    public static final String NUM_IO_THREADS = "num.io.threads";
    public static final String NUM_NETWORK_THREADS = "num.network.threads";
    public static final String FSYNC_ON_ACK = "brook.fsync.on.ack";
    public static final String LOG_FLUSH_THREADS = "brook.log.flush.threads";
    public static final String LOG_FLUSH_COALESCE_MS = "brook.log.flush.coalesce.ms";
    public static final String LOG_FLUSH_COALESCE_UNREAD_MS = "brook.log.flush.coalesce.unread.ms";
    public static final String LOG_PREALLOCATE_BYTES = "brook.log.preallocate.bytes";
    public static final String NETWORK_EPOLL = "brook.network.epoll";
    public static final String NETWORK_INLINE_REQUESTS = "brook.network.inline.requests";
    public static final String FAIR_SHARE_ENABLE = "brook.fair.share.enable";
    /** The HTTP admin listener (metrics, health): {@code HOST:PORT}, or {@code none}. */
    public static final String HTTP_LISTENER = "brook.http.listener";
    /** Where the HTTP admin listener binds unless {@link #HTTP_LISTENER} says otherwise. */
    public static final String HTTP_LISTENER_DEFAULT = "127.0.0.1:9644";
    /** KIP-714: the largest PushTelemetry payload (compressed) accepted. */
    public static final String TELEMETRY_MAX_BYTES = "telemetry.max.bytes";
    public static final String MESSAGE_MAX_BYTES = "message.max.bytes";
    public static final String LOG_SEGMENT_BYTES = "log.segment.bytes";
    public static final String LOG_ROLL_MS = "log.roll.ms";
    public static final String LOG_ROLL_HOURS = "log.roll.hours";
    public static final String LOG_RETENTION_MS = "log.retention.ms";
    public static final String LOG_RETENTION_MINUTES = "log.retention.minutes";
    public static final String LOG_RETENTION_HOURS = "log.retention.hours";
    public static final String LOG_RETENTION_BYTES = "log.retention.bytes";
    public static final String LOG_CLEANUP_POLICY = "log.cleanup.policy";
    public static final String COMPRESSION_TYPE = "compression.type";
    /** Broker defaults of the topic configs of the same names (KIP-390), stored as Kafka's are. */
    public static final String COMPRESSION_GZIP_LEVEL = "compression.gzip.level";
    public static final String COMPRESSION_LZ4_LEVEL = "compression.lz4.level";
    public static final String COMPRESSION_ZSTD_LEVEL = "compression.zstd.level";
    /** Broker default of the topic config of the same name. */
    public static final String MAX_DECOMPRESSED_MESSAGE_BYTES = "max.decompressed.message.bytes";
    /** Broker defaults of tiered storage topic configs; Brook has no tiered storage and only stores them. */
    public static final String LOG_LOCAL_RETENTION_MS = "log.local.retention.ms";
    public static final String LOG_LOCAL_RETENTION_BYTES = "log.local.retention.bytes";
    public static final String LOG_REMOTE_COPY_LAG_MS = "log.remote.copy.lag.ms";
    public static final String LOG_REMOTE_COPY_LAG_BYTES = "log.remote.copy.lag.bytes";
    public static final String LOG_MESSAGE_TIMESTAMP_TYPE = "log.message.timestamp.type";
    public static final String LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS = "log.message.timestamp.before.max.ms";
    public static final String LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS = "log.message.timestamp.after.max.ms";
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    public static final String DELETE_TOPIC_ENABLE = "delete.topic.enable";
    public static final String OFFSETS_TOPIC_NUM_PARTITIONS = "offsets.topic.num.partitions";
    public static final String LOG_CLEANER_DELETE_RETENTION_MS = "log.cleaner.delete.retention.ms";
    public static final String LOG_CLEANER_MIN_COMPACTION_LAG_MS = "log.cleaner.min.compaction.lag.ms";
    public static final String LOG_CLEANER_MAX_COMPACTION_LAG_MS = "log.cleaner.max.compaction.lag.ms";
    public static final String LOG_CLEANER_MIN_CLEANABLE_RATIO = "log.cleaner.min.cleanable.ratio";
    public static final String LOG_ROLL_JITTER_MS = "log.roll.jitter.ms";
    public static final String LOG_ROLL_JITTER_HOURS = "log.roll.jitter.hours";
    public static final String LOG_PREALLOCATE = "log.preallocate";
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";
    public static final String LOG_INDEX_INTERVAL_BYTES = "log.index.interval.bytes";
    public static final String LOG_INDEX_SIZE_MAX_BYTES = "log.index.size.max.bytes";
    public static final String LOG_FLUSH_INTERVAL_MESSAGES = "log.flush.interval.messages";
    public static final String LOG_FLUSH_INTERVAL_MS = "log.flush.interval.ms";
    public static final String LOG_SEGMENT_DELETE_DELAY_MS = "log.segment.delete.delay.ms";
    /** Kafka's replication throttles (bytes/s), set at run time only in practice: {@link DynamicBrokerConfig}. */
    public static final String LEADER_REPLICATION_THROTTLED_RATE = "leader.replication.throttled.rate";
    public static final String FOLLOWER_REPLICATION_THROTTLED_RATE = "follower.replication.throttled.rate";
    public static final String REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND = "replica.alter.log.dirs.io.max.bytes.per.second";
    public static final String NUM_RECOVERY_THREADS = "num.recovery.threads.per.data.dir";
    public static final String LOG_RETENTION_CHECK_INTERVAL_MS = "log.retention.check.interval.ms";
    public static final String LOG_FLUSH_SCHEDULER_INTERVAL_MS = "log.flush.scheduler.interval.ms";
    public static final String LOG_FLUSH_CHECKPOINT_INTERVAL_MS = "log.flush.offset.checkpoint.interval.ms";
    public static final String LOG_CLEANER_ENABLE = "log.cleaner.enable";
    public static final String LOG_CLEANER_BACKOFF_MS = "log.cleaner.backoff.ms";
    public static final String LOG_CLEANER_DEDUPE_BUFFER_SIZE = "log.cleaner.dedupe.buffer.size";
    public static final String PRODUCER_ID_EXPIRATION_MS = "producer.id.expiration.ms";
    public static final String PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS = "producer.id.expiration.check.interval.ms";
    public static final String MAX_PRODUCER_IDS_PER_PARTITION = "brook.max.producer.ids.per.partition";
    public static final String OFFSETS_TOPIC_REPLICATION_FACTOR = "offsets.topic.replication.factor";
    public static final String TXN_STATE_LOG_REPLICATION_FACTOR = "transaction.state.log.replication.factor";
    public static final String TXN_STATE_LOG_MIN_ISR = "transaction.state.log.min.isr";
    public static final String QUOTA_WINDOW_NUM = "quota.window.num";
    public static final String QUOTA_WINDOW_SIZE_SECONDS = "quota.window.size.seconds";
    public static final String MAX_CONNECTION_CREATION_RATE = "max.connection.creation.rate";

    /** Every key Brook understands, in the order DescribeConfigs lists them. */
    public static final Map<String, ConfigKey> KEYS = BrokerConfigKeys.all();

    private final Map<String, Object> values;
    private final Set<String> explicit;
    private final Set<String> unknown;
    private final GroupCoordinatorConfig groupCoordinator;
    /** The group coordinator's settings as written (Kafka's names), which a group's own settings are checked against. */
    private final Map<String, String> groupSettings;
    private final TxnCoordinatorConfig txnCoordinator;
    private final Listeners listeners;
    private final Map<String, String> securitySettings;
    private final Path dataDir;
    private final Map<InetAddress, Integer> connectionsPerIpOverrides;

    private BrokerConfig(Map<String, Object> values, Set<String> explicit, Set<String> unknown,
            GroupCoordinatorConfig groupCoordinator, Map<String, String> groupSettings,
            TxnCoordinatorConfig txnCoordinator, Map<String, String> securitySettings) {
        this.values = values;
        this.explicit = explicit;
        this.unknown = unknown;
        this.groupCoordinator = groupCoordinator;
        this.groupSettings = groupSettings;
        this.txnCoordinator = txnCoordinator;
        this.securitySettings = securitySettings;
        if (clustered() && !clusterModuleAvailable()) {
            throw new IllegalArgumentException(PROCESS_ROLES + " is set, so this node would run in cluster mode, but"
                    + " Brook's cluster module is not on the class path: add io.brook:brook-cluster (brook-server"
                    + " declares it optional, so that embedded single brokers do without Ratis)");
        }
        this.listeners = Listeners.parse(list(LISTENERS), list(ADVERTISED_LISTENERS),
                string(LISTENER_SECURITY_PROTOCOL_MAP), clustered() ? controllerListenerNames() : List.of());
        String dirsKey = list(LOG_DIRS) != null ? LOG_DIRS : LOG_DIR;
        List<String> dirs = list(dirsKey);
        if (dirs.size() != 1) {
            throw new IllegalArgumentException("Invalid value '" + String.join(",", dirs) + "' for configuration "
                    + dirsKey + ": Brook uses exactly one data directory");
        }
        this.dataDir = Path.of(dirs.get(0));
        long queued = longValue(QUEUED_MAX_REQUEST_BYTES);
        if (queued > 0 && queued < socketRequestMaxBytes()) {
            throw new IllegalArgumentException("Invalid value '" + queued + "' for configuration " + QUEUED_MAX_REQUEST_BYTES
                    + ": must be at least socket.request.max.bytes (" + socketRequestMaxBytes() + ") or -1 (unbounded)");
        }
        this.connectionsPerIpOverrides = connectionOverrides(string(MAX_CONNECTIONS_PER_IP_OVERRIDES));
        if (maxConnectionsPerIp() == 0 && connectionsPerIpOverrides.isEmpty()) {
            throw new IllegalArgumentException("Invalid value '0' for configuration " + MAX_CONNECTIONS_PER_IP
                    + ": can be 0 only if " + MAX_CONNECTIONS_PER_IP_OVERRIDES + " is set");
        }
    }

    /**
     * {@code max.connections.per.ip.overrides}: {@code host:count,...} (the host a name or an
     * address, resolved now; an IPv6 address ends at the last colon).
     *
     * @throws IllegalArgumentException naming the entry that does not parse or resolve
     */
    public static Map<InetAddress, Integer> connectionOverrides(String spec) {
        Map<InetAddress, Integer> out = new HashMap<>();
        if (spec == null || spec.isBlank()) {
            return Map.of();
        }
        for (String item : spec.split(",", -1)) {
            String entry = item.trim();
            int colon = entry.lastIndexOf(':');
            String problem = null;
            if (colon <= 0 || colon == entry.length() - 1) {
                problem = "expected host:count";
            } else {
                String host = entry.substring(0, colon).trim();
                if (host.startsWith("[") && host.endsWith("]")) {
                    host = host.substring(1, host.length() - 1);
                }
                try {
                    int count = Integer.parseInt(entry.substring(colon + 1).trim());
                    if (count < 0) {
                        problem = "a count must be at least 0";
                    } else {
                        out.put(InetAddress.getByName(host), count);
                    }
                } catch (NumberFormatException e) {
                    problem = "not a count: " + entry.substring(colon + 1);
                } catch (UnknownHostException e) {
                    problem = "unknown host " + host;
                }
            }
            if (problem != null) {
                throw new IllegalArgumentException("Invalid value '" + spec + "' for configuration "
                        + MAX_CONNECTIONS_PER_IP_OVERRIDES + ": " + problem + " in '" + entry + "'");
            }
        }
        return Collections.unmodifiableMap(out);
    }

    public static BrokerConfig defaults() {
        return parse(Map.of());
    }

    /** Parses, checks and resolves synonyms; logs each unknown key once. */
    public static BrokerConfig parse(Map<String, String> raw) {
        Map<String, Object> values = new HashMap<>();
        Set<String> explicit = new TreeSet<>();
        Set<String> unknown = new TreeSet<>();
        Map<String, String> viaSynonym = new HashMap<>();
        Map<String, String> groupSettings = new HashMap<>();
        Map<String, String> txnSettings = new HashMap<>();
        Map<String, String> security = new TreeMap<>();
        for (Map.Entry<String, String> e : raw.entrySet()) {
            String name = e.getKey().trim();
            if (ConfigProviders.isProviderSetting(name)) {
                continue; // read by ConfigProviders before the settings got here
            }
            if (isSecuritySetting(name)) {
                security.put(name, e.getValue());
                continue;
            }
            if (GroupCoordinatorConfig.CONFIG_NAMES.contains(name)) {
                groupSettings.put(name, e.getValue().trim());
            }
            if (TxnCoordinatorConfig.CONFIG_NAMES.contains(name)) {
                txnSettings.put(name, e.getValue().trim());
            }
            ConfigKey key = KEYS.get(name);
            if (key == null) {
                key = bySynonym(name);
                if (key == null) {
                    if (!GroupCoordinatorConfig.CONFIG_NAMES.contains(name)
                            && !TxnCoordinatorConfig.CONFIG_NAMES.contains(name)) {
                        unknown.add(name);
                    }
                    continue;
                }
                String other = viaSynonym.put(key.name(), name);
                if (other != null) {
                    throw new IllegalArgumentException("Configurations " + other + " and " + name + " are synonyms;"
                            + " set only one");
                }
            }
            Object value = key.parse(e.getValue());
            Object previous = values.put(key.name(), value);
            if (previous != null && !previous.equals(value)) {
                throw new IllegalArgumentException("Conflicting values for " + key.name() + " and its synonym "
                        + String.join("/", key.synonyms()) + ": '" + previous + "' and '" + value + "'");
            }
            explicit.add(key.name());
        }
        for (ConfigKey key : KEYS.values()) {
            if (!values.containsKey(key.name()) && key.defaultValue() != null) {
                values.put(key.name(), key.parse(key.defaultValue()));
            }
        }
        GroupCoordinatorConfig group;
        try {
            group = GroupCoordinatorConfig.fromConfigs(groupSettings);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new IllegalArgumentException("Invalid group coordinator configuration: " + e.getMessage(), e);
        }
        TxnCoordinatorConfig txn;
        try {
            txn = TxnCoordinatorConfig.fromConfigs(txnSettings);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid transaction coordinator configuration: " + e.getMessage(), e);
        }
        // security settings Brook does not read (ssl.provider, a listener override of a key it does not
        // know, ...): kept for the security package, which ignores them, and reported as unknown
        for (String name : security.keySet()) {
            if (!SecurityConfigKeys.known(name)) {
                unknown.add(name);
            }
        }
        logIgnored(unknown);
        return new BrokerConfig(values, Collections.unmodifiableSet(explicit), Collections.unmodifiableSet(unknown),
                group, Map.copyOf(groupSettings), txn, Collections.unmodifiableMap(security));
    }

    /**
     * Logs the keys Brook ignores, each once per JVM (settings are parsed more than once on the
     * way to a start): Kafka's settings that Brook does not implement in one line, since a
     * {@code server.properties} from Kafka carries them by design; every other key on a line of
     * its own, since it is neither Kafka's nor Brook's and most likely a typo.
     */
    private static void logIgnored(Set<String> ignored) {
        Set<String> fresh = new TreeSet<>();
        for (String name : ignored) {
            if (WARNED_UNKNOWN.add(name)) {
                fresh.add(name);
            }
        }
        Set<String> kafkas = KafkaSettingNames.kafkas(fresh);
        for (String name : fresh) {
            if (!kafkas.contains(name)) {
                LOG.warn("Ignoring unknown configuration {}: it is neither a Kafka broker setting nor Brook's", name);
            }
        }
        if (!kafkas.isEmpty()) {
            LOG.warn("Ignoring Kafka settings that Brook does not implement: {}", String.join(", ", kafkas));
        }
    }

    /** The ignored keys ({@link #unknownKeys()}) that are Kafka broker settings Brook does not implement. */
    public Set<String> unimplementedKafkaKeys() {
        return KafkaSettingNames.kafkas(unknown);
    }

    /**
     * Whether {@code name} is one of the security settings ({@code ssl.*}, {@code sasl.*},
     * {@code listener.name.*}, the authorizer's, {@code delegation.token.*}): kept as written for
     * the security package, which checks them, and never listed by DescribeConfigs (they hold passwords).
     */
    static boolean isSecuritySetting(String name) {
        return name.startsWith("ssl.") || name.startsWith("sasl.") || name.startsWith("listener.name.")
                || name.startsWith("brook.sasl.") || name.startsWith("brook.ssl.")
                || name.equals("super.users") || name.equals("authorizer.class.name")
                || name.equals("allow.everyone.if.no.acl.found") || name.equals("connections.max.reauth.ms")
                || name.equals("connection.failed.authentication.delay.ms") || name.equals("principal.builder.class")
                || name.startsWith("delegation.token.");
    }

    private static ConfigKey bySynonym(String name) {
        for (ConfigKey k : KEYS.values()) {
            if (k.synonyms().contains(name)) {
                return k;
            }
        }
        return null;
    }

    /** The effective value (after defaults) or null when neither set nor defaulted. */
    public Object value(String name) {
        return values.get(name);
    }

    public boolean isExplicit(String name) {
        return explicit.contains(name);
    }

    public Set<String> unknownKeys() {
        return unknown;
    }

    public int intValue(String name) {
        return ((Number) values.get(name)).intValue();
    }

    public long longValue(String name) {
        return ((Number) values.get(name)).longValue();
    }

    public boolean bool(String name) {
        return (Boolean) values.get(name);
    }

    public String string(String name) {
        Object v = values.get(name);
        return v == null ? null : v.toString();
    }

    @SuppressWarnings("unchecked")
    public List<String> list(String name) {
        return (List<String>) values.get(name);
    }

    /** The first listener of {@code listeners}: the default one (embedded API, start-up line). */
    public Listener listener() {
        return listeners.bound().get(0);
    }

    /** Whether this node runs in cluster mode ({@code process.roles} set; docs/cluster.md). */
    public boolean clustered() {
        return list(PROCESS_ROLES).stream().anyMatch(r -> !r.isBlank());
    }

    /**
     * Whether raw settings describe a controller-only node of a cluster ({@code
     * process.roles=controller}): no broker, a voter of the metadata quorum only (docs/cluster.md,
     * section 6c). Such settings are not a broker's: they have no listener for clients.
     */
    public static boolean controllerOnly(Map<String, String> raw) {
        Set<String> roles = new TreeSet<>();
        for (String r : raw.getOrDefault(PROCESS_ROLES, "").split(",", -1)) {
            if (!r.isBlank()) {
                roles.add(r.trim().toLowerCase(java.util.Locale.ROOT));
            }
        }
        return roles.equals(Set.of("controller"));
    }

    private static boolean clusterModuleAvailable() {
        try {
            Class.forName("io.brook.cluster.member.ClusterMember", false, BrokerConfig.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** The first of {@code controller.listener.names} as written: the listener the voters talk on; "" when none. */
    public String controllerListener() {
        for (String n : list(CONTROLLER_LISTENER_NAMES)) {
            if (!n.isBlank()) {
                return n.trim();
            }
        }
        return "";
    }

    /** The listeners of the metadata quorum in cluster mode: not bound by the broker. */
    public List<String> controllerListenerNames() {
        List<String> names = new java.util.ArrayList<>();
        for (String n : list(CONTROLLER_LISTENER_NAMES)) {
            if (!n.isBlank()) {
                names.add(n.trim().toUpperCase(java.util.Locale.ROOT));
            }
        }
        return names;
    }

    /** Every listener with its advertised address and security protocol. */
    public Listeners listeners() {
        return listeners;
    }

    /**
     * The security settings as written ({@code ssl.*}, {@code sasl.*}, {@code listener.name.*},
     * {@code super.users}, ...), for the security package to resolve per listener and check.
     */
    public Map<String, String> securitySettings() {
        return securitySettings;
    }

    /** The HTTP admin listener ({@code brook.http.listener}), or null when it is {@code none}. */
    public Listener httpListener() {
        return httpListener(string(HTTP_LISTENER));
    }

    /**
     * The HTTP admin listener {@code spec} ({@code HOST:PORT} or {@code none}) names, or null for none.
     *
     * @throws IllegalArgumentException when it is neither
     */
    public static Listener httpListener(String spec) {
        spec = spec.trim();
        if (spec.isEmpty() || spec.equalsIgnoreCase("none")) {
            return null;
        }
        Listener l = Listener.parse(HTTP_LISTENER, "PLAINTEXT://" + spec);
        return new Listener("HTTP", l.host(), l.port());
    }

    /** The consumer-group coordinator's settings ({@code group.*}, {@code offsets.*}), checked at parse time. */
    public GroupCoordinatorConfig groupCoordinator() {
        return groupCoordinator;
    }

    /** The group coordinator's settings as written, under Kafka's names (what a group's own settings are checked against). */
    public Map<String, String> groupSettings() {
        return groupSettings;
    }

    /** The transaction coordinator's settings (Kafka's {@code transaction.*} names). */
    public TxnCoordinatorConfig txnCoordinator() {
        return txnCoordinator;
    }

    /** The first listener's advertised address, or null when it is the bound one (known only after binding for port 0). */
    public Listener advertisedListener() {
        return listeners.advertised(listener().name());
    }

    public Path dataDir() {
        return dataDir;
    }

    public int nodeId() {
        return intValue(NODE_ID);
    }

    public int numPartitions() {
        return intValue(NUM_PARTITIONS);
    }

    public short defaultReplicationFactor() {
        return ((Number) values.get(DEFAULT_REPLICATION_FACTOR)).shortValue();
    }

    /** The most partitions one DescribeTopicPartitions answer describes. */
    public int maxRequestPartitionSizeLimit() {
        return intValue(MAX_REQUEST_PARTITION_SIZE_LIMIT);
    }

    public boolean autoCreateTopics() {
        return bool(AUTO_CREATE_TOPICS_ENABLE);
    }

    public int socketRequestMaxBytes() {
        return intValue(SOCKET_REQUEST_MAX_BYTES);
    }

    /** {@code SO_SNDBUF} of client connections; -1 = the operating system's default (autotuned). */
    public int socketSendBufferBytes() {
        return intValue(SOCKET_SEND_BUFFER_BYTES);
    }

    /** {@code SO_RCVBUF} of client connections; -1 = the operating system's default (autotuned). */
    public int socketReceiveBufferBytes() {
        return intValue(SOCKET_RECEIVE_BUFFER_BYTES);
    }

    public long connectionsMaxIdleMs() {
        return longValue(CONNECTIONS_MAX_IDLE_MS);
    }

    public int maxConnections() {
        return intValue(MAX_CONNECTIONS);
    }

    public long requestMaxDecodedBytes() {
        return longValue(REQUEST_MAX_DECODED_BYTES);
    }

    public long connectionMaxInflightBytes() {
        return longValue(CONNECTION_MAX_INFLIGHT_BYTES);
    }

    public int connectionMaxInflightRequests() {
        return intValue(CONNECTION_MAX_INFLIGHT_REQUESTS);
    }

    public int maxConnectionsPerIp() {
        return intValue(MAX_CONNECTIONS_PER_IP);
    }

    /** {@code max.connections.per.ip.overrides}, host names resolved once, at parse time. */
    public Map<InetAddress, Integer> maxConnectionsPerIpOverrides() {
        return connectionsPerIpOverrides;
    }

    /** Broker-wide bound of request bytes read and not yet answered; 0 or less = unbounded. */
    public long queuedMaxRequestBytes() {
        return longValue(QUEUED_MAX_REQUEST_BYTES);
    }

    /** Broker-wide bound of answer bytes held for clients that have not read them; 0 or less = unbounded. */
    public long queuedMaxResponseBytes() {
        return longValue(QUEUED_MAX_RESPONSE_BYTES);
    }

    /** Most time from a request's first byte to its last; 0 or less = no limit. */
    public long requestReceiveTimeoutMs() {
        return longValue(REQUEST_RECEIVE_TIMEOUT_MS);
    }

    public int fetchMaxBytes() {
        return intValue(FETCH_MAX_BYTES);
    }

    public int fetchMaxWaitingPartitions() {
        return intValue(FETCH_MAX_WAITING_PARTITIONS);
    }

    public int telemetryMaxBytes() {
        return intValue(TELEMETRY_MAX_BYTES);
    }

    /** Most incremental fetch sessions (KIP-227) open at once; 0 = none (every fetch sessionless). */
    public int maxIncrementalFetchSessionCacheSlots() {
        return intValue(MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS);
    }

    /** Most partitions all incremental fetch sessions hold together. */
    public long fetchSessionMaxPartitions() {
        return longValue(FETCH_SESSION_MAX_PARTITIONS);
    }

    public int numIoThreads() {
        return intValue(NUM_IO_THREADS);
    }

    public int numNetworkThreads() {
        return intValue(NUM_NETWORK_THREADS);
    }

    public boolean fsyncOnAck() {
        return bool(FSYNC_ON_ACK);
    }

    public int messageMaxBytes() {
        return intValue(MESSAGE_MAX_BYTES);
    }

    /** Kafka's precedence: log.retention.ms, then .minutes, then .hours; -1 = unlimited. */
    public long retentionMs() {
        Object ms = values.get(LOG_RETENTION_MS);
        if (ms != null) {
            return (Long) ms;
        }
        Object minutes = values.get(LOG_RETENTION_MINUTES);
        long v;
        if (minutes != null) {
            v = ((Integer) minutes).longValue();
            return v < 0 ? -1 : v * 60_000L;
        }
        v = intValue(LOG_RETENTION_HOURS);
        return v < 0 ? -1 : v * 3_600_000L;
    }

    public long rollMs() {
        Object ms = values.get(LOG_ROLL_MS);
        return ms != null ? (Long) ms : intValue(LOG_ROLL_HOURS) * 3_600_000L;
    }

    /** The default {@code segment.jitter.ms}: {@code log.roll.jitter.ms}, else {@code log.roll.jitter.hours}. */
    public long rollJitterMs() {
        Object ms = values.get(LOG_ROLL_JITTER_MS);
        return ms != null ? (Long) ms : intValue(LOG_ROLL_JITTER_HOURS) * 3_600_000L;
    }
}
