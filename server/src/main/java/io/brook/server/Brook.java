package io.brook.server;

import io.brook.storage.file.DurableFiles;
import io.brook.coordinator.group.GroupCoordinator;
import io.brook.wire.message.AlterConfigsRequest;
import io.brook.wire.message.DeleteGroupsRequest;
import io.brook.wire.message.DescribeGroupsRequest;
import io.brook.wire.message.FindCoordinatorRequest;
import io.brook.wire.message.HeartbeatRequest;
import io.brook.wire.message.JoinGroupRequest;
import io.brook.wire.message.LeaveGroupRequest;
import io.brook.wire.message.ListGroupsRequest;
import io.brook.wire.message.OffsetCommitRequest;
import io.brook.wire.message.OffsetDeleteRequest;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.SyncGroupRequest;
import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.ListOffsetsRequest;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.CreatePartitionsRequest;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.DeleteRecordsRequest;
import io.brook.wire.message.DeleteTopicsRequest;
import io.brook.wire.message.OffsetForLeaderEpochRequest;
import io.brook.wire.message.DescribeClusterRequest;
import io.brook.wire.message.DescribeConfigsRequest;
import io.brook.wire.message.IncrementalAlterConfigsRequest;
import io.brook.wire.message.InitProducerIdRequest;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.protocol.ApiKey;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Brook broker, for embedding in tests and applications:
 *
 * <pre>{@code
 * try (Brook brook = Brook.builder().port(0).start()) {
 *     props.put("bootstrap.servers", brook.bootstrapServers());
 *     ...
 * }
 * }</pre>
 *
 * Without {@link Builder#dataDir} the broker keeps its data in a new temporary directory that
 * {@link #close()} deletes. Several brokers may run in one JVM, each with its own port and data
 * directory; two brokers on the same directory are refused (lock file).
 *
 * <p>{@link #close()} stops accepting connections, answers the requests already read, flushes
 * the logs, writes the clean-shutdown marker and releases the directory. It is idempotent.
 */
public final class Brook implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Brook.class);
    private static final long DRAIN_MILLIS = 5_000;
    /** Resolution of long-poll deadlines: fine enough for max_wait_ms, idle enough not to matter. */
    private static final long TIMER_TICK_MS = 10;

    private final BrokerConfig config;
    private final Path dataDir;
    private final boolean ownsDataDir;
    private final BrokerMeta meta;
    private final ExecutorService ioPool;
    private final NetworkServer network;
    private final BrokerContext context;
    private final InetSocketAddress bound;
    private PartitionLogs logs;
    private GroupCoordinator groups;
    private final HashedWheelTimer timer;
    private boolean closed;

    private Brook(BrokerConfig config, Path dataDir, boolean ownsDataDir)
            throws IOException, InterruptedException {
        this.config = config;
        this.dataDir = dataDir;
        this.ownsDataDir = ownsDataDir;
        this.meta = BrokerMeta.open(dataDir, config.nodeId());
        ExecutorService pool = null;
        NetworkServer net = null;
        HashedWheelTimer timer = null;
        try {
            // listen first (not yet accepting), so that clients connect while the rest starts
            pool = newIoPool(config.numIoThreads());
            net = new NetworkServer(config, pool);
            this.bound = net.bind();
            TopicRegistry registry = TopicRegistry.open(meta.metaDir());
            TopicConfigs topicConfigs = new TopicConfigs(config);
            FetchWaiters fetchWaiters = new FetchWaiters();
            this.logs = StoragePartitionLogs.open(config, dataDir, registry, topicConfigs, fetchWaiters);
            TopicManager topics = new TopicManager(config, registry, topicConfigs, logs);
            topics.openAll();
            this.groups = GroupCoordinatorSetup.start(config, topics, Clock.systemUTC());
            timer = new HashedWheelTimer(new DefaultThreadFactory("brook-timer", true), TIMER_TICK_MS,
                    TimeUnit.MILLISECONDS, 512);
            this.context = new BrokerContext(config, meta.clusterId(), topics,
                    ProducerIdAllocator.open(meta.metaDir()), pool, timer, fetchWaiters);
            context.groups(groups);
            Listener adv = config.advertisedListener();
            if (adv == null) {
                Listener l = config.listener();
                adv = l.withPort(bound.getPort());
            }
            context.advertised(adv);
            net.serve(context, apiTable());
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (net != null) {
                net.close(0);
            }
            if (pool != null) {
                pool.shutdownNow();
            }
            if (timer != null) {
                timer.stop();
            }
            if (groups != null) {
                groups.close();
            }
            if (logs != null) {
                logs.close();
            }
            meta.close();
            throw e;
        }
        this.ioPool = pool;
        this.network = net;
        this.timer = timer;
    }

    static ApiTable apiTable() {
        return ApiTable.builder()
                .register(ApiKey.API_VERSIONS, ApiVersionsRequest::read, new ApiVersionsHandler())
                .register(ApiKey.PRODUCE, ApiKey.PRODUCE.advertisedMin(), ApiKey.PRODUCE.advertisedMax(),
                        ApiKey.PRODUCE.oldestVersion(), ProduceRequest::read, new ProduceHandler())
                .register(ApiKey.FETCH, FetchRequest::read, new FetchHandler())
                .register(ApiKey.LIST_OFFSETS, ListOffsetsRequest::read, new ListOffsetsHandler())
                .register(ApiKey.METADATA, MetadataRequest::read, new MetadataHandler())
                .register(ApiKey.INIT_PRODUCER_ID, InitProducerIdRequest::read, new InitProducerIdHandler())
                .register(ApiKey.CREATE_TOPICS, CreateTopicsRequest::read, new CreateTopicsHandler())
                .register(ApiKey.DELETE_TOPICS, DeleteTopicsRequest::read, new DeleteTopicsHandler())
                .register(ApiKey.CREATE_PARTITIONS, CreatePartitionsRequest::read, new CreatePartitionsHandler())
                .register(ApiKey.DESCRIBE_CONFIGS, DescribeConfigsRequest::read, new DescribeConfigsHandler())
                .register(ApiKey.INCREMENTAL_ALTER_CONFIGS, IncrementalAlterConfigsRequest::read,
                        new AlterConfigsHandlers.Incremental())
                .register(ApiKey.ALTER_CONFIGS, AlterConfigsRequest::read, new AlterConfigsHandlers.Legacy())
                .register(ApiKey.DELETE_RECORDS, DeleteRecordsRequest::read, new DeleteRecordsHandler())
                .register(ApiKey.OFFSET_FOR_LEADER_EPOCH, OffsetForLeaderEpochRequest::read,
                        new OffsetForLeaderEpochHandler())
                .register(ApiKey.DESCRIBE_CLUSTER, DescribeClusterRequest::read, new DescribeClusterHandler())
                .register(ApiKey.FIND_COORDINATOR, FindCoordinatorRequest::read, new FindCoordinatorHandler())
                .register(ApiKey.JOIN_GROUP, JoinGroupRequest::read, new GroupHandlers.Join())
                .register(ApiKey.SYNC_GROUP, SyncGroupRequest::read, new GroupHandlers.Sync())
                .register(ApiKey.HEARTBEAT, HeartbeatRequest::read, new GroupHandlers.Heartbeat())
                .register(ApiKey.LEAVE_GROUP, LeaveGroupRequest::read, new GroupHandlers.Leave())
                .register(ApiKey.OFFSET_COMMIT, OffsetCommitRequest::read, new GroupHandlers.Commit())
                .register(ApiKey.OFFSET_FETCH, OffsetFetchRequest::read, new GroupHandlers.Fetch())
                .register(ApiKey.DESCRIBE_GROUPS, DescribeGroupsRequest::read, new GroupHandlers.Describe())
                .register(ApiKey.LIST_GROUPS, ListGroupsRequest::read, new GroupHandlers.ListAll())
                .register(ApiKey.DELETE_GROUPS, DeleteGroupsRequest::read, new GroupHandlers.Delete())
                .register(ApiKey.OFFSET_DELETE, OffsetDeleteRequest::read, new GroupHandlers.DeleteOffsets())
                .build();
    }

    private static ExecutorService newIoPool(int threads) {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "brook-io-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** {@code host:port} for a client's {@code bootstrap.servers}. */
    public String bootstrapServers() {
        Listener adv = context.advertised();
        String host = adv.host().indexOf(':') >= 0 ? "[" + adv.host() + "]" : adv.host();
        return host + ":" + adv.port();
    }

    /** The port the broker listens on (the real one when 0 was asked for). */
    public int port() {
        return bound.getPort();
    }

    public Path dataDir() {
        return dataDir;
    }

    /** The cluster id stored in the data directory. */
    public String clusterId() {
        return context.clusterId();
    }

    BrokerContext context() {
        return context;
    }

    String transport() {
        return network.transport();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // stop reading, answer waiting fetches now instead of at their deadline, answer parked group
        // requests (JoinGroup can wait minutes) with NOT_COORDINATOR, then drain; offset commits
        // already being written still complete, the coordinator finishes them on the flusher's thread
        network.close(DRAIN_MILLIS, () -> {
            context.fetchWaiters().wakeAll();
            groups.close();
        });
        timer.stop();
        ioPool.shutdown();
        try {
            if (!ioPool.awaitTermination(DRAIN_MILLIS, TimeUnit.MILLISECONDS)) {
                ioPool.shutdownNow();
            }
        } catch (InterruptedException e) {
            ioPool.shutdownNow();
            Thread.currentThread().interrupt();
        }
        groups.close(); // (already closed above, unless that failed) before the logs it writes to
        try {
            logs.close();
        } catch (IOException | RuntimeException e) {
            LOG.error("Could not close the logs cleanly; the next start recovers them", e);
        }
        try {
            meta.close();
        } catch (IOException e) {
            LOG.warn("Could not release the lock on {}", dataDir, e);
        }
        if (ownsDataDir) {
            deleteRecursively(dataDir);
        }
        LOG.info("Brook stopped ({})", bootstrapServers());
    }

    private static void deleteRecursively(Path dir) {
        try {
            DurableFiles.deleteRecursively(dir);
        } catch (IOException e) {
            LOG.warn("Could not delete temporary data directory {}", dir, e);
        }
    }

    /** Settings for a broker; everything not set keeps Brook's (Kafka's) default. */
    public static final class Builder {
        private final Map<String, String> props = new LinkedHashMap<>();
        private Integer port;
        private Path dataDir;

        private Builder() {
        }

        /**
         * Listen on 127.0.0.1 at this port; 0 (the default unless {@code listeners} is configured)
         * picks a free one.
         */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be between 0 and 65535: " + port);
            }
            this.port = port;
            return this;
        }

        /** Where the data lives; without it a temporary directory is used and deleted on close. */
        public Builder dataDir(Path dir) {
            this.dataDir = dir;
            return this;
        }

        /** A broker setting by its Kafka name, e.g. {@code config("num.partitions", "3")}. */
        public Builder config(String key, String value) {
            props.put(key, value);
            return this;
        }

        public Builder config(Map<String, String> settings) {
            props.putAll(settings);
            return this;
        }

        public Builder config(Properties settings) {
            for (String name : settings.stringPropertyNames()) {
                props.put(name, settings.getProperty(name));
            }
            return this;
        }

        /**
         * Starts the broker; returns once it accepts connections.
         *
         * @throws IllegalArgumentException for an invalid setting
         * @throws IllegalStateException when the port or the data directory is in use
         * @throws UncheckedIOException when the data directory cannot be used
         */
        public Brook start() {
            Map<String, String> p = new LinkedHashMap<>(props);
            if (port != null || !p.containsKey(BrokerConfig.LISTENERS)) {
                int use = port != null ? port : 0;
                String host = "127.0.0.1";
                if (p.containsKey(BrokerConfig.LISTENERS)) {
                    host = BrokerConfig.parse(Map.of(BrokerConfig.LISTENERS, p.get(BrokerConfig.LISTENERS)))
                            .listener().host();
                }
                p.put(BrokerConfig.LISTENERS, new Listener("PLAINTEXT", host, use).toString());
            }
            boolean temp = false;
            Path dir = dataDir;
            try {
                if (dir == null) {
                    dir = Files.createTempDirectory("brook-");
                    temp = true;
                }
                p.put(BrokerConfig.LOG_DIRS, dir.toString());
                p.remove(BrokerConfig.LOG_DIR);
                BrokerConfig config = BrokerConfig.parse(p);
                Files.createDirectories(dir);
                long t0 = System.nanoTime();
                Brook b = new Brook(config, dir, temp);
                LOG.info("Brook started in {} ms: listening on {} ({}), advertised as {}, data in {}",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), b.bound, b.transport(),
                        b.bootstrapServers(), dir.toAbsolutePath());
                return b;
            } catch (IOException e) {
                if (temp) {
                    deleteRecursively(dir);
                }
                throw new UncheckedIOException("Cannot start Brook with data directory " + dir + ": " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while starting", e);
            } catch (RuntimeException e) {
                if (temp) {
                    deleteRecursively(dir);
                }
                throw e;
            }
        }
    }
}
