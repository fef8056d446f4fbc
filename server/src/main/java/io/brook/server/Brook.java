package io.brook.server;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.server.cluster.ClusterMode;
import io.brook.server.cluster.MemberFactory;
import io.brook.server.api.BrokerApis;
import io.brook.server.api.FeatureLevels;
import io.brook.server.api.fetch.FetchSessionCache;
import io.brook.server.api.fetch.FetchWaiters;
import io.brook.server.config.GroupConfigStore;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.ConfigProviders;
import io.brook.server.config.DynamicBrokerConfig;
import io.brook.server.config.Listener;
import io.brook.server.http.AdminHttpServer;
import io.brook.server.http.ConsoleState;
import io.brook.server.metrics.BrokerMetrics;
import io.brook.server.metrics.GroupMetrics;
import io.brook.server.network.ApiTable;
import io.brook.server.network.BackgroundBind;
import io.brook.server.network.IoPool;
import io.brook.server.network.NetworkServer;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.BrokerMeta;
import io.brook.server.node.GroupCoordinatorSetup;
import io.brook.server.node.TxnCoordinatorSetup;
import io.brook.server.node.ProducerIdAllocator;
import io.brook.server.node.RandomIds;
import io.brook.server.security.BrokerSecurity;
import io.brook.server.telemetry.ClientTelemetry;
import io.brook.server.time.ClockTimer;
import io.brook.server.time.Timer;
import io.brook.server.time.WheelTimer;
import io.brook.server.topic.PartitionLogs;
import io.brook.server.topic.TopicConfigResolver;
import io.brook.server.topic.TopicRegistry;
import io.brook.server.topic.Topics;
import io.brook.storage.FlushRequestHold;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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
    /** How long after a start the metrics appear as MBeans (see run()). */
    private static final long JMX_PUBLISH_DELAY_MS = 2_000;

    private final Path dataDir;
    private final boolean metricsRecording;
    private final boolean ownsDataDir;
    /** The settings every start parses: after the first, the listener's port is the one bound then. */
    private final Map<String, String> settings;
    private final Clock clock;
    /** Null unless a test holds the group coordinator's load (see the builder). */
    private final Executor groupLoadExecutor;
    /** Cluster mode's member factory (tests); null: the real one. Unused on a single node. */
    private final MemberFactory members;
    /** Null unless built with {@link Builder#faults}. */
    private final Faults faults;
    // One run of the broker (a start to a stop or crash), set by run(); lifecycle methods are synchronized.
    private BrokerMeta meta;
    private ExecutorService ioPool;
    private NetworkServer network;
    private BrokerContext context;
    private InetSocketAddress bound;
    private Map<String, InetSocketAddress> boundAddresses;
    private FetchWaiters fetchWaiters;
    private FetchSessionCache fetchSessions;
    private Timer timer;
    private FeatureLevels features;
    private ApiTable apis;
    private BrokerMetrics metrics;
    private AdminHttpServer http;
    private volatile boolean ready;
    private PartitionLogs logs;
    private GroupCoordinator groups;
    private TransactionCoordinator transactions;
    /** Null on a single node; cluster mode is reached only through it (docs/cluster.md). */
    private ClusterMode cluster;
    private boolean running;
    private boolean closed;

    /**
     * Starts in this order: the data directory's lock and identity; the listener, bound but not
     * yet accepting (so that clients connect while the rest starts; created and bound on a thread
     * of its own while the steps up to the coordinators run, see {@link BackgroundBind}); the topic registry and the
     * partition logs (recovered); the group coordinator (which goes on loading its offsets topic
     * in the background); the transaction coordinator (replays __transaction_state, completes
     * prepared transactions); the HTTP admin listener (metrics, health); then the listener accepts.
     */
    private Brook(Map<String, String> settings, Path dataDir, boolean ownsDataDir, Clock clock, boolean withFaults,
            Executor groupLoadExecutor, boolean metricsRecording, MemberFactory members)
            throws IOException, InterruptedException {
        this.members = members;
        this.metricsRecording = metricsRecording;
        this.dataDir = dataDir;
        this.ownsDataDir = ownsDataDir;
        this.settings = settings;
        this.clock = clock;
        this.groupLoadExecutor = groupLoadExecutor;
        this.faults = withFaults ? new Faults(dataDir) : null;
        try {
            run(BrokerConfig.parse(settings));
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (faults != null) {
                faults.uninstall();
            }
            throw e;
        }
        // a restart listens where clients were told to connect
        settings.put(BrokerConfig.LISTENERS, context.config().listeners().rebound(settings, boundAddresses));
    }

    /** Starts one run of the broker on the data directory (see the constructor for the order). */
    private void run(BrokerConfig config) throws IOException, InterruptedException {
        this.meta = BrokerMeta.open(dataDir, config.nodeId(), config.clustered() ? config.string(BrokerConfig.CLUSTER_ID) : null);
        this.fetchWaiters = new FetchWaiters(config.fetchMaxWaitingPartitions());
        this.fetchSessions = new FetchSessionCache(config.maxIncrementalFetchSessionCacheSlots(),
                config.fetchSessionMaxPartitions());
        ExecutorService pool = null;
        NetworkServer net = null;
        this.timer = clock == null ? new WheelTimer() : ClockTimer.following(clock);
        long t0 = System.nanoTime();
        BrokerMetrics m = new BrokerMetrics(true, metricsRecording);
        this.metrics = m;
        this.http = null;
        Clock wallClock = clock == null ? Clock.systemUTC() : clock;
        this.features = FeatureLevels.brookDefaults(wallClock);
        features.persistIn(meta.metaDir().resolve(FeatureLevels.FILE), meta.isNew());
        BackgroundBind binding = null;
        try {
            ExecutorService ioPool = IoPool.create(config.numIoThreads());
            pool = ioPool;
            BrokerSecurity security = BrokerSecurity.create(config, meta.metaDir(), wallClock);
            binding = BackgroundBind.start(() -> {
                NetworkServer server = new NetworkServer(config, ioPool, timer, security);
                server.requestObserver(m::requestAnswered);
                server.inlineHook(FlushRequestHold::deferOn); // a round's appends to a partition share a force
                return server;
            });
            TopicRegistry registry = TopicRegistry.open(meta.metaDir(), RandomIds::uuid);
            TopicConfigResolver topicConfigs = new TopicConfigResolver(config, DynamicBrokerConfig.open(meta.metaDir()));
            m.brokerState(BrokerMetrics.RECOVERY);
            long recovery = System.nanoTime();
            this.logs = PartitionLogs.open(config, dataDir, registry, topicConfigs, fetchWaiters::wake,
                    m.flushObserver());
            Topics topics = new Topics(registry, topicConfigs, logs);
            topics.openAll(config.clustered());
            m.logRecoveryTime(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - recovery));
            GroupConfigStore groupConfigs = config.clustered() ? GroupConfigStore.forCluster() : GroupConfigStore.open(meta.metaDir());
            this.groups = GroupCoordinatorSetup.start(config, topics, wallClock, groupLoadExecutor, groupConfigs);
            ProducerIdAllocator producerIds = ProducerIdAllocator.open(meta.metaDir());
            this.transactions = TxnCoordinatorSetup.start(config, topics, groups, producerIds, wallClock, groupLoadExecutor,
                    features.finalizedLevel(FeatureLevels.TRANSACTION_VERSION));
            features.onFinalized(() -> transactions.transactionVersion(features.finalizedLevel(FeatureLevels.TRANSACTION_VERSION)));
            topics.onPartitionsChanged(() -> m.syncLogs(topics.allLogs()));
            m.syncLogs(topics.allLogs());
            GroupMetrics.register(m, groups::snapshot, topics::log, wallClock);
            net = binding.join();
            this.bound = net.boundAddresses().values().iterator().next();
            m.listenerConnections(config.listener().name(), net::connectionCount);
            // ready: recovered, listening, and __consumer_offsets and __transaction_state loaded (in the background)
            this.http = AdminHttpServer.startUnlessTaken(config.httpListener(), config.isExplicit(BrokerConfig.HTTP_LISTENER),
                    net.eventLoops(), net.serverChannelClass(), m, new ConsoleState(() -> topics.all().stream()
                            .collect(Collectors.toMap(t -> t.name(), t -> t.configs())), groups::snapshot),
                    pool, () -> ready && groups.loaded().isDone() && transactions.loaded().isDone());
            Map<String, Listener> advertised = config.listeners().advertisedAfterBind(net.boundAddresses());
            this.boundAddresses = net.boundAddresses();
            this.cluster = config.clustered() ? ClusterMode.start(config, settings, meta.metaDir(), advertised, topics,
                    producerIds, groups, clock, members, net.eventLoops(), net.clientChannelClass(), transactions, security,
                    groupConfigs) : null;
            if (cluster != null) {
                cluster.registerControllerGauges(m);
            } else {
                m.singleNodeController(() -> topics.all().size());
            }
            this.context = new BrokerContext(config, meta.clusterId(), advertised, topics,
                    producerIds, groups, transactions, timer, m, cluster == null ? null : cluster.view());
            ClientTelemetry telemetry = ClientTelemetry.open(meta.metaDir(), config.telemetryMaxBytes(), wallClock,
                    RandomIds::uuid);
            m.clientMetrics(telemetry::snapshots);
            this.apis = BrokerApis.table(context, fetchWaiters, fetchSessions, features, security, telemetry, groupConfigs);
            if (faults != null) {
                faults.attach(net, apis);
            }
            net.serve(apis);
            m.brokerState(BrokerMetrics.RUNNING);
            m.startupTime(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
            ready = true;
            // the platform MBean server's first use sets up every MXBean of the JVM: ~170 ms of a 2-core
            // machine's CPU, which on (or beside) the start-up path delayed a new client's first answer
            CompletableFuture.runAsync(m::publishJmx,
                    CompletableFuture.delayedExecutor(JMX_PUBLISH_DELAY_MS, TimeUnit.MILLISECONDS));
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (http != null) {
                http.close();
            }
            m.close();
            if (net != null) {
                net.close(0, () -> { });
            } else if (binding != null) {
                binding.abandon();
            }
            if (pool != null) {
                pool.shutdownNow();
            }
            timer.close();
            closeCluster(true);
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
        this.running = true;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** {@code host:port} for a client's {@code bootstrap.servers}. */
    public String bootstrapServers() {
        Listener adv = context.advertised();
        return adv.hostPort();
    }

    /** The port the broker listens on (the real one when 0 was asked for): its first listener's. */
    public int port() {
        return bound.getPort();
    }

    /** {@code host:port} of the listener named {@code listenerName} (as in {@code listeners}), as advertised. */
    public String bootstrapServers(String listenerName) {
        String name = listenerName.toUpperCase(java.util.Locale.ROOT);
        if (!boundAddresses.containsKey(name)) {
            throw new IllegalArgumentException("no listener " + listenerName + "; listeners: " + boundAddresses.keySet());
        }
        Listener adv = context.advertised(name);
        return adv.hostPort();
    }

    public Path dataDir() {
        return dataDir;
    }

    /** The cluster id stored in the data directory. */
    public String clusterId() {
        return context.clusterId();
    }

    /**
     * Creates a topic with the broker's default topic configuration, as a CreateTopics request
     * would; does nothing when it exists already.
     *
     * @return true when this call created it
     * @throws IllegalArgumentException for an illegal name, a partition count below 1, or a name
     *     that collides with an existing topic's
     * @throws IllegalStateException when the broker is stopped
     */
    public synchronized boolean createTopic(String name, int partitions) {
        if (!running) {
            throw new IllegalStateException("the broker is not running");
        }
        Topics.checkNewTopic(name, partitions);
        if (cluster != null) {
            return cluster.createTopic(name, partitions);
        }
        return context.topics().create(name, partitions, Map.of()) != null;
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

    /** The feature levels ApiVersions lists (KIP-584); set them before clients connect. */
    FeatureLevels features() {
        return features;
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

    /** The port of the HTTP admin listener, or -1 when {@code brook.http.listener} is none. */
    public int httpPort() {
        return http == null ? -1 : http.port();
    }

    /**
     * Stops the broker cleanly, as {@link #close()} does, but keeps it (its data directory, a
     * temporary one too, and its port) for {@link #start()}. Clients see their connections
     * close after the answers to the requests already read; they reconnect once it starts again.
     */
    public synchronized void stop() {
        checkNotClosed();
        if (running) {
            stopRun();
            LOG.info("Brook stopped ({}); it may start again", bootstrapServers());
        }
    }

    /**
     * Starts a stopped (or crashed) broker again on the same data directory and port, recovering
     * the logs as any start does; nothing when it runs.
     *
     * @throws IllegalStateException when the port was taken meanwhile, or the broker is closed
     */
    public synchronized void start() {
        checkNotClosed();
        if (running) {
            return;
        }
        try {
            long t0 = System.nanoTime();
            run(BrokerConfig.parse(settings));
            LOG.info("Brook started again in {} ms ({})", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0),
                    bootstrapServers());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start Brook again on " + dataDir + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while starting", e);
        }
    }

    /** {@link #stop()} then {@link #start()}: a clean restart keeping the data. */
    public synchronized void restart() {
        stop();
        start();
    }

    /**
     * Stops the broker as a kill -9 followed by a power cut would: connections drop at once,
     * nothing is flushed, no clean-shutdown marker is written, and every write to the segment and
     * index files that no fsync had covered is lost (the files are cut where the first such
     * write began). {@link #start()} then recovers the logs as after a real crash. Records
     * acknowledged to acks=all producers survive (they were fsynced before the answer);
     * records acknowledged with acks=1 or 0 may not. Needs {@link Builder#faults}.
     */
    public synchronized void crash() {
        checkNotClosed();
        Faults f = faults();
        if (!running) {
            return;
        }
        running = false;
        ready = false;
        if (http != null) {
            http.close();
        }
        f.dropConnections(); // at once, also those a pause holds answers for
        network.close(0, fetchWaiters::wakeAll);
        f.storageCrashed();
        ioPool.shutdownNow();
        timer.close();
        closeCluster(false);
        transactions.close();
        groups.close();
        try {
            logs.crash();
        } catch (IOException | RuntimeException e) {
            LOG.warn("Crash: the logs did not all close", e);
        }
        try {
            meta.close();
        } catch (IOException e) {
            LOG.warn("Could not release the lock on {}", dataDir, e);
        }
        try {
            f.loseUnforcedWrites();
        } catch (IOException e) {
            throw new UncheckedIOException("Crash: could not cut the unforced writes in " + dataDir, e);
        } finally {
            metrics.close();
        }
        LOG.info("Brook crashed ({})", bootstrapServers());
    }

    /** True between a start and a stop, crash or close. */
    public synchronized boolean isRunning() {
        return running;
    }

    /**
     * The fault hooks: the network, the disk and requests by API key (see {@link Faults}).
     *
     * @throws IllegalStateException when the broker was built without {@link Builder#faults}
     */
    public Faults faults() {
        if (faults == null) {
            throw new IllegalStateException("this broker was built without faults(true): it has no fault hooks");
        }
        return faults;
    }

    private void checkNotClosed() {
        if (closed) {
            throw new IllegalStateException("the broker is closed");
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (running) {
            stopRun();
        }
        if (faults != null) {
            faults.uninstall();
        }
        if (ownsDataDir) {
            deleteRecursively(dataDir);
        }
        LOG.info("Brook stopped ({})", bootstrapServers());
    }

    /** Stops the current run cleanly: what close() did before a broker could start again. */
    private void stopRun() {
        running = false;
        ready = false;
        metrics.brokerState(BrokerMetrics.SHUTTING_DOWN);
        if (http != null) {
            http.close(); // (on the event loops that the network's close shuts down)
        }
        // stop reading, answer waiting fetches now (not at their deadline), answer parked group requests
        // (JoinGroup can wait minutes) with NOT_COORDINATOR, then drain; offset commits being written complete
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
        closeCluster(true);
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
        metrics.close();
    }

    /** Leaves the cluster before the logs close; a crash leaves it without a controlled shutdown. */
    private void closeCluster(boolean controlled) {
        if (cluster != null) {
            cluster.close(controlled);
            cluster = null;
        }
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
        private boolean faults;
        private boolean metricsRecording = true;
        private Executor groupLoadExecutor;
        private boolean commandLine;
        private MemberFactory members;

        private Builder() {
        }

        /**
         * Tests: the group coordinator's reads of {@code __consumer_offsets} at start-up, and the
         * transaction coordinator's of {@code __transaction_state}, run on this executor instead of
         * threads of their own, so that a test can hold the loads.
         */
        Builder groupLoadExecutor(Executor executor) {
            this.groupLoadExecutor = executor;
            return this;
        }

        /** Tests: cluster mode's members come from {@code factory} instead of Ratis. */
        Builder clusterMembers(MemberFactory factory) {
            this.members = factory;
            return this;
        }

        /**
         * Settings from bin/brook: without {@code brook.http.listener} set, opens the HTTP admin
         * listener on its default address instead of none (the embedded default: several brokers
         * share a JVM); the variables of {@code config.providers} are resolved already.
         */
        Builder commandLine() {
            this.commandLine = true;
            return this;
        }

        /**
         * Installs the seams of the fault hooks ({@link Brook#faults()} and the data loss of
         * {@link Brook#crash()}): every segment file goes through a channel that can fail, every
         * connection through a handler that can pause. For tests; off by default, and then the
         * broker runs exactly as in production.
         */
        public Builder faults(boolean on) {
            this.faults = on;
            return this;
        }

        /**
         * Benchmarks: {@code false} makes the hot path record no metrics (BrokerTopicMetrics,
         * request metrics, flush timings), so that a benchmark can measure what recording costs.
         * On by default, and always in bin/brook.
         */
        public Builder metricsRecording(boolean on) {
            this.metricsRecording = on;
            return this;
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
            settings.stringPropertyNames().forEach(name -> props.put(name, settings.getProperty(name)));
            return this;
        }

        /**
         * Starts the broker; returns once it accepts connections. The variables of
         * {@code config.providers} in the settings are resolved first ({@link ConfigProviders}).
         *
         * @throws IllegalArgumentException for an invalid setting, or a provider that cannot read its source
         * @throws IllegalStateException when the port or the data directory is in use
         * @throws UncheckedIOException when the data directory cannot be used
         */
        public Brook start() {
            Map<String, String> p = commandLine ? new LinkedHashMap<>(props) : ConfigProviders.resolve(props);
            if (port != null || !p.containsKey(BrokerConfig.LISTENERS)) {
                p.put(BrokerConfig.LISTENERS, Listener.embedded(p.get(BrokerConfig.LISTENERS), port).toString());
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
                if (!commandLine) { // several embedded brokers share a machine: no fixed admin port
                    p.putIfAbsent(BrokerConfig.HTTP_LISTENER, "none");
                }
                BrokerConfig.parse(p); // invalid settings fail before anything is created
                Files.createDirectories(dir);
                long t0 = System.nanoTime();
                Brook b = new Brook(p, dir, temp, clock, faults, groupLoadExecutor, metricsRecording, members);
                LOG.info("Brook started in {} ms: listening on {} ({}), advertised as {}, data in {}",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0),
                        b.boundAddresses.size() == 1 ? b.bound : b.boundAddresses, b.transport(),
                        b.bootstrapServers(), dir.toAbsolutePath());
                return b;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while starting", e);
            } catch (IOException | RuntimeException e) {
                if (temp) {
                    deleteRecursively(dir);
                }
                throw e instanceof IOException io
                        ? new UncheckedIOException("Cannot start Brook with data directory " + dir + ": " + e.getMessage(), io)
                        : (RuntimeException) e;
            }
        }
    }
}
