package io.brook.reliability;

import io.brook.storage.file.DurableFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;

/**
 * Thousands of connections on one broker: idle ones, consumers that send fetch requests and never
 * read the answers, and clients that pipeline requests, while a producer measures its throughput
 * against the same producer on the unloaded broker (before and after the load). Before the load
 * the connection limit is checked with the idle connections: more until the broker refuses one,
 * the connections held still served at the limit, a slot freed by a closed connection taken by a
 * new one.
 */
final class Overload implements Scenario {
    static final String THROUGHPUT = "throughput under load at least 80 % of unloaded";
    static final String MEMORY = "broker memory stayed bounded";
    static final String ALIVE = "broker alive (0 crashes)";
    static final String PIPELINES = "pipelined requests answered in order";
    static final String PRODUCER = "the measuring producer saw no errors";
    static final String LIMIT = "connections beyond max.connections refused";
    static final String SERVED_AT_LIMIT = "connections held are served at the limit";
    static final String SLOT_REUSED = "a freed connection slot can be used again";

    private static final String DATA_TOPIC = "overload-data";
    private static final String PRODUCE_TOPIC = "overload-produce";
    private static final int PRODUCE_PARTITIONS = 8;
    private static final int DATA_RECORD_BYTES = 16 * 1024;

    /**
     * {@code maxConnections}: the broker's max.connections; 10000 is its default (no override).
     * {@code loadRequestPercentage}: when positive, the default client-id quota of
     * request_percentage set before the load starts ({@link #limitLoadClients}); 0: none.
     */
    record Params(int maxConnections, int idle, int nonReaders, int fetchesPerNonReader, int pipeliners, int window,
            long dataBytes, Duration measureTime, double loadRequestPercentage) {

        static Params full() {
            return new Params(10_000, 8_950, 1_000, 20, 20, 50, 64L << 20, Duration.ofSeconds(20), 0);
        }

        static Params quick() {
            return new Params(10_000, 8_950, 1_000, 20, 20, 50, 16L << 20, Duration.ofSeconds(5), 0);
        }

        static Params test() {
            return new Params(300, 200, 40, 5, 3, 20, 4L << 20, Duration.ofSeconds(2), 0);
        }

        /** The same with a default request_percentage quota of {@code percent} on the load clients. */
        Params withLoadRequestPercentage(double percent) {
            return new Params(maxConnections, idle, nonReaders, fetchesPerNonReader, pipeliners, window, dataBytes,
                    measureTime, percent);
        }

        int loadConnections() {
            return idle + nonReaders + pipeliners;
        }
    }

    private final Params params;

    Overload(Params params) {
        this.params = params;
    }

    @Override
    public String name() {
        return "overload";
    }

    @Override
    public String size() {
        return params.loadConnections() + " connections (" + params.idle + " idle, " + params.nonReaders
                + " never reading " + params.fetchesPerNonReader + " fetches of up to 1 MiB each, " + params.pipeliners
                + " pipelining " + params.window + " requests), max.connections " + params.maxConnections + "; "
                + params.measureTime.toSeconds() + " s throughput windows"
                + (params.loadRequestPercentage > 0 ? "; default request_percentage " + params.loadRequestPercentage
                        + " on the load clients" : "");
    }

    @Override
    public void run(Env env, ScenarioResult result) throws Exception {
        Path data = env.work().resolve("overload");
        DurableFiles.deleteRecursively(data);
        Files.createDirectories(data);
        int port = Env.freePort();
        Map<String, String> overrides = params.maxConnections == 10_000 ? Map.of()
                : Map.of("max.connections", Integer.toString(params.maxConnections));
        BrokerProcess broker = env.launcher().start(port, data, overrides, env.out().resolve("overload-broker.log"));
        List<PipeliningClient> pipeliners = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        try (Admin admin = Clients.admin(broker.bootstrap()); RssSampler rss = new RssSampler(broker.pid());
                ConnectionFlood flood = new ConnectionFlood(port)) {
            ReadyProbe.awaitReady(broker, Duration.ofSeconds(120));
            result.note("broker: " + env.launcher().description() + (overrides.isEmpty() ? ", max.connections default"
                    : ", --override max.connections=" + params.maxConnections));
            admin.createTopics(List.of(new NewTopic(DATA_TOPIC, 1, (short) 1),
                    new NewTopic(PRODUCE_TOPIC, PRODUCE_PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
            long dataRecords = BulkFill.fill(broker.bootstrap(), DATA_TOPIC, 1, params.dataBytes, DATA_RECORD_BYTES);
            if (params.loadRequestPercentage > 0) {
                limitLoadClients(admin, params.loadRequestPercentage);
                result.note("client quotas: request_percentage=" + params.loadRequestPercentage + " for the default"
                        + " client id (the load clients), none for the measuring producer's " + MEASURING_CLIENT);
            }
            env.progress().phase("baseline throughput");
            // Warm-up as long as a window: a fresh broker's first seconds of acks=all writes go into free page
            // cache, and only later does the kernel's writeback set the pace the producer keeps (measured at
            // full size: 260-350 k records/s in a window after a 2-second warm-up, 110-170 k in the windows after).
            Throughput.measure(broker.bootstrap(), PRODUCE_TOPIC, PRODUCE_PARTITIONS, params.measureTime);
            Throughput.Measurement before = Throughput.measure(broker.bootstrap(), PRODUCE_TOPIC, PRODUCE_PARTITIONS,
                    params.measureTime);

            env.progress().phase("opening " + params.idle + " idle connections");
            long openStart = System.nanoTime();
            int idle = flood.openIdle(params.idle, false, openStart + TimeUnit.MINUTES.toNanos(5));
            result.figure("time to open the idle connections", (System.nanoTime() - openStart) / 1e9, "s");
            result.figure("idle connections accepted", idle, "");
            env.progress().phase("the connection limit");
            connectionLimit(flood, idle, result);
            flood.closeIdle(flood.idleCount() - idle); // back to the load's own connections

            for (int i = 0; i < params.pipeliners; i++) {
                PipeliningClient p = new PipeliningClient(port, DATA_TOPIC, params.window);
                pipeliners.add(p);
                Thread t = new Thread(p, "pipeline-" + i);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
            result.figure("pipelining threads at nice 19 (see LowPriority)", LowPriority.renice("pipeline-"), "");
            env.progress().phase("opening " + params.nonReaders + " connections that never read");
            flood.openNonReaders(params.nonReaders, params.fetchesPerNonReader, DATA_TOPIC, dataRecords);
            env.progress().phase("throughput under load");
            long answeredBefore = answered(pipeliners);
            long problemsBefore = problems(pipeliners);
            double brokerCpu = CpuTime.ofProcess(broker.pid());
            double runnerCpu = CpuTime.ofThisJvm();
            ThreadCpu brokerThreads = ThreadCpu.of(broker.pid());
            long windowStart = System.nanoTime();
            Throughput.Measurement loaded = Throughput.measure(broker.bootstrap(), PRODUCE_TOPIC, PRODUCE_PARTITIONS,
                    params.measureTime);
            double window = (System.nanoTime() - windowStart) / 1e9;
            result.figure("broker CPU in the loaded window", (CpuTime.ofProcess(broker.pid()) - brokerCpu) / window,
                    "cores");
            result.figure("runner CPU in the loaded window (load, producer)", (CpuTime.ofThisJvm() - runnerCpu) / window,
                    "cores");
            ThreadCpu.of(broker.pid()).reportSince(brokerThreads, window, "broker CPU in the loaded window: ", result);
            result.figure("cores of the machine", Runtime.getRuntime().availableProcessors(), "");
            long answeredDuring = answered(pipeliners) - answeredBefore;
            long problemsDuring = problems(pipeliners) - problemsBefore;
            int stillServed = flood.idleAnswering(20);
            result.figure("idle connections answering an ApiVersions after the loaded window", stillServed + " of 20");
            long newStart = System.nanoTime();
            int opened = flood.openIdle(10, false, newStart + TimeUnit.SECONDS.toNanos(60));
            result.figure("new connections under load: accepted and answered", opened + " of 10");
            result.figure("new connections under load: time to the first answer, mean",
                    (System.nanoTime() - newStart) / 1e6 / 10, "ms");
            heapFigure(broker.pid(), result);
            env.progress().phase("alternating loaded and paused windows");
            Alternation alternation = Alternation.measure(broker.bootstrap(), PRODUCE_TOPIC, PRODUCE_PARTITIONS,
                    params.measureTime, pipeliners);

            pipeliners.forEach(PipeliningClient::stop);
            flood.close();
            for (Thread t : threads) {
                t.join(60_000);
            }
            env.progress().phase("throughput after the load");
            Throughput.Measurement after = Throughput.measure(broker.bootstrap(), PRODUCE_TOPIC, PRODUCE_PARTITIONS,
                    params.measureTime);

            double unloaded = (before.recordsPerSecond() + after.recordsPerSecond()) / 2;
            double ratio = loaded.recordsPerSecond() / unloaded;
            result.figure("throughput unloaded, before", before.recordsPerSecond(), "records/s");
            result.figure("throughput under load", loaded.recordsPerSecond(), "records/s");
            result.figure("throughput unloaded, after", after.recordsPerSecond(), "records/s");
            result.figure("under load ÷ unloaded (mean of before and after)", ratio * 100, "%");
            alternation.report(result);
            result.figure("pipelined requests answered during the loaded window", answeredDuring, "");
            result.figure("pipelining connections lost during the loaded window", problemsDuring, "");
            double alternating = alternation.ratio();
            result.check(THROUGHPUT, alternating >= 0.8, Math.round(alternating * 100) + " % in alternating windows ("
                    + Math.round(alternation.loaded()) + " vs " + Math.round(alternation.paused())
                    + " records/s; 512 B records, idempotent acks=all, 8 partitions; the separate windows before, under"
                    + " and after the load: " + Math.round(ratio * 100) + " %)");
            long failures = before.failures() + loaded.failures() + after.failures() + alternation.failures();
            String firstFailure = java.util.stream.Stream.of(before, loaded, after).map(Throughput.Measurement::firstFailure)
                    .filter(java.util.Objects::nonNull).findFirst().orElse("");
            result.check(PRODUCER, failures == 0, failures + " failed sends"
                    + (firstFailure.isEmpty() ? "" : " (first: " + firstFailure + ")"));
            long problems = problems(pipeliners);
            result.check(PIPELINES, problems == 0 && answeredDuring > 0, answered(pipeliners) + " answered, " + problems
                    + " problems" + (problems == 0 ? "" : " (last: " + pipeliners.stream()
                            .map(PipeliningClient::lastProblem).filter(s -> !s.isEmpty()).findFirst().orElse("") + ")"));
            boolean alive = broker.alive();
            result.check(ALIVE, alive, alive ? "serving at the end" : "EXITED with status " + broker.exitValue()
                    + "; last lines:\n" + broker.logTail(20));
            ThreadDump dump = ThreadDump.take(broker.pid(), env.out().resolve("overload-jstack.txt"));
            result.figure("broker threads at the end (jstack)", dump.threads(), "");
            rss.report(result, MEMORY, 2 * env.launcher().heapMaxBytes() + (512L << 20), false);
            BrokerLog.check(broker, result);
            broker.stop(60);
        } finally {
            pipeliners.forEach(PipeliningClient::stop);
            broker.close();
        }
        if (result.status() != ScenarioResult.Status.FAIL) {
            DurableFiles.deleteRecursively(data);
        } else {
            result.note("data directory kept for inspection: " + data);
        }
    }

    /**
     * With the idle connections open: more of them until the broker refuses one; then an existing
     * connection must still be answered, and after ten idle connections are closed a new one must
     * be accepted again.
     */
    private void connectionLimit(ConnectionFlood flood, int idle, ScenarioResult result) {
        int room = Math.max(0, params.maxConnections - idle);
        int refusedBefore = flood.refused();
        int extra = flood.openIdle(room + 50, true, System.nanoTime() + TimeUnit.MINUTES.toNanos(2));
        boolean refused = flood.refused() > refusedBefore;
        int held = idle + extra;
        result.figure("connections held when the broker refused the next one", held, "");
        // the runner's admin client holds a connection or two of its own
        result.check(LIMIT, refused && held <= params.maxConnections && held >= params.maxConnections - 5,
                (refused ? "refused" : "NOT refused") + " after " + held + " connections of the runner (+ the admin"
                        + " client's); max.connections=" + params.maxConnections
                        + (flood.unanswered() > 0 ? "; " + flood.unanswered() + " connections got no answer in 5 s" : ""));
        result.check(SERVED_AT_LIMIT, flood.idleAnswering(20) == 20, "ApiVersions on 20 of the connections held");
        flood.closeIdle(10);
        boolean reused = Waits.holds(Duration.ofSeconds(30),
                () -> flood.openIdle(1, true, System.nanoTime() + TimeUnit.SECONDS.toNanos(10)) == 1);
        result.check(SLOT_REUSED, reused, reused ? "a new connection was accepted after 10 were closed"
                : "still refused 30 s after 10 connections were closed");
    }

    /** The client id of the producer whose throughput is measured ({@link Throughput}). */
    static final String MEASURING_CLIENT = Throughput.CLIENT_ID;
    /** A request_percentage no client reaches: 10,000 % is a hundred request threads kept busy. */
    static final double UNBOUNDED_PERCENTAGE = 10_000;

    /**
     * The operator's answer Kafka offers to clients that flood the broker with requests: a default
     * request_percentage quota for every client id ({@code kafka-configs.sh --alter --entity-type
     * clients --entity-default --add-config request_percentage=P}), with a quota of its own, high
     * enough never to bind, for the one client that must keep its throughput (the measuring
     * producer), as the more specific entity wins.
     */
    static void limitLoadClients(Admin admin, double percent) throws Exception {
        Map<String, String> byDefault = new java.util.HashMap<>();
        byDefault.put(ClientQuotaEntity.CLIENT_ID, null);
        admin.alterClientQuotas(List.of(
                new ClientQuotaAlteration(new ClientQuotaEntity(byDefault),
                        List.of(new ClientQuotaAlteration.Op("request_percentage", percent))),
                new ClientQuotaAlteration(new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, MEASURING_CLIENT)),
                        List.of(new ClientQuotaAlteration.Op("request_percentage", UNBOUNDED_PERCENTAGE)))))
                .all().get(30, TimeUnit.SECONDS);
    }

    private static long answered(List<PipeliningClient> pipeliners) {
        return pipeliners.stream().mapToLong(PipeliningClient::answered).sum();
    }

    private static long problems(List<PipeliningClient> pipeliners) {
        return pipeliners.stream().mapToLong(PipeliningClient::problems).sum();
    }

    private static final Pattern HEAP = Pattern.compile("total (\\d+)K, used (\\d+)K");

    /** The broker's heap use now ({@code jcmd GC.heap_info}), if the JVM tells it. */
    private static void heapFigure(long pid, ScenarioResult result) {
        String info = Machine.command(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(pid), "GC.heap_info");
        Matcher m = HEAP.matcher(info);
        if (m.find()) {
            result.figure("broker heap under load: used", Long.parseLong(m.group(2)) / 1024.0, "MiB");
            result.figure("broker heap under load: committed", Long.parseLong(m.group(1)) / 1024.0, "MiB");
        }
    }
}
