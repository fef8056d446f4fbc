package io.brook.bench.cluster;

import io.brook.cluster.controller.Controller;
import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataRecord.Config;
import io.brook.cluster.raft.AppendResult;
import io.brook.cluster.raft.MetadataQuorumNode;
import io.brook.cluster.raft.QuorumConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What the metadata quorum costs on this machine, through Ratis as the broker will use it
 * ({@link MetadataQuorumNode}, gRPC on loopback, Ratis' log with its default flushing):
 *
 * <ul>
 *   <li>one voter: the log that built a cluster appended, the start-up of a voter that replays
 *       that log (no snapshot), a snapshot taken on request (encode, CRC, write, fsync, rename,
 *       MD5), and the start-up of a voter that loads it;
 *   <li>three voters in this JVM: the latency of one small batch at a time, and the throughput
 *       of many batches in flight, of one record and of a topic's 101 records; and how long a
 *       heartbeat waits behind the controller's queued decisions.
 * </ul>
 */
final class QuorumCosts {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String CLUSTER = "scaling";

    private final Figures out;
    private final Path dir;

    QuorumCosts(Figures out, Path dir) {
        this.out = out;
        this.dir = dir;
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static QuorumConfig voter(int id, Map<Integer, InetSocketAddress> voters, Path metadataDir) {
        // snapshots on request only: the replay measurement needs the whole log
        return new QuorumConfig(Set.of("controller"), id, CLUSTER, voters, metadataDir, Duration.ofMillis(150),
                Duration.ofMillis(300), 0, Map.of());
    }

    private static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            Thread.sleep(1);
        }
    }

    void oneVoterHeader() {
        out.section("One voter through Ratis: append the log, restart replaying it, snapshot, restart from the snapshot");
        out.line("%-48s %10s %12s %12s %12s %12s %12s", "cluster", "entries", "append s", "replay s", "snapshot ms",
                "snap bytes", "load s");
    }

    /** Appends the log that built {@code c} to a fresh one-voter quorum, then restarts it twice. */
    void oneVoter(SyntheticCluster c, boolean print) throws Exception {
        Path meta = Files.createTempDirectory(dir, "voter");
        Map<Integer, InetSocketAddress> voters = Map.of(1, InetSocketAddress.createUnresolved("127.0.0.1", freePort()));
        QuorumConfig config = voter(1, voters, meta);
        List<List<MetadataRecord>> log = c.log();
        long appendNs;
        long lastIndex;
        try (MetadataQuorumNode node = MetadataQuorumNode.start(config)) {
            await("the voter leads", node::isLeader);
            long start = System.nanoTime();
            lastIndex = appendAll(node, log, 32);
            appendNs = System.nanoTime() - start;
        }
        long replayNs = restart(config, lastIndex, null);
        long snapshotNs;
        long snapshotBytes;
        try (MetadataQuorumNode node = MetadataQuorumNode.start(config)) {
            await("the voter replays its log", () -> node.lastAppliedIndex() >= lastIndex);
            long start = System.nanoTime();
            node.takeSnapshot();
            snapshotNs = System.nanoTime() - start;
            snapshotBytes = snapshotBytes(meta);
        }
        long loadNs = restart(config, lastIndex, "snapshot");
        if (print) {
            out.line("%-48s %,10d %12.2f %12.2f %12.1f %,12d %12.2f", c, log.size(), appendNs / 1e9, replayNs / 1e9,
                    Figures.ms((double) snapshotNs), snapshotBytes, loadNs / 1e9);
        }
        deleteTree(meta);
    }

    /**
     * The size of the newest snapshot file of a voter: Ratis keeps them as {@code snapshot.<term>_<index>}
     * in {@code <metadata dir>/<group id>/sm} (only that directory is listed: Ratis rolls and purges its
     * log segments beside it while this runs).
     */
    private static long snapshotBytes(Path meta) throws IOException {
        long newest = -1;
        try (Stream<Path> groups = Files.list(meta)) {
            for (Path group : groups.filter(Files::isDirectory).toList()) {
                Path sm = group.resolve("sm");
                if (!Files.isDirectory(sm)) {
                    continue;
                }
                try (Stream<Path> files = Files.list(sm)) {
                    for (Path p : files.filter(f -> f.getFileName().toString().matches("snapshot\\.\\d+_\\d+")).toList()) {
                        newest = Math.max(newest, Files.size(p));
                    }
                }
            }
        }
        return newest;
    }

    /** Starts the voter and waits until its image is at {@code index}; the time from start. */
    private static long restart(QuorumConfig config, long index, String expectSnapshot) throws Exception {
        long start = System.nanoTime();
        try (MetadataQuorumNode node = MetadataQuorumNode.start(config)) {
            await("the voter is back at index " + index, () -> node.lastAppliedIndex() >= index);
            long ns = System.nanoTime() - start;
            if (expectSnapshot != null && node.stateMachine().loadedSnapshotIndex() < 0) {
                throw new IllegalStateException("the voter did not load a snapshot");
            }
            return ns;
        }
    }

    /** Appends every batch, at most {@code window} in flight; the index of the last. */
    private static long appendAll(MetadataQuorumNode node, List<? extends List<? extends MetadataRecord>> batches,
                                  int window) throws Exception {
        Semaphore inFlight = new Semaphore(window);
        List<CompletableFuture<AppendResult>> all = new ArrayList<>(batches.size());
        for (List<? extends MetadataRecord> batch : batches) {
            inFlight.acquire();
            CompletableFuture<AppendResult> f = node.append(batch).whenComplete((r, e) -> inFlight.release());
            all.add(f);
        }
        long last = -1;
        for (CompletableFuture<AppendResult> f : all) {
            AppendResult r = f.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (!r.allApplied()) {
                throw new IllegalStateException("a batch was not applied whole: " + r);
            }
            last = Math.max(last, r.index());
        }
        return last;
    }

    /** Latency and throughput of a three-voter quorum in this JVM. */
    void threeVoters(int latencySamples, int throughputBatches) throws Exception {
        Map<Integer, InetSocketAddress> voters = new HashMap<>();
        for (int id = 1; id <= 3; id++) {
            voters.put(id, InetSocketAddress.createUnresolved("127.0.0.1", freePort()));
        }
        Path root = Files.createTempDirectory(dir, "quorum");
        List<MetadataQuorumNode> nodes = new ArrayList<>();
        try {
            for (int id = 1; id <= 3; id++) {
                nodes.add(MetadataQuorumNode.start(voter(id, voters, root.resolve("node-" + id))));
            }
            await("a leader", () -> nodes.stream().filter(MetadataQuorumNode::isLeader).count() == 1);
            MetadataQuorumNode leader = nodes.stream().filter(MetadataQuorumNode::isLeader).findFirst().orElseThrow();
            int[] n = {0};
            List<MetadataRecord> brokers = new SyntheticCluster(3, 100).brokerBatch();
            leader.append(brokers).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);

            out.section("Three voters in one JVM (gRPC on loopback), appends through the leader's client");
            long[] latency = Figures.time(200, latencySamples, () -> leader.append(List.of(config(n[0]++)))
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
            out.line("one batch of one Config record (%d bytes) at a time, %,d samples: p50 %.2f ms, p99 %.2f ms, "
                            + "max %.2f ms", batchBytes(List.of(config(0))), latencySamples,
                    Figures.ms(Figures.median(latency)), Figures.ms(Figures.percentile(latency, 99)),
                    Figures.ms((double) latency[latency.length - 1]));
            for (int window : new int[] {1, 16, 128}) {
                List<List<MetadataRecord>> small = new ArrayList<>();
                for (int i = 0; i < throughputBatches; i++) {
                    small.add(List.of(config(n[0]++)));
                }
                throughput(leader, "1-record batches", small, window);
            }
            SyntheticCluster topics = new SyntheticCluster(3, SyntheticCluster.PARTITIONS_PER_TOPIC * throughputBatches / 10);
            List<List<MetadataRecord>> big = topics.log().subList(1, topics.topics() + 1);
            throughput(leader, "topic batches (101 records)", big, 16);
            heartbeatBehindDecisions(leader, throughputBatches / 25);
        } finally {
            for (MetadataQuorumNode node : nodes) {
                node.close();
            }
            deleteTree(root);
        }
    }

    /**
     * The controller runs decisions one at a time, heartbeats among them: a heartbeat asked for
     * while {@code queued} topic creations wait is answered after them.
     */
    private void heartbeatBehindDecisions(MetadataQuorumNode leader, int queued) throws Exception {
        Controller controller = new Controller(Clock.systemUTC(), Controller.DEFAULT_SESSION_TIMEOUT_MS, leader,
                UUID::randomUUID);
        long epoch = controller.registerBroker(100, new UUID(100, 1), List.of(new Endpoint("PLAINTEXT", "localhost", 9092)),
                null).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        controller.heartbeat(100, epoch).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        long alone = System.nanoTime();
        controller.heartbeat(100, epoch).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        alone = System.nanoTime() - alone;
        long start = System.nanoTime();
        List<CompletableFuture<UUID>> creations = new ArrayList<>();
        for (int i = 0; i < queued; i++) {
            creations.add(controller.createTopic("queued-" + i, 10, 1, Map.of()));
        }
        long waited = controller.heartbeat(100, epoch).thenApply(v -> System.nanoTime() - start)
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        for (CompletableFuture<UUID> c : creations) {
            c.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        out.line("controller heartbeat of a live broker (no append) alone: %.3f ms; behind %d queued topic creations "
                + "(10 partitions each): %.1f ms", Figures.ms((double) alone), queued, Figures.ms((double) waited));
    }

    private static MetadataRecord config(int i) {
        return new Config(MetadataRecord.RESOURCE_BROKER, "1", "k" + i % 100, Integer.toString(i));
    }

    private static int batchBytes(List<MetadataRecord> batch) {
        return io.brook.cluster.metadata.MetadataCodec.encodeBatch(batch).length;
    }

    private void throughput(MetadataQuorumNode leader, String what, List<List<MetadataRecord>> batches, int window)
            throws Exception {
        long bytes = 0;
        long records = 0;
        for (List<MetadataRecord> b : batches) {
            bytes += batchBytes(b);
            records += b.size();
        }
        long start = System.nanoTime();
        appendAll(leader, batches, window);
        double s = (System.nanoTime() - start) / 1e9;
        out.line("%-28s %3d in flight: %,8.0f batches/s, %,10.0f records/s, %6.2f MB/s (%,d batches in %.2f s)", what,
                window, batches.size() / s, records / s, bytes / s / 1e6, batches.size(), s);
    }

    static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
