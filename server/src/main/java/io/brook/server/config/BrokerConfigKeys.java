package io.brook.server.config;

import static io.brook.server.config.BrokerConfig.*;

import io.brook.storage.LogConfig;
import io.brook.storage.config.ConfigKey;
import io.brook.storage.config.ConfigKey.Check;
import io.brook.storage.config.ConfigKey.Type;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The definition of every broker key Brook understands: type, default, check and a line of
 * documentation, in the order DescribeConfigs lists them. {@link BrokerConfig} parses against
 * these.
 */
final class BrokerConfigKeys {

    private BrokerConfigKeys() {
    }

    static Map<String, ConfigKey> all() {
        List<ConfigKey> keys = List.of(
                key(LISTENERS, Type.LIST, "PLAINTEXT://127.0.0.1:9092", Check.NONE,
                        "The listeners the broker binds: NAME://host:port,...; port 0 picks a free port."),
                key(ADVERTISED_LISTENERS, Type.LIST, null, Check.NONE,
                        "The address clients are told to connect to, per listener; defaults to the bound one."),
                key(LISTENER_SECURITY_PROTOCOL_MAP, Type.STRING, Listeners.DEFAULT_PROTOCOL_MAP, Check.NONE,
                        "Each listener name's security protocol: NAME:PROTOCOL,..."),
                new ConfigKey(NODE_ID, Type.INT, "1", Check.atLeast(0), List.of(BROKER_ID),
                        "This broker's id (broker.id is accepted as a synonym)."),
                key(PROCESS_ROLES, Type.LIST, "", Check.NONE,
                        "Empty: a single node. broker,controller: a voter of a cluster; broker: a node that follows the"
                        + " metadata log (docs/cluster.md)."),
                key(CONTROLLER_QUORUM_VOTERS, Type.LIST, "", Check.NONE,
                        "Cluster mode: id@host:port of every voter's controller listener."),
                key(CONTROLLER_QUORUM_BOOTSTRAP_SERVERS, Type.LIST, "", Check.NONE,
                        "Cluster mode: host:port of voters to find the quorum from (a node that joins as a listener)."),
                key(CONTROLLER_LISTENER_NAMES, Type.LIST, "", Check.NONE,
                        "Cluster mode: the listener of the metadata quorum (Ratis), never bound for clients."),
                key(CLUSTER_ID, Type.STRING, null, Check.NONE,
                        "Cluster mode: the id every node of the cluster shares (no format step)."),
                key(BROKER_RACK, Type.STRING, null, Check.NONE,
                        "Cluster mode: this broker's rack, for replica placement."),
                key(BROKER_HEARTBEAT_INTERVAL_MS, Type.INT, "2000", Check.atLeast(1),
                        "Cluster mode: how often the broker heartbeats to the controller."),
                key(BROKER_SESSION_TIMEOUT_MS, Type.INT, "9000", Check.atLeast(1),
                        "Cluster mode: a broker not heard for this long is fenced."),
                key(INTER_BROKER_LISTENER_NAME, Type.STRING, null, Check.NONE,
                        "Cluster mode: the listener other brokers connect to (transaction markers, verification); when unset, the"
                        + " listener named after security.inter.broker.protocol."),
                key(SECURITY_INTER_BROKER_PROTOCOL, Type.STRING, "PLAINTEXT",
                        Check.oneOf("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"),
                        "Cluster mode: Kafka's other way to name the inter-broker listener: the listener of that name, when"
                        + " inter.broker.listener.name is unset (setting both is refused)."),
                key(CONTROLLER_QUORUM_ELECTION_TIMEOUT_MS, Type.INT, "1000", Check.atLeast(1),
                        "Cluster mode: a voter that hears no leader for 1 to 2 times this long starts an election."),
                key(LOG_DIRS, Type.LIST, null, Check.NONE,
                        "The data directory (Brook uses exactly one); overrides log.dir."),
                key(LOG_DIR, Type.LIST, "./data", Check.NONE, "The data directory if log.dirs is not set."),
                key(NUM_PARTITIONS, Type.INT, "1", Check.atLeast(1), "Partitions of an auto-created topic."),
                key(DEFAULT_REPLICATION_FACTOR, Type.INT, "1",
                        v -> ((Number) v).intValue() == 1 ? null : "must be 1 (Brook is a single node)",
                        "Replication factor of an auto-created topic."),
                key(AUTO_CREATE_TOPICS_ENABLE, Type.BOOLEAN, "true", Check.NONE,
                        "Create a topic when a client asks Metadata for it and allows auto-creation."),
                key(MAX_REQUEST_PARTITION_SIZE_LIMIT, Type.INT, "2000", Check.atLeast(1),
                        "Most partitions one DescribeTopicPartitions answer describes (the client may ask for fewer)."),
                key(SOCKET_REQUEST_MAX_BYTES, Type.INT, "104857600", Check.atLeast(1),
                        "Largest request frame accepted; a larger size prefix closes the connection."),
                key(SOCKET_SEND_BUFFER_BYTES, Type.INT, "102400", Check.atLeast(-1),
                        "SO_SNDBUF of client connections; -1 = the operating system's default."),
                key(SOCKET_RECEIVE_BUFFER_BYTES, Type.INT, "-1", Check.atLeast(-1),
                        "SO_RCVBUF of client connections; -1 = the operating system's default (autotuned)."),
                key(SOCKET_LISTEN_BACKLOG_SIZE, Type.INT, "1024", Check.atLeast(1),
                        "Connections the kernel holds for each listener until the broker accepts them (capped by"
                        + " net.core.somaxconn)."),
                key(CONNECTIONS_MAX_IDLE_MS, Type.LONG, "600000", Check.atLeast(-1),
                        "Close connections idle for this long; -1 never."),
                key(MAX_CONNECTIONS, Type.INT, Integer.toString(DEFAULT_MAX_CONNECTIONS), Check.atLeast(0),
                        "Most connections open at once; further ones are closed on accept."),
                key(CONNECTION_MAX_INFLIGHT_BYTES, Type.LONG, "104857600", Check.atLeast(1),
                        "Per connection: once requests of this many bytes are unanswered the broker stops"
                                + " reading from that connection until responses are sent."),
                key(CONNECTION_MAX_INFLIGHT_REQUESTS, Type.INT, "16", Check.atLeast(1),
                        "Per connection: once this many requests are unanswered the broker stops reading"
                                + " from that connection until answers are sent (pipelining, bounded)."),
                key(MAX_CONNECTIONS_PER_IP, Type.INT, Integer.toString(Integer.MAX_VALUE), Check.atLeast(0),
                        "Most connections open at once from one IP address; further ones are closed on accept."
                                + " 0 only with overrides."),
                key(MAX_CONNECTIONS_PER_IP_OVERRIDES, Type.STRING, "", Check.NONE,
                        "Per-address exceptions to max.connections.per.ip, e.g. hostName:100,127.0.0.1:200."),
                key(QUEUED_MAX_REQUEST_BYTES, Type.LONG, Long.toString(DEFAULT_QUEUED_MAX_REQUEST_BYTES), Check.NONE,
                        "Broker-wide: most bytes of requests read and not yet answered; beyond it connections"
                                + " stop being read until requests complete. -1 = unbounded."),
                key(REQUEST_MAX_DECODED_BYTES, Type.LONG, "67108864", Check.atLeast(65536),
                        "Most heap one request's decoded form may take, as estimated while it is read; a request"
                                + " beyond it closes its connection. The estimate counts in queued.max.request.bytes."),
                key(QUEUED_MAX_RESPONSE_BYTES, Type.LONG, "134217728", Check.NONE,
                        "Broker-wide: most bytes of answers held in memory for clients that have not read them;"
                                + " beyond it a connection with unread answers is not read. -1 = unbounded."),
                key(REQUEST_RECEIVE_TIMEOUT_MS, Type.LONG, "30000", Check.atLeast(-1),
                        "Once a request's first byte arrived, its last must arrive within this, else the"
                                + " connection is closed; -1 never."),
                key(FETCH_MAX_BYTES, Type.INT, "57671680", Check.atLeast(1024),
                        "Most bytes of records one fetch answer returns, whatever the request asks for."),
                key(FETCH_MAX_WAITING_PARTITIONS, Type.INT, "100000", Check.atLeast(0),
                        "Broker-wide: most long-poll fetches waiting at once, each counted once per partition;"
                                + " beyond it a fetch is answered at once with what there is."),
                key(MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS, Type.INT, "1000", Check.atLeast(0),
                        "Most incremental fetch sessions (KIP-227) kept at once; 0 = none."),
                key(FETCH_SESSION_MAX_PARTITIONS, Type.LONG, "500000", Check.atLeast(0),
                        "Broker-wide: most partitions all fetch sessions hold together; a session that would"
                                + " pass it is not opened, or is closed (its client goes back to full fetches)."),
                key(NUM_IO_THREADS, Type.INT, "8", Check.between(1, 1024), "Threads that execute requests."),
                key(NUM_NETWORK_THREADS, Type.INT, "3", Check.between(1, 1024),
                        "Event-loop threads that read and write sockets."),
                key(HTTP_LISTENER, Type.STRING, HTTP_LISTENER_DEFAULT, Check.NONE,
                        "HOST:PORT of the HTTP admin listener (/metrics in Prometheus text, /health, /ready);"
                                + " port 0 picks a free one, none disables it."),
                key(TELEMETRY_MAX_BYTES, Type.INT, "1048576", Check.atLeast(1),
                        "Largest client metrics payload (KIP-714 PushTelemetry, after compression) accepted."),
                key(NETWORK_EPOLL, Type.BOOLEAN, "true", Check.NONE,
                        "Use Linux's native epoll transport when available; false = Java NIO."),
                key(NETWORK_INLINE_REQUESTS, Type.BOOLEAN, "true", Check.NONE,
                        "Run requests that never block (Produce, Fetch) on the event loop"
                                + " instead of handing them to the I/O threads; false = always hand off."),
                key(FAIR_SHARE_ENABLE, Type.BOOLEAN, "true", Check.NONE,
                        "While the broker is saturated, hold each client id that pipelines requests to an equal"
                                + " share of answered requests, throttling the busiest; false = serve requests as they come."),
                key(FSYNC_ON_ACK, Type.BOOLEAN, "true", Check.NONE,
                        "Answer acks=all only after fsync and expose only fsynced data to consumers;"
                                + " false = Kafka's page-cache behaviour."),
                key(MESSAGE_MAX_BYTES, Type.INT, "1048588", Check.atLeast(0), "Largest record batch accepted."),
                topicDefault(MAX_DECOMPRESSED_MESSAGE_BYTES, LogConfig.MAX_DECOMPRESSED_MESSAGE_BYTES,
                        "Largest size one record of a compressed batch may have once decompressed."),
                key(LOG_SEGMENT_BYTES, Type.INT, "1073741824", Check.atLeast(LogConfig.MIN_REQUESTED_SEGMENT_BYTES),
                        "Segment file size."),
                key(LOG_ROLL_MS, Type.LONG, null, Check.atLeast(1), "Segment age before rolling."),
                key(OFFSETS_TOPIC_SEGMENT_BYTES, Type.INT, "104857600", Check.atLeast(LogConfig.MIN_REQUESTED_SEGMENT_BYTES),
                        "Segment size of __consumer_offsets, given to the topic when it is created (small segments keep"
                        + " its compaction and its load at start-up short)."),
                key(OFFSETS_TOPIC_COMPRESSION_CODEC, Type.INT, "0", Check.between(0, 4),
                        "The codec of the group coordinator's batches in __consumer_offsets: 0 none, 1 gzip, 2 snappy,"
                        + " 3 lz4, 4 zstd."),
                key(GROUP_COORDINATOR_REBALANCE_PROTOCOLS, Type.LIST, "classic,consumer,streams", BrokerConfigKeys::protocols,
                        "The group protocols served: classic (always), consumer (KIP-848); share and streams are accepted"
                        + " and do nothing (Brook serves neither kind of group)."),
                key(LOG_ROLL_HOURS, Type.INT, "168", Check.atLeast(1), "Segment age before rolling, hours."),
                key(LOG_RETENTION_MS, Type.LONG, null, Check.atLeast(-1), "Retention time; -1 unlimited."),
                key(LOG_RETENTION_MINUTES, Type.INT, null, Check.atLeast(-1), "Retention time, minutes."),
                key(LOG_RETENTION_HOURS, Type.INT, "168", Check.atLeast(-1), "Retention time, hours."),
                key(LOG_RETENTION_BYTES, Type.LONG, "-1", Check.atLeast(-1), "Retention size per partition."),
                topicDefault(LOG_LOCAL_RETENTION_MS, LogConfig.LOCAL_RETENTION_MS,
                        "Tiered storage's local retention time (stored only: Brook has no tiered storage)."),
                topicDefault(LOG_LOCAL_RETENTION_BYTES, LogConfig.LOCAL_RETENTION_BYTES,
                        "Tiered storage's local retention size (stored only: Brook has no tiered storage)."),
                topicDefault(LOG_REMOTE_COPY_LAG_MS, LogConfig.REMOTE_COPY_LAG_MS,
                        "Tiered storage's upload lag in time (stored only: Brook has no tiered storage)."),
                topicDefault(LOG_REMOTE_COPY_LAG_BYTES, LogConfig.REMOTE_COPY_LAG_BYTES,
                        "Tiered storage's upload lag in bytes (stored only: Brook has no tiered storage)."),
                key(LOG_CLEANUP_POLICY, Type.LIST, "delete", v -> {
                    for (Object p : (List<?>) v) {
                        if (!p.equals("delete") && !p.equals("compact")) {
                            return "must be a list of delete and/or compact";
                        }
                    }
                    return null;
                }, "delete and/or compact."),
                key(COMPRESSION_TYPE, Type.STRING, "producer",
                        Check.oneOf("producer", "uncompressed", "gzip", "snappy", "lz4", "zstd"),
                        "Compression of stored batches; producer keeps what the client sent."),
                topicDefault(COMPRESSION_GZIP_LEVEL, LogConfig.COMPRESSION_GZIP_LEVEL,
                        "gzip level for re-compressed batches (stored only: Brook never re-compresses)."),
                topicDefault(COMPRESSION_LZ4_LEVEL, LogConfig.COMPRESSION_LZ4_LEVEL,
                        "lz4 level for re-compressed batches (stored only: Brook never re-compresses)."),
                topicDefault(COMPRESSION_ZSTD_LEVEL, LogConfig.COMPRESSION_ZSTD_LEVEL,
                        "zstd level for re-compressed batches (stored only: Brook never re-compresses)."),
                key(LOG_MESSAGE_TIMESTAMP_TYPE, Type.STRING, "CreateTime", Check.oneOf("CreateTime", "LogAppendTime"),
                        "Timestamp type of stored records."),
                key(LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS, Type.LONG, Long.toString(Long.MAX_VALUE), Check.atLeast(0),
                        "How far in the past a CreateTime record's timestamp may be."),
                key(LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS, Type.LONG, LogConfig.DEFAULT_TIMESTAMP_AFTER_MAX_MS, Check.atLeast(0),
                        "How far in the future a CreateTime record's timestamp may be."),
                key(MIN_INSYNC_REPLICAS, Type.INT, "1", Check.atLeast(1), "Minimum in-sync replicas (single node: 1)."),
                key(LOG_CLEANER_DELETE_RETENTION_MS, Type.LONG, "86400000", Check.atLeast(0),
                        "How long tombstones stay in a compacted topic."),
                key(LOG_CLEANER_MIN_COMPACTION_LAG_MS, Type.LONG, "0", Check.atLeast(0),
                        "Minimum age of a record before compaction may remove it."),
                key(LOG_CLEANER_MAX_COMPACTION_LAG_MS, Type.LONG, Long.toString(Long.MAX_VALUE), Check.atLeast(1),
                        "Longest a record may stay uncompacted in a compacted topic."),
                key(LOG_CLEANER_MIN_CLEANABLE_RATIO, Type.DOUBLE, "0.5", Check.betweenDouble(0, 1),
                        "Share of a compacted log not yet cleaned above which it is cleaned."),
                key(LOG_ROLL_JITTER_MS, Type.LONG, null, Check.atLeast(0),
                        "Most random time taken off the segment age before rolling."),
                key(LOG_ROLL_JITTER_HOURS, Type.INT, "0", Check.atLeast(0),
                        "Most random time taken off the segment age before rolling, hours."),
                key(LOG_PREALLOCATE, Type.BOOLEAN, "false", Check.NONE,
                        "Kafka's file preallocation of new segments; Brook preallocates by brook.log.preallocate.bytes."),
                key(UNCLEAN_LEADER_ELECTION_ENABLE, Type.BOOLEAN, "false", Check.NONE,
                        "Accepted for compatibility; partitions have no replicas to elect from."),
                key(LOG_INDEX_INTERVAL_BYTES, Type.INT, "4096", Check.atLeast(0), "Bytes between offset index entries."),
                key(LOG_INDEX_SIZE_MAX_BYTES, Type.INT, "10485760", Check.atLeast(12), "Offset index size per segment."),
                key(LOG_FLUSH_INTERVAL_MESSAGES, Type.LONG, Long.toString(Long.MAX_VALUE), Check.atLeast(1),
                        "With fsync-on-ack off: fsync after this many messages."),
                key(LOG_FLUSH_INTERVAL_MS, Type.LONG, null, Check.atLeast(0),
                        "With fsync-on-ack off: fsync data older than this."),
                key(LOG_SEGMENT_DELETE_DELAY_MS, Type.LONG, "60000", Check.atLeast(0),
                        "Delay before a removed segment's files are deleted (readers may still use them)."),
                key(LEADER_REPLICATION_THROTTLED_RATE, Type.LONG, Long.toString(Long.MAX_VALUE), Check.atLeast(0),
                        "Bytes/s a leader sends to followers of the replicas in leader.replication.throttled.replicas."),
                key(FOLLOWER_REPLICATION_THROTTLED_RATE, Type.LONG, Long.toString(Long.MAX_VALUE), Check.atLeast(0),
                        "Bytes/s a follower fetches for the replicas in follower.replication.throttled.replicas."),
                key(REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND, Type.LONG, Long.toString(Long.MAX_VALUE),
                        Check.atLeast(0), "Bytes/s of moves between log directories (Brook has one directory)."),
                key(NUM_RECOVERY_THREADS, Type.INT, "2", Check.between(1, 256),
                        "Threads that open and recover logs at start-up."),
                key(LOG_FLUSH_THREADS, Type.INT, "8", Check.between(1, 256),
                        "Threads that fsync partitions in parallel (group commit); more help many busy partitions."),
                key(LOG_FLUSH_COALESCE_MS, Type.LONG, "2", Check.between(0, 1000),
                        "With fsync on ack: how long after a partition's last fsync the next one may wait when nobody"
                                + " waits for it (acks=0/1 data consumers wait for), so one fsync covers the appends"
                                + " meanwhile; acks=all never waits for it; 0 = fsync at once."),
                key(LOG_FLUSH_COALESCE_UNREAD_MS, Type.LONG, "20", Check.between(0, 1000),
                        "With fsync on ack: the same wait while no consumer reads at the partition's end (nobody"
                                + " to see the data sooner); a read there cuts it back to brook.log.flush.coalesce.ms;"
                                + " values below that one mean that one."),
                key(LOG_PREALLOCATE_BYTES, Type.INT, "4194304",
                        v -> ((Number) v).intValue() == 0 || ((Number) v).intValue() >= 65536 ? null
                                : "must be 0 (off) or at least 65536",
                        "With fsync on ack: most zeros written ahead of an active segment's data so that fsyncs"
                                + " commit no file metadata; 0 = off, else at least 65536."),
                key(LOG_RETENTION_CHECK_INTERVAL_MS, Type.LONG, "300000", Check.atLeast(1),
                        "How often retention runs."),
                key(LOG_FLUSH_SCHEDULER_INTERVAL_MS, Type.LONG, "1000", Check.atLeast(1),
                        "How often flush.ms is checked (fsync-on-ack off)."),
                key(LOG_FLUSH_CHECKPOINT_INTERVAL_MS, Type.INT, "60000", Check.atLeast(1),
                        "How often recovery points are checkpointed."),
                key(LOG_CLEANER_ENABLE, Type.BOOLEAN, "true", Check.NONE, "Run compaction for compacted topics."),
                key(LOG_CLEANER_BACKOFF_MS, Type.LONG, "15000", Check.atLeast(1),
                        "Pause of the compactor when it has nothing to do."),
                key(LOG_CLEANER_DEDUPE_BUFFER_SIZE, Type.LONG, "134217728", Check.atLeast(1024 * 1024),
                        "Memory of the compactor's key map (key digests and offsets); bounds the keys one pass can clean."),
                key(PRODUCER_ID_EXPIRATION_MS, Type.INT, "86400000", Check.atLeast(1),
                        "How long an idle idempotent producer's state (its duplicate window) is kept."),
                key(PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS, Type.INT, "600000", Check.atLeast(1),
                        "How often idle idempotent producers are looked for and forgotten."),
                key(MAX_PRODUCER_IDS_PER_PARTITION, Type.INT, "100000", Check.atLeast(1),
                        "Most idempotent producers whose state one partition holds; beyond, new producers are"
                                + " refused (retriable) until idle ones expire."),
                key(DELETE_TOPIC_ENABLE, Type.BOOLEAN, "true", Check.NONE, "Allow DeleteTopics."),
                key(OFFSETS_TOPIC_NUM_PARTITIONS, Type.INT, "50", Check.atLeast(1),
                        "Partitions of the committed-offsets topic."),
                key(OFFSETS_TOPIC_REPLICATION_FACTOR, Type.SHORT, "1", Check.atLeast(1),
                        "Accepted for compatibility; a single node keeps one replica."),
                key(TXN_STATE_LOG_REPLICATION_FACTOR, Type.SHORT, "1", Check.atLeast(1),
                        "Accepted for compatibility; a single node keeps one replica."),
                key(TXN_STATE_LOG_MIN_ISR, Type.INT, "1", Check.atLeast(1),
                        "Accepted for compatibility."),
                key(QUOTA_WINDOW_NUM, Type.INT, "11", Check.atLeast(1),
                        "Samples kept of each client quota's rate."),
                key(QUOTA_WINDOW_SIZE_SECONDS, Type.INT, "1", Check.atLeast(1),
                        "Time span of each sample of a client quota's rate."),
                key(MAX_CONNECTION_CREATION_RATE, Type.INT, Integer.toString(Integer.MAX_VALUE), Check.atLeast(0),
                        "New connections per second accepted over all listeners; beyond it the listener stops"
                                + " accepting for the throttle time (listener.name.<l>.max.connection.creation.rate"
                                + " bounds one listener)."),
                key(ConfigProviders.CONFIG_PROVIDERS, Type.LIST, "", Check.NONE,
                        "Names of the config providers whose ${name:[path:]key} variables the settings"
                                + " may hold, resolved at start-up (config.providers.<name>.class: Kafka's File,"
                                + " Directory or EnvVar ConfigProvider)."));
        Map<String, ConfigKey> m = new LinkedHashMap<>();
        for (ConfigKey k : keys) {
            m.put(k.name(), k);
        }
        return Collections.unmodifiableMap(m);
    }

    /** Kafka's check of {@code group.coordinator.rebalance.protocols}: its four names, classic among them. */
    private static String protocols(Object value) {
        List<?> names = (List<?>) value;
        for (Object n : names) {
            if (!List.of("classic", "consumer", "share", "streams").contains(n)) {
                return n + " is not one of consumer, classic, share, streams";
            }
        }
        return names.contains("classic") ? null : "must include classic: turning the classic protocol off is not supported";
    }

    private static ConfigKey key(String name, Type type, String def, Check check, String doc) {
        return new ConfigKey(name, type, def, check, List.of(), doc);
    }

    /** A broker key that is the default of a topic config: the topic config's type, default and range. */
    private static ConfigKey topicDefault(String name, String topicConfig, String doc) {
        ConfigKey topic = LogConfig.key(topicConfig);
        return new ConfigKey(name, topic.type(), topic.defaultValue(), topic.check(), List.of(), doc);
    }
}
