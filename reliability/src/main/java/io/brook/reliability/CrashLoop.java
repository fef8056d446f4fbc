package io.brook.reliability;

import io.brook.storage.file.DurableFiles;
import io.brook.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code kill -9} of the broker process at random points under an idempotent acks=all load and
 * consumer groups that commit after processing, then one restart after each kill. Verified from
 * the producers' acknowledgements once the last restart is ready: every acknowledged record is
 * present exactly once, at the acknowledged offset, in order within its partition; and after every
 * restart each group's committed offsets are at least what had been committed before the kill.
 * Measured: time from process start to ready after each kill (the time to ready with a large data
 * directory is the scenario {@link LargeDataRestart}).
 *
 * <p>With power cuts ({@code power-cut}) the data directory is a {@link PowerCutFileSystem}: after
 * each kill everything no fsync made durable is undone (file data written since the file's last
 * fsync, and names created, renamed or removed since their directory's last fsync), as a power
 * cut would leave the disk; every other cut is torn (each unforced page kept or lost at random).
 * Name changes count as durable only once their directory was forced (POSIX).
 * The same checks hold, and one more: every record a consumer was given before a cut is still in
 * the log after it (the log end offset is past it), because the broker hands out only what it
 * has forced.
 *
 * <p>In cluster mode ({@code cluster-crash-loop}) the broker is a cluster of one node, broker and
 * controller, whose metadata lives in its Raft log: each start registers the broker, unfences it
 * and allocates producer ids through that log, and a kill during start-up or after it may cut a
 * write of it short. The same checks hold, and the node must start again after every kill.
 */
final class CrashLoop implements Scenario {
    static final String TOPIC = "crash";
    static final int PARTITIONS = 8;
    static final List<String> GROUPS = List.of("crash-group-a", "crash-group-b");
    static final String NAMES_PROPERTY = "reliability.power-cut-names";

    /**
     * Sizes: {@code kills} kills, every {@code startupKillEvery}-th of them during the start-up
     * that follows the previous one (before ready), the others at a random delay in
     * [{@code minDelayMs}, {@code maxDelayMs}] after ready once a new record was acknowledged.
     */
    record Params(int kills, int startupKillEvery, int minDelayMs, int maxDelayMs, int producers, int window,
            int membersPerGroup, Duration readBackTimeout) {

        static Params full() {
            return new Params(200, 10, 200, 3000, 2, 1000, 2, Duration.ofMinutes(10));
        }

        static Params quick() {
            return new Params(20, 10, 200, 2000, 2, 1000, 2, Duration.ofMinutes(3));
        }

        static Params test() {
            return new Params(5, 4, 100, 600, 2, 500, 1, Duration.ofSeconds(30));
        }

        /** The same with {@code n} kills. */
        Params withKills(int n) {
            return new Params(n, startupKillEvery, minDelayMs, maxDelayMs, producers, window, membersPerGroup,
                    readBackTimeout);
        }
    }

    private final Params params;
    private final boolean cluster;
    private final boolean powerCuts;

    /** @param cluster whether the broker runs as a one-node cluster (its metadata in a Raft log) */
    CrashLoop(Params params, boolean cluster) {
        this(params, cluster, false);
    }

    /**
     * @param powerCuts whether each kill is followed by a power cut of the data directory's file system
     */
    CrashLoop(Params params, boolean cluster, boolean powerCuts) {
        this.params = params;
        this.cluster = cluster;
        this.powerCuts = powerCuts;
    }

    /**
     * Name changes are durable once their directory was forced (POSIX), unless the system property
     * {@value #NAMES_PROPERTY} says {@code journaled} (at any force: ext4, XFS).
     */
    private static PowerCutFileSystem.Names names() {
        return PowerCutFileSystem.Names.valueOf(System.getProperty(NAMES_PROPERTY, "strict").toUpperCase(Locale.ROOT));
    }

    @Override
    public String name() {
        return (cluster ? "cluster-" : "") + (powerCuts ? "power-cut" : "crash-loop");
    }

    @Override
    public String size() {
        return (cluster ? "a one-node cluster (broker and controller), " : "") + params.kills
                + (powerCuts ? " kills, each followed by a power cut (every other one torn)" : " kills") + " (every " + params.startupKillEvery + "th during start-up, the others "
                + params.minDelayMs + "–" + params.maxDelayMs + " ms after ready), " + params.producers
                + " idempotent acks=all producers, " + GROUPS.size() + " groups × " + params.membersPerGroup
                + " members, " + PARTITIONS + " partitions";
    }

    @Override
    public void run(Env env, ScenarioResult result) throws Exception {
        Path data = env.work().resolve(name());
        DurableFiles.deleteRecursively(data);
        Files.createDirectories(data);
        Random random = new Random(env.seed());
        PowerCuts cuts = null;
        if (powerCuts) {
            Path disk = env.work().resolve(name() + "-disk");
            DurableFiles.deleteRecursively(disk); // kept by a failed run
            try {
                cuts = new PowerCuts(PowerCutFileSystem.prepare(disk, data,
                        env.out().resolve(name() + "-fuse.log")), names(), random);
            } catch (PowerCutFileSystem.Unavailable e) {
                result.skip(e.getMessage());
                return;
            }
        }
        try {
            run(env, result, data, random, cuts);
        } finally {
            if (cuts != null) {
                cuts.close();
            }
        }
        if (result.status() != ScenarioResult.Status.FAIL) {
            DurableFiles.deleteRecursively(data);
            if (cuts != null) {
                DurableFiles.deleteRecursively(cuts.disk().getParent());
            }
        } else {
            result.note("data directory kept for inspection: " + (cuts == null ? data : cuts.disk()));
        }
    }

    private void run(Env env, ScenarioResult result, Path data, Random random, PowerCuts cuts) throws Exception {
        if (cuts != null) {
            cuts.next();
        }
        int port = Env.freePort();
        Map<String, String> overrides = new TreeMap<>(Map.of("group.initial.rebalance.delay.ms", "0"));
        if (cluster) {
            overrides.putAll(oneNodeCluster(port, Env.freePort()));
        }
        StringBuilder described = new StringBuilder();
        overrides.forEach((k, v) -> described.append(", --override ").append(k).append('=').append(v));
        result.note("seed " + env.seed() + "; broker: " + env.launcher().description() + described
                + " (group.initial.rebalance.delay.ms=0 so that the groups rejoin within a cycle)");
        Path log = env.out().resolve(name() + "-broker.log");
        BrokerProcess broker = env.launcher().start(port, data, overrides, log);
        AckLedger ledger = new AckLedger(params.producers, PARTITIONS);
        IdProducers producers = null;
        CommittingConsumers consumers = null;
        try (Admin admin = Clients.admin(broker.bootstrap())) {
            ReadyProbe.awaitReady(broker, Duration.ofSeconds(120));
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
            producers = new IdProducers(broker.bootstrap(), TOPIC, ledger, 100, params.window).start();
            consumers = new CommittingConsumers(broker.bootstrap(), TOPIC, GROUPS, params.membersPerGroup).start();

            List<Double> readyMs = new ArrayList<>();
            List<String> regressions = new ArrayList<>();
            List<String> lostReads = new ArrayList<>();
            int startupKills = 0;
            int stalls = 0;
            double lastReadyMs = 1000;
            for (int kill = 1; kill <= params.kills; kill++) {
                boolean duringStartup = kill % params.startupKillEvery == 0;
                if (duringStartup) {
                    // the previous cycle started this broker without waiting for it: kill it before
                    // it is likely to be ready (a random part of the last time to ready)
                    long delayNanos = (long) (random.nextDouble() * lastReadyMs * 0.9 * 1e6);
                    BrokerProcess starting = broker;
                    Await.until("the start-up kill point", Duration.ofNanos(delayNanos).plusSeconds(30),
                            () -> System.nanoTime() - starting.startNanos() >= delayNanos || !starting.alive());
                    startupKills++;
                } else if (!Waits.randomDelayAndANewAck(random, params.minDelayMs, params.maxDelayMs, ledger)) {
                    stalls++;
                }
                broker.kill();
                // every commit acknowledged before the kill must survive it, and every record read
                Map<String, Map<TopicPartition, Long>> floorsAtKill = consumers.floors().snapshot();
                Map<TopicPartition, Long> seenAtKill = consumers.seen();
                if (cuts != null) {
                    cuts.cut();
                    cuts.next();
                }
                broker = env.launcher().start(port, data, overrides, log);
                boolean nextDuringStartup = kill < params.kills && (kill + 1) % params.startupKillEvery == 0;
                if (nextDuringStartup) {
                    continue;
                }
                double ms = ReadyProbe.awaitReady(broker, Duration.ofSeconds(120));
                readyMs.add(ms);
                if (!duringStartup) {
                    lastReadyMs = ms;
                }
                for (String r : CommitFloors.regressions(floorsAtKill, committed(admin))) {
                    regressions.add("after kill " + kill + ": " + r);
                }
                for (String r : ReadBack.beyondEnd(broker.bootstrap(), seenAtKill, Duration.ofSeconds(30))) {
                    lostReads.add("after kill " + kill + ": " + r);
                }
                env.progress().update("kill " + kill + "/" + params.kills + ", ready after " + Math.round(ms)
                        + " ms, " + ledger.ackedCount() + " records acknowledged, " + consumers.commits()
                        + " commits");
            }

            producers.stop(Duration.ofSeconds(30));
            consumers.stop();
            for (String r : CommitFloors.regressions(consumers.floors().snapshot(), committed(admin))) {
                regressions.add("at the end: " + r);
            }
            ReadBack.Verification v = ReadBack.verify(broker.bootstrap(), TOPIC, ledger, params.readBackTimeout);

            result.figure("kills", params.kills, "");
            result.figure("kills during start-up", startupKills, "");
            Stats.of(readyMs).addTo(result, "time to ready after kill -9", "ms");
            int tenth = Math.max(1, readyMs.size() / 10);
            result.figure("time to ready, median of the first " + tenth + " restarts",
                    Stats.of(readyMs.subList(0, tenth)).median(), "ms");
            result.figure("time to ready, median of the last " + tenth + " restarts",
                    Stats.of(readyMs.subList(readyMs.size() - tenth, readyMs.size())).median(), "ms");
            result.figure("records sent", producers.sent(), "");
            result.figure("records acknowledged", ledger.ackedCount(), "");
            result.figure("records read back", v.records(), "");
            result.figure("unacknowledged duplicates (retries of unanswered batches)", v.duplicatedAll() - v.duplicatedAcked(),
                    "");
            result.figure("failed sends by exception", String.valueOf(producers.failures()));
            if (!producers.failures().isEmpty()) {
                result.figure("first message of each failed send's exception",
                        String.valueOf(producers.failures().firstMessages()));
            }
            result.figure("producers replaced", producers.replaced(), "");
            result.figure("commits acknowledged", consumers.commits(), "");
            result.figure("records consumed by the groups", consumers.consumed(), "");
            result.figure("failed polls/commits by exception", String.valueOf(consumers.failures()));
            RestartChecks.acknowledgedRecords(result, v);
            RestartChecks.commitsAndReads(result, regressions,
                    "after each of " + params.kills + " restarts and at the end", lostReads);
            if (cuts != null) {
                cuts.addTo(result);
            }
            result.check("producers progressed after every restart", stalls == 0,
                    stalls == 0 ? "a new acknowledgement before every kill" : stalls
                            + " cycles without a new acknowledgement within 60 s");
            if (!broker.stop(60)) {
                result.note("the broker did not stop within 60 s of SIGTERM at the end and was killed");
            }
        } finally {
            if (producers != null) {
                producers.stop(Duration.ZERO);
            }
            if (consumers != null) {
                consumers.stop();
            }
            broker.close();
        }
    }

    /** A cluster of one node, broker and controller, with clients on {@code port}. */
    private static Map<String, String> oneNodeCluster(int port, int controllerPort) {
        return Map.of("process.roles", "broker,controller", "node.id", "1", "cluster.id", "crash-loop-cluster",
                "controller.quorum.voters", "1@127.0.0.1:" + controllerPort,
                "controller.listener.names", "CONTROLLER",
                "listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    }

    /** Each group's committed offsets for {@link #TOPIC}, retried until the coordinator answers. */
    static Map<String, Map<TopicPartition, OffsetAndMetadata>> committed(Admin admin) {
        Map<String, Map<TopicPartition, OffsetAndMetadata>> out = new TreeMap<>();
        for (String group : GROUPS) {
            Await.until("the committed offsets of " + group, Duration.ofSeconds(60), () -> {
                try {
                    out.put(group, admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                            .get(10, TimeUnit.SECONDS));
                    return true;
                } catch (Exception e) {
                    return false;
                }
            });
        }
        return out;
    }
}
