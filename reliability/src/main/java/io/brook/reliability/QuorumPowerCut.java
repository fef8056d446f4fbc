package io.brook.reliability;

import io.brook.storage.file.DurableFiles;
import io.brook.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * A power cut of a whole three-node cluster, again and again, under load: three nodes, each
 * broker and controller (so the metadata quorum has three voters), each on its own {@link
 * PowerCutFileSystem}. Each cycle kills all three with {@code kill -9} and then cuts each file
 * system (clean or torn, each drawing its own), as a power cut of the rack would; then all three
 * start again. Every {@code startupCutEvery}-th cut comes while the cluster is still starting,
 * that is while its voters elect a leader and its brokers register: the moments when a vote or a
 * new log segment has just been written.
 *
 * <p>The same checks as {@link CrashLoop} with power cuts: every acknowledged record present
 * exactly once at its offset, committed offsets never back, every record a consumer was given
 * still there after the cut; and the cluster must come back after every cut: all three brokers
 * registered, every partition with a leader, and a record acknowledged on every partition of a
 * probe topic spread over the three. Topics have one replica, so each partition's data is
 * one node's; what three voters add is the metadata log, its elections and its replication.
 */
final class QuorumPowerCut implements Scenario {
    static final String TOPIC = "quorum-cut";
    /** Written to, one record per partition, to tell that every broker serves (never verified). */
    static final String PROBE = "quorum-cut-probe";
    static final int NODES = 3;
    static final int PARTITIONS = 9;

    /**
     * {@code cuts} cuts, every {@code startupCutEvery}-th during the start-up after the previous
     * one, the others a random [{@code minDelayMs}, {@code maxDelayMs}] after the cluster was
     * ready and a new record was acknowledged.
     */
    record Params(int cuts, int startupCutEvery, int minDelayMs, int maxDelayMs, Duration readyTimeout) {
        static Params full() {
            return new Params(20, 3, 300, 3000, Duration.ofMinutes(3));
        }

        static Params quick() {
            return new Params(6, 3, 300, 2000, Duration.ofMinutes(3));
        }

        static Params test() {
            return new Params(3, 3, 200, 800, Duration.ofMinutes(2));
        }
    }

    private final Params params;

    QuorumPowerCut(Params params) {
        this.params = params;
    }

    @Override
    public String name() {
        return "quorum-power-cut";
    }

    @Override
    public String size() {
        return "three nodes (broker and controller each), " + params.cuts
                + " power cuts of all three at once (each cut whose number is a multiple of " + params.startupCutEvery
                + " during start-up, the others " + params.minDelayMs + "–" + params.maxDelayMs
                + " ms after ready), 2 idempotent acks=all producers, " + CrashLoop.GROUPS.size()
                + " groups × 1 member, " + PARTITIONS + " partitions of one replica";
    }

    /** One node: its ports, its file system and its process. */
    private static final class Node {
        final int id;
        final int port = Env.freePort();
        final int controllerPort = Env.freePort();
        final Path data;
        final PowerCuts cuts;
        BrokerProcess process;

        Node(int id, Path data, PowerCuts cuts) {
            this.id = id;
            this.data = data;
            this.cuts = cuts;
        }
    }

    @Override
    public void run(Env env, ScenarioResult result) throws Exception {
        Path base = env.work().resolve(name());
        Path disks = env.work().resolve(name() + "-disk");
        DurableFiles.deleteRecursively(base);
        DurableFiles.deleteRecursively(disks); // kept by a failed run
        Random random = new Random(env.seed());
        List<Node> nodes = new ArrayList<>();
        try {
            for (int id = 1; id <= NODES; id++) {
                Path data = base.resolve("node-" + id);
                Files.createDirectories(data);
                PowerCutFileSystem fs;
                try {
                    fs = PowerCutFileSystem.prepare(disks.resolve("node-" + id), data,
                            env.out().resolve(name() + "-fuse-" + id + ".log"));
                } catch (PowerCutFileSystem.Unavailable e) {
                    result.skip(e.getMessage());
                    return;
                }
                nodes.add(new Node(id, data, new PowerCuts(fs, PowerCutFileSystem.Names.STRICT,
                        new Random(random.nextLong()))));
            }
            run(env, result, nodes, random);
        } finally {
            for (Node n : nodes) {
                if (n.process != null) {
                    n.process.close();
                }
                n.cuts.close();
            }
        }
        if (result.status() != ScenarioResult.Status.FAIL) {
            DurableFiles.deleteRecursively(base);
            DurableFiles.deleteRecursively(disks);
        } else {
            result.note("data directories kept for inspection under " + disks);
        }
    }

    private void run(Env env, ScenarioResult result, List<Node> nodes, Random random) throws Exception {
        String voters = nodes.stream().map(n -> n.id + "@127.0.0.1:" + n.controllerPort).collect(Collectors.joining(","));
        String bootstrap = nodes.stream().map(n -> "127.0.0.1:" + n.port).collect(Collectors.joining(","));
        result.note("seed " + env.seed() + "; broker: " + env.launcher().description() + "; voters " + voters);
        startAll(env, nodes, voters);
        AckLedger ledger = new AckLedger(2, PARTITIONS);
        IdProducers producers = null;
        CommittingConsumers consumers = null;
        try (Admin admin = Clients.admin(bootstrap);
             KafkaProducer<byte[], byte[]> probe = Clients.probeProducer(bootstrap, "quorum-cut-probe")) {
            awaitCluster(admin, null, nodes, false, params.readyTimeout);
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1),
                    new NewTopic(PROBE, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
            awaitCluster(admin, probe, nodes, true, params.readyTimeout);
            producers = new IdProducers(bootstrap, TOPIC, ledger, 100, 500).start();
            consumers = new CommittingConsumers(bootstrap, TOPIC, CrashLoop.GROUPS, 1).start();

            List<Double> readyMs = new ArrayList<>();
            List<String> regressions = new ArrayList<>();
            List<String> lostReads = new ArrayList<>();
            int startupCuts = 0;
            int stalls = 0;
            double lastReadyMs = 5000;
            long started = System.nanoTime();
            for (int cut = 1; cut <= params.cuts; cut++) {
                boolean duringStartup = cut % params.startupCutEvery == 0;
                if (duringStartup) {
                    long delayNanos = (long) (random.nextDouble() * lastReadyMs * 0.9 * 1e6);
                    long from = started;
                    Await.until("the start-up cut point", Duration.ofNanos(delayNanos).plusSeconds(30),
                            () -> System.nanoTime() - from >= delayNanos);
                    startupCuts++;
                } else if (!Waits.randomDelayAndANewAck(random, params.minDelayMs, params.maxDelayMs, ledger)) {
                    stalls++;
                }
                for (Node n : nodes) {
                    n.process.kill();
                }
                Map<String, Map<TopicPartition, Long>> floorsAtCut = consumers.floors().snapshot();
                Map<TopicPartition, Long> seenAtCut = consumers.seen();
                for (Node n : nodes) {
                    n.cuts.cut();
                }
                started = System.nanoTime();
                startAll(env, nodes, voters);
                boolean nextDuringStartup = cut < params.cuts && (cut + 1) % params.startupCutEvery == 0;
                if (nextDuringStartup) {
                    continue;
                }
                awaitCluster(admin, probe, nodes, true, params.readyTimeout);
                double ms = (System.nanoTime() - started) / 1e6;
                readyMs.add(ms);
                if (!duringStartup) {
                    lastReadyMs = ms;
                }
                for (String r : CommitFloors.regressions(floorsAtCut, CrashLoop.committed(admin))) {
                    regressions.add("after cut " + cut + ": " + r);
                }
                for (String r : ReadBack.beyondEnd(bootstrap, seenAtCut, Duration.ofSeconds(30))) {
                    lostReads.add("after cut " + cut + ": " + r);
                }
                env.progress().update("cut " + cut + "/" + params.cuts + ", ready after " + Math.round(ms) + " ms, "
                        + ledger.ackedCount() + " records acknowledged, " + consumers.commits() + " commits");
            }

            producers.stop(Duration.ofSeconds(30));
            consumers.stop();
            for (String r : CommitFloors.regressions(consumers.floors().snapshot(), CrashLoop.committed(admin))) {
                regressions.add("at the end: " + r);
            }
            ReadBack.Verification v = ReadBack.verify(bootstrap, TOPIC, ledger, Duration.ofMinutes(2));

            result.figure("power cuts of the whole cluster", params.cuts, "");
            result.figure("of them during start-up", startupCuts, "");
            Stats.of(readyMs).addTo(result, "time from start to a ready cluster after a cut", "ms");
            result.figure("records acknowledged", ledger.ackedCount(), "");
            result.figure("records read back", v.records(), "");
            result.figure("failed sends by exception", String.valueOf(producers.failures()));
            result.figure("commits acknowledged", consumers.commits(), "");
            result.figure("failed polls/commits by exception", String.valueOf(consumers.failures()));
            RestartChecks.acknowledgedRecords(result, v);
            RestartChecks.commitsAndReads(result, regressions,
                    "after each cut the cluster was ready from, and at the end", lostReads);
            result.check("producers progressed before every cut", stalls == 0,
                    stalls == 0 ? "a new acknowledgement before every cut after ready" : stalls
                            + " cycles without a new acknowledgement within 60 s");
            long lost = nodes.stream().mapToLong(n -> n.cuts.taken("pages_lost")).sum();
            long undone = nodes.stream().mapToLong(n -> n.cuts.taken("entries_undone")).sum();
            result.figure("unforced pages lost, all nodes", lost, "");
            result.figure("directory entries undone (not forced), all nodes", undone, "");
            long undoFailures = nodes.stream().mapToLong(n -> n.cuts.taken("entry_undo_failures")).sum();
            result.check("every undo of the cuts applied", undoFailures == 0,
                    undoFailures + " entries could not be undone (see the FUSE logs)");
        } finally {
            if (producers != null) {
                producers.stop(Duration.ZERO);
            }
            if (consumers != null) {
                consumers.stop();
            }
            for (Node n : nodes) {
                if (n.process != null && n.process.alive() && !n.process.stop(60)) {
                    result.note("node " + n.id + " did not stop within 60 s of SIGTERM at the end and was killed");
                }
            }
        }
    }

    /** Mounts each node's file system and starts its broker, without waiting. */
    private static void startAll(Env env, List<Node> nodes, String voters) throws Exception {
        for (Node n : nodes) {
            n.cuts.next();
            n.process = env.launcher().start(n.port, n.data, overrides(n, voters),
                    env.out().resolve("quorum-power-cut-node-" + n.id + ".log"));
        }
    }

    private static Map<String, String> overrides(Node n, String voters) {
        Map<String, String> o = new TreeMap<>();
        o.put("process.roles", "broker,controller");
        o.put("node.id", Integer.toString(n.id));
        o.put("cluster.id", "quorum-power-cut");
        o.put("controller.quorum.voters", voters);
        o.put("controller.listener.names", "CONTROLLER");
        o.put("listeners", "PLAINTEXT://127.0.0.1:" + n.port + ",CONTROLLER://127.0.0.1:" + n.controllerPort);
        o.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        o.put("group.initial.rebalance.delay.ms", "0");
        return o;
    }

    /**
     * Waits until every node runs and the cluster shows all three brokers; with {@code serving},
     * also until every partition of {@link #TOPIC} has a leader and {@code probe} has a record
     * acknowledged on every partition of {@link #PROBE}.
     */
    private static void awaitCluster(Admin admin, KafkaProducer<byte[], byte[]> probe, List<Node> nodes,
                                     boolean serving, Duration timeout) {
        Await.until("the cluster of " + NODES + " to be ready" + (serving ? " and serving every partition" : ""),
                timeout, () -> {
                    for (Node n : nodes) {
                        if (!n.process.alive()) {
                            throw new IllegalStateException("node " + n.id + " exited with status "
                                    + n.process.exitValue() + "; its last lines:\n" + n.process.logTail(30));
                        }
                    }
                    try {
                        if (admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).size() != NODES) {
                            return false;
                        }
                        if (!serving) {
                            return true;
                        }
                        TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames()
                                .get(10, TimeUnit.SECONDS).get(TOPIC);
                        if (d.partitions().size() != PARTITIONS || !d.partitions().stream()
                                .map(TopicPartitionInfo::leader).allMatch(l -> l != null && !l.isEmpty())) {
                            return false;
                        }
                        List<Future<RecordMetadata>> sent = new ArrayList<>();
                        for (int p = 0; p < PARTITIONS; p++) {
                            sent.add(probe.send(new ProducerRecord<>(PROBE, p, null, new byte[] {1})));
                        }
                        for (Future<RecordMetadata> f : sent) {
                            f.get(15, TimeUnit.SECONDS);
                        }
                        return true;
                    } catch (Exception e) {
                        return false;
                    }
                });
    }
}
