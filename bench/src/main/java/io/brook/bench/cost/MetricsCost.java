package io.brook.bench.cost;

import io.brook.server.Brook;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * What recording metrics costs the broker, to within a percent: two embedded brokers in this
 * JVM, alike but for {@code Brook.Builder.metricsRecording} (on: everything recorded as in
 * production; off: the handlers' meters, the request metrics and the flush timings record
 * nothing), take turns answering the same requests over one connection each, in many short rounds
 * ordered on, off, off, on, on, off... so that each adjacent pair of rounds meets the same machine.
 * Each round measures the broker's CPU time per request ({@link BrokerCpu}: the CPU of its threads
 * less what they use idle over as long,
 * which other processes on the machine distort little), the process's (adding GC and JIT, and the
 * idle broker's), requests per
 * second (wall clock: on a shared machine, noise) and bytes allocated per request. A workload's
 * cost is the median over the pairs of on ÷ off, with a 95 % bootstrap interval
 * ({@link PairedRatios}).
 *
 * <p>Workloads: Produce of 8 partitions × a 16 KiB batch of 100 B records and of one partition ×
 * 10 records of 100 B, each with acks=1 and acks=all (durable: answered after the fsync), and Fetch
 * of 64 KiB and of 1 MiB from the start of a partition.
 *
 * <pre>bench/run --metrics-cost [--quick] [--calibrate] [--pairs N] [--round-ms N] [--warmup-ms N] [--only TEXT] [--out FILE]</pre>
 *
 * Default: 40 pairs of 500 ms rounds per workload after 5 s of warm-up (10 s for the first):
 * about 5 minutes. {@code --quick}: 3 pairs of 50 ms, a check that it runs, nothing more.
 * {@code --calibrate}: both brokers record, so that every difference the run reports is the
 * harness's own (two brokers' directories, ports, threads): an A/A test of its resolution.
 *
 * <p>What "off" still does: the request's timestamps ({@code System.nanoTime()} at receipt,
 * handling and answer) are read either way, as the network layer reads them for its own use;
 * off only skips what is done with them. Both brokers share the JIT's profiles, so call sites
 * that reach a meter see two classes (the counting meter and the off broker's empty one) where
 * a production broker sees one.
 */
public final class MetricsCost {

    private static final String BATCHES_TOPIC = "cost-8p";
    private static final String SMALL_TOPIC = "cost-1p";
    private static final String FETCH_TOPIC = "cost-fetch";
    /** 16 KiB batches written to the fetch topic before the run: 2 MiB, more than the largest fetch. */
    private static final int FETCH_PREFILL = 128;

    private final Options options;
    private final PrintStream progress;
    private final BrokerCpu cpu = new BrokerCpu();
    /** Each broker's CPU per second of wall time with no requests (timers, schedulers), in nanoseconds. */
    private double idleOnNanosPerS;
    private double idleOffNanosPerS;

    private MetricsCost(Options options, PrintStream progress) {
        this.options = options;
        this.progress = progress;
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args);
        String report = run(o, System.err);
        System.out.print(report);
        if (o.out != null) {
            Files.writeString(o.out, report);
        }
    }

    /** Runs every workload (those whose name contains {@code --only}) and returns the Markdown report. */
    static String run(Options options, PrintStream progress) throws Exception {
        return new MetricsCost(options, progress).run();
    }

    static List<CostWorkload> workloads() {
        return List.of(
                CostWorkload.produce("produce 8p × 16 KiB, acks=1", BATCHES_TOPIC, 8, 16 * 1024, 0, (short) 1),
                CostWorkload.produce("produce 8p × 16 KiB, acks=all", BATCHES_TOPIC, 8, 16 * 1024, 0, (short) -1),
                CostWorkload.produce("produce 1p × 10 × 100 B, acks=1", SMALL_TOPIC, 1, 0, 10, (short) 1),
                CostWorkload.produce("produce 1p × 10 × 100 B, acks=all", SMALL_TOPIC, 1, 0, 10, (short) -1),
                CostWorkload.fetch("fetch 64 KiB", FETCH_TOPIC, 64 * 1024),
                CostWorkload.fetch("fetch 1 MiB", FETCH_TOPIC, 1024 * 1024));
    }

    private String run() throws Exception {
        Path dir = Files.createTempDirectory("brook-metrics-cost");
        StringBuilder report = new StringBuilder();
        String loadBefore = loadAverage();
        Instant started = Instant.now();
        try (Side on = Side.start(dir.resolve("on"), "on", true);
                Side off = Side.start(dir.resolve("off"), "off", options.calibrate)) {
            prefill(on.connection);
            prefill(off.connection);
            double[] idleMsPerS = idleCpuMsPerSecond(on, off);
            idleOnNanosPerS = idleMsPerS[0] * 1e6;
            idleOffNanosPerS = idleMsPerS[1] * 1e6;
            List<String> rows = new ArrayList<>();
            boolean first = true;
            for (CostWorkload w : workloads()) {
                if (options.only != null && !w.name.contains(options.only)) {
                    continue;
                }
                progress.printf("metrics-cost: %s%n", w.name);
                long warmup = first ? options.warmupMillis * 2 : options.warmupMillis;
                first = false;
                rows.add(measure(w, on, off, warmup));
            }
            header(report, started, loadBefore, idleMsPerS);
            rows.forEach(report::append);
        } finally {
            delete(dir);
        }
        report.append(String.format(Locale.ROOT, "%nLoad average at the end: %s; %d s in all.%n", loadAverage(),
                started.until(Instant.now(), ChronoUnit.SECONDS)));
        return report.toString();
    }

    /** One broker, the thread group its threads belong to, and the connection that loads it. */
    private record Side(Brook brook, ThreadGroup threads, RawConnection connection) implements AutoCloseable {

        /** Starts a broker on a thread of a new group, so that the broker's threads are told apart from the other's. */
        static Side start(Path dataDir, String name, boolean recording) throws Exception {
            ThreadGroup group = new ThreadGroup("brook-metrics-" + name);
            AtomicReference<Brook> started = new AtomicReference<>();
            AtomicReference<RuntimeException> failed = new AtomicReference<>();
            Thread starter = new Thread(group, () -> {
                try {
                    Brook b = Brook.builder().port(0).dataDir(dataDir).metricsRecording(recording)
                            // several GB go through the produce workloads: keep a few segments per partition
                            .config("log.segment.bytes", Integer.toString(16 << 20))
                            .config("log.retention.bytes", Integer.toString(48 << 20))
                            .config("log.retention.check.interval.ms", "1000")
                            .start();
                    started.set(b);
                    b.createTopic(BATCHES_TOPIC, 8);
                    b.createTopic(SMALL_TOPIC, 1);
                    b.createTopic(FETCH_TOPIC, 1);
                } catch (RuntimeException e) {
                    failed.set(e);
                }
            }, "brook-metrics-" + name + "-start");
            starter.start();
            starter.join();
            if (failed.get() != null) {
                if (started.get() != null) {
                    started.get().close();
                }
                throw failed.get();
            }
            Brook b = started.get();
            try {
                return new Side(b, group, new RawConnection(b.bootstrapServers()));
            } catch (IOException e) {
                b.close();
                throw e;
            }
        }

        @Override
        public void close() throws IOException {
            try {
                connection.close();
            } finally {
                brook.close();
            }
        }
    }

    private static void prefill(RawConnection c) throws IOException {
        CostWorkload fill = CostWorkload.produce("prefill", FETCH_TOPIC, 1, 16 * 1024, 0, (short) -1);
        for (int i = 0; i < FETCH_PREFILL; i++) {
            c.roundTrip(fill.frame);
            c.check(fill.key, fill.version);
        }
    }

    /**
     * Each broker's CPU over two seconds with no requests: what its rounds carry besides their
     * requests, in proportion to their length, whatever the requests' pace (a slow fsync would
     * otherwise put more of it on each request).
     */
    private double[] idleCpuMsPerSecond(Side on, Side off) throws InterruptedException {
        BrokerCpu.Sample onBefore = cpu.sample(on.threads);
        BrokerCpu.Sample offBefore = cpu.sample(off.threads);
        long t0 = System.nanoTime();
        Thread.sleep(2000);
        BrokerCpu.Sample onAfter = cpu.sample(on.threads);
        BrokerCpu.Sample offAfter = cpu.sample(off.threads);
        double seconds = (System.nanoTime() - t0) / 1e9;
        return new double[] {onAfter.cpuNanosSince(onBefore) / 1e6 / seconds, offAfter.cpuNanosSince(offBefore) / 1e6 / seconds};
    }

    private String measure(CostWorkload w, Side on, Side off, long warmupMillis)
            throws IOException {
        long roundNanos = options.roundMillis * 1_000_000L;
        long warmupEnd = System.nanoTime() + warmupMillis * 1_000_000L;
        do {
            round(w, on, roundNanos);
            round(w, off, roundNanos);
        } while (System.nanoTime() < warmupEnd);
        int n = options.pairs;
        Round[] ons = new Round[n];
        Round[] offs = new Round[n];
        for (int i = 0; i < n; i++) {
            // on, off, off, on, on, off...: a drift within a pair favours neither side
            if (i % 2 == 0) {
                ons[i] = round(w, on, roundNanos).lessIdle(idleOnNanosPerS);
                offs[i] = round(w, off, roundNanos).lessIdle(idleOffNanosPerS);
            } else {
                offs[i] = round(w, off, roundNanos).lessIdle(idleOffNanosPerS);
                ons[i] = round(w, on, roundNanos).lessIdle(idleOnNanosPerS);
            }
        }
        return row(w, ons, offs);
    }

    private Round round(CostWorkload w, Side side, long nanos) throws IOException {
        RawConnection c = side.connection;
        BrokerCpu.Sample before = cpu.sample(side.threads);
        long t0 = System.nanoTime();
        long requests = 0;
        long elapsed;
        do {
            c.roundTrip(w.frame);
            requests++;
            elapsed = System.nanoTime() - t0;
        } while (elapsed < nanos);
        BrokerCpu.Sample after = cpu.sample(side.threads);
        long fetched = c.check(w.key, w.version);
        if (w.key == org.apache.kafka.common.protocol.ApiKeys.FETCH && fetched == 0) {
            throw new IllegalStateException(w.name + ": the fetch returned no records");
        }
        return new Round(requests, elapsed, after.cpuNanosSince(before),
                after.processCpuNanos - before.processCpuNanos, after.allocatedBytesSince(before));
    }

    /** One round's counts. */
    record Round(long requests, long nanos, long cpuNanos, long processCpuNanos, long allocatedBytes) {
        /** This round with the broker's idle CPU over its length taken off its own. */
        Round lessIdle(double idleNanosPerS) {
            return new Round(requests, nanos, cpuNanos - Math.round(idleNanosPerS * nanos / 1e9), processCpuNanos,
                    allocatedBytes);
        }

        double cpuPerRequest() {
            return cpuNanos / (double) requests;
        }

        double processCpuPerRequest() {
            return processCpuNanos / (double) requests;
        }

        double requestsPerSecond() {
            return requests / (nanos / 1e9);
        }

        double allocatedPerRequest() {
            return allocatedBytes / (double) requests;
        }
    }

    private static String row(CostWorkload w, Round[] on, Round[] off) {
        double[] cpuOn = values(on, Round::cpuPerRequest);
        double[] cpuOff = values(off, Round::cpuPerRequest);
        double[] allocOn = values(on, Round::allocatedPerRequest);
        double[] allocOff = values(off, Round::allocatedPerRequest);
        double allocOnMedian = PairedRatios.median(allocOn.clone());
        double allocOffMedian = PairedRatios.median(allocOff.clone());
        String perRecord = w.records == 0 ? "" : String.format(Locale.ROOT, " (%+.2f B/record)",
                (allocOnMedian - allocOffMedian) / w.records);
        return String.format(Locale.ROOT, "| %s | %d | %.1f | %.1f | %s | %s | %,.0f | %,.0f | %s | %,.0f | %,.0f%s |%n",
                w.name, on.length,
                PairedRatios.median(cpuOff.clone()) / 1e3, PairedRatios.median(cpuOn.clone()) / 1e3,
                PairedRatios.of(cpuOn, cpuOff).percent(),
                PairedRatios.of(values(on, Round::processCpuPerRequest), values(off, Round::processCpuPerRequest))
                        .percent(),
                PairedRatios.median(values(off, Round::requestsPerSecond)),
                PairedRatios.median(values(on, Round::requestsPerSecond)),
                PairedRatios.of(values(on, Round::requestsPerSecond), values(off, Round::requestsPerSecond)).percent(),
                allocOffMedian, allocOnMedian, perRecord);
    }

    private static double[] values(Round[] rounds, java.util.function.ToDoubleFunction<Round> f) {
        double[] v = new double[rounds.length];
        for (int i = 0; i < rounds.length; i++) {
            v[i] = f.applyAsDouble(rounds[i]);
        }
        return v;
    }

    private void header(StringBuilder r, Instant started, String loadBefore, double[] idleMsPerS) {
        r.append(String.format(Locale.ROOT, "Metrics cost, %s, commit %s: %d pairs of %d ms rounds per workload, "
                        + "%d cores, Java %s, load average %s at the start.%n",
                started.truncatedTo(ChronoUnit.SECONDS), options.commit, options.pairs, options.roundMillis,
                Runtime.getRuntime().availableProcessors(), Runtime.version(), loadBefore));
        if (options.calibrate) {
            r.append("Calibration: both brokers record metrics (\"off\" is a second recording broker).\n");
        }
        r.append(String.format(Locale.ROOT, "Idle brokers' CPU: %.2f ms per second (on), %.2f (off).%n%n",
                idleMsPerS[0], idleMsPerS[1]));
        r.append("Recording on ÷ off: median of the pairs (95 % interval). Broker CPU: the threads of the broker "
                + "answering, less its idle CPU over the round; process CPU: the whole JVM's (GC, JIT and the idle "
                + "broker too) less the load generator's.\n\n");
        r.append("| workload | pairs | broker CPU µs/request, off | on | broker CPU cost | process CPU cost "
                + "| requests/s, off | on | throughput change | allocated B/request, off | on |\n");
        r.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
    }

    private static String loadAverage() {
        double l = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return l < 0 ? "unknown" : String.format(Locale.ROOT, "%.2f", l);
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }

    /** The command line. */
    record Options(int pairs, long roundMillis, long warmupMillis, String only, Path out, String commit,
            boolean calibrate) {
        static Options parse(String... args) {
            int pairs = 40;
            long roundMillis = 500;
            long warmupMillis = 5000;
            String only = null;
            Path out = null;
            String commit = "unknown";
            boolean calibrate = false;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--quick" -> {
                        pairs = 3;
                        roundMillis = 50;
                        warmupMillis = 200;
                    }
                    case "--pairs" -> pairs = Integer.parseInt(args[++i]);
                    case "--round-ms" -> roundMillis = Long.parseLong(args[++i]);
                    case "--warmup-ms" -> warmupMillis = Long.parseLong(args[++i]);
                    case "--only" -> only = args[++i];
                    case "--out" -> out = Path.of(args[++i]);
                    case "--commit" -> commit = args[++i];
                    case "--calibrate" -> calibrate = true;
                    default -> throw new IllegalArgumentException("unknown option " + args[i]
                            + "; usage: [--quick] [--calibrate] [--pairs N] [--round-ms N] [--warmup-ms N] [--only TEXT] [--out FILE]");
                }
            }
            if (pairs < 1 || roundMillis < 1 || warmupMillis < 0) {
                throw new IllegalArgumentException("--pairs and --round-ms must be positive");
            }
            return new Options(pairs, roundMillis, warmupMillis, only, out, commit, calibrate);
        }
    }
}
