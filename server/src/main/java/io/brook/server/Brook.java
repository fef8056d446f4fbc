package io.brook.server;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.server.api.BrokerApis;
import io.brook.server.api.fetch.FetchSessionCache;
import io.brook.server.api.fetch.FetchWaiters;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.Listener;
import io.brook.server.network.ApiTable;
import io.brook.server.network.IoPool;
import io.brook.server.network.NetworkServer;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.BrokerMeta;
import io.brook.server.node.GroupCoordinatorSetup;
import io.brook.server.node.TxnCoordinatorSetup;
import io.brook.server.node.ProducerIdAllocator;
import io.brook.server.node.RandomIds;
import io.brook.server.time.ClockTimer;
import io.brook.server.time.Timer;
import io.brook.server.time.WheelTimer;
import io.brook.server.topic.PartitionLogs;
import io.brook.server.topic.TopicConfigResolver;
import io.brook.server.topic.TopicRegistry;
import io.brook.server.topic.Topics;
import io.brook.storage.file.DurableFiles;
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
import java.util.concurrent.TimeUnit;
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

    private final Path dataDir;
    private final boolean ownsDataDir;
    private final BrokerMeta meta;
    private final ExecutorService ioPool;
    private final NetworkServer network;
    private final BrokerContext context;
    private final InetSocketAddress bound;
    private final FetchWaiters fetchWaiters;
    private final FetchSessionCache fetchSessions;
    private final Timer timer;
    private final ApiTable apis;
    private PartitionLogs logs;
    private GroupCoordinator groups;
    private TransactionCoordinator transactions;
    private boolean closed;

    /**
     * Starts in this order: the data directory's lock and identity; the listener, bound but not
     * yet accepting (so that clients connect while the rest starts); the topic registry and the
     * partition logs (recovered); the group coordinator (replays its offsets topic) and the
     * transaction coordinator (replays __transaction_state, completes prepared transactions); then the
     * listener accepts.
     */
    private Brook(BrokerConfig config, Path dataDir, boolean ownsDataDir, Clock clock)
            throws IOException, InterruptedException {
        this.dataDir = dataDir;
        this.ownsDataDir = ownsDataDir;
        this.meta = BrokerMeta.open(dataDir, config.nodeId());
        this.fetchWaiters = new FetchWaiters(config.fetchMaxWaitingPartitions());
        this.fetchSessions = new FetchSessionCache(config.maxIncrementalFetchSessionCacheSlots(),
                config.fetchSessionMaxPartitions());
        ExecutorService pool = null;
        NetworkServer net = null;
        this.timer = clock == null ? new WheelTimer() : ClockTimer.following(clock);
        try {
            pool = IoPool.create(config.numIoThreads());
            net = new NetworkServer(config, pool, timer);
            this.bound = net.bind();
            TopicRegistry registry = TopicRegistry.open(meta.metaDir(), RandomIds::uuid);
            TopicConfigResolver topicConfigs = new TopicConfigResolver(config);
            this.logs = PartitionLogs.open(config, dataDir, registry, topicConfigs, fetchWaiters::wake);
            Topics topics = new Topics(registry, topicConfigs, logs);
            topics.openAll();
            Clock coordinatorClock = clock == null ? Clock.systemUTC() : clock;
            this.groups = GroupCoordinatorSetup.start(config, topics, coordinatorClock);
            ProducerIdAllocator producerIds = ProducerIdAllocator.open(meta.metaDir());
            this.transactions = TxnCoordinatorSetup.start(config, topics, groups, producerIds, coordinatorClock);
            Listener adv = config.advertisedListener();
            if (adv == null) {
                adv = config.listener().withPort(bound.getPort());
            }
            this.context = new BrokerContext(config, meta.clusterId(), adv, topics,
                    producerIds, groups, transactions, timer);
            this.apis = BrokerApis.table(context, fetchWaiters, fetchSessions);
            net.serve(apis);
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (net != null) {
                net.close(0, () -> { });
            }
            if (pool != null) {
                pool.shutdownNow();
            }
            timer.close();
            if (transactions != null) {
                transactions.close();
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

    /** What the handlers share (tests, and bin/brook's start-up line). */
    BrokerContext context() {
        return context;
    }

    Topics topics() {
        return context.topics();
    }

    FetchWaiters fetchWaiters() {
        return fetchWaiters;
    }

    /** The incremental fetch sessions (memory only: a new broker object starts with none). */
    FetchSessionCache fetchSessions() {
        return fetchSessions;
    }

    /** The timer of delayed operations: a {@link ClockTimer} when the builder was given a clock. */
    Timer timer() {
        return timer;
    }

    /** The handler table: what this broker serves and advertises. */
    ApiTable apis() {
        return apis;
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
            fetchWaiters.wakeAll();
            transactions.close();
            groups.close();
        });
        timer.close();
        ioPool.shutdown();
        try {
            if (!ioPool.awaitTermination(DRAIN_MILLIS, TimeUnit.MILLISECONDS)) {
                ioPool.shutdownNow();
            }
        } catch (InterruptedException e) {
            ioPool.shutdownNow();
            Thread.currentThread().interrupt();
        }
        transactions.close(); // (already closed above, unless that failed) before the logs they write to
        groups.close();
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
        private Clock clock;

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

        /**
         * The clock the broker's deadlines run on instead of the system's: long-poll fetch waits
         * ({@code max_wait_ms}), acks=all time-outs, idle connections
         * ({@code connections.max.idle.ms}) and the group coordinator's sessions, rebalances and
         * offset expiry. For tests that move time by hand: a deadline passes within a
         * millisecond of the clock reaching it (the group coordinator looks at its clock at least
         * every 100 ms). The storage's background work (retention, flushes) keeps the system clock.
         */
        public Builder clock(Clock clock) {
            this.clock = clock;
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
                Brook b = new Brook(config, dir, temp, clock);
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
