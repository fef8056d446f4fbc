package io.brook.bench.runner;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * {@code bench/run}: measures Brook and the reference Apache Kafka one after the other on
 * loopback, each in its own process, with the same workloads, and writes a Markdown table, a
 * CSV and a PNG chart to {@code bench/results/<timestamp>/}.
 *
 * <p>Exit status: 0 if every workload ran and read back what it wrote, 1 otherwise, 2 for bad
 * arguments.
 */
public final class BenchRunner {
    static final String STARTUP = "start-up: launch → first acked produce";
    static final String WHOLE_RUN = "whole run";

    private final Path out;
    private final Plan plan;
    private final List<Broker> brokers;
    private final Progress progress = new Progress(System.err);
    private final int clockTicks = ProcFs.clockTicks();
    private final List<Result> results = new ArrayList<>();
    /** Only workloads whose name contains one of these run ({@code --only}; start-up and warm-up always do); empty: all. */
    private final List<String> only;
    /** {@code --producer KEY=VALUE}: applied to every workload's producer, and reported. */
    private final Map<String, String> producerOverrides;
    /** {@code --consumer KEY=VALUE}: applied to every consumer, and reported. */
    private final Map<String, String> consumerOverrides;
    /** The broker running now, stopped by the shutdown hook if the runner is interrupted. */
    private volatile Broker.Running current;
    /** {@code --tls} (or {@code --tls-engines}): the produce and consume workloads again over an SSL listener. */
    private boolean tls;
    /** {@code --tls-engines}: Brook's TLS workloads once more with the JDK's engine ({@code brook.ssl.engine=jdk}). */
    private boolean tlsEngines;
    /** {@code --sasl}: the TLS workloads once more over SASL_SSL, logged in with SCRAM-SHA-512. */
    private boolean sasl;
    /** {@code --consumers N}: the consume workload once more with N consumers at once (rows "..., N consumers"). */
    private int consumers = 1;
    /** Whether {@code --consume-records} set the consume workloads' count. */
    private boolean consumeRecordsGiven;
    /** Where the TLS key material is made for the run. */
    private Path tlsDir;
    /** {@code --transaction-version N}: finalized before the transactions workloads; null leaves the broker's level. */
    private Short transactionVersion;
    /** {@code --repeat N}: rounds of every broker, each figure the median over them ({@link Rounds}). */
    private int repeat = 1;

    private BenchRunner(Path out, Plan plan, List<Broker> brokers, List<String> only,
                        Map<String, String> producerOverrides, Map<String, String> consumerOverrides) {
        this.only = only;
        this.producerOverrides = Map.copyOf(producerOverrides);
        this.consumerOverrides = Map.copyOf(consumerOverrides);
        this.out = out;
        this.plan = plan;
        this.brokers = brokers;
    }

    public static void main(String[] args) throws Exception {
        // the clients log connection refusals while a broker starts; only errors matter here
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
        System.setProperty("java.awt.headless", "true");
        boolean quick = false;
        String which = "both";
        Path root = Path.of(".").toAbsolutePath().normalize();
        Path out = null;
        String commit = "unknown";
        String kafkaVersion = "unknown";
        List<String> only = new ArrayList<>();
        String single = null;
        boolean tls = false;
        boolean tlsEngines = false;
        boolean sasl = false;
        int consumers = 1;
        Long consumeRecords = null;
        Short transactionVersion = null;
        int repeat = 1;
        Path resultsFile = null;
        Map<String, String> producerOverrides = new java.util.LinkedHashMap<>();
        Map<String, String> consumerOverrides = new java.util.LinkedHashMap<>();
        Map<String, String> brookOverrides = new java.util.LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--tls" -> tls = true;
                case "--tls-engines" -> {
                    tls = true;
                    tlsEngines = true;
                }
                case "--sasl" -> {
                    tls = true;
                    sasl = true;
                }
                case "--broker" -> which = value(args, ++i);
                case "--root" -> root = Path.of(value(args, ++i)).toAbsolutePath().normalize();
                case "--out" -> out = Path.of(value(args, ++i)).toAbsolutePath().normalize();
                case "--commit" -> commit = value(args, ++i);
                case "--kafka-version" -> kafkaVersion = value(args, ++i);
                case "--only" -> only.add(value(args, ++i));
                case "--producer" -> keyValue(value(args, ++i), producerOverrides);
                case "--consumer" -> keyValue(value(args, ++i), consumerOverrides);
                case "--brook" -> keyValue(value(args, ++i), brookOverrides);
                case "--consumers" -> consumers = consumers(value(args, ++i));
                case "--consume-records" -> consumeRecords = consumeRecords(value(args, ++i));
                case "--transaction-version" -> transactionVersion = transactionVersion(value(args, ++i));
                case "--repeat" -> repeat = repeat(value(args, ++i));
                // internal: one broker in this JVM, results to a file (see measureInChild)
                case "--single" -> single = value(args, ++i);
                case "--results-file" -> resultsFile = Path.of(value(args, ++i));
                default -> usage("unknown argument: " + args[i]);
            }
        }
        if (!List.of("brook", "kafka", "both").contains(which)) {
            usage("--broker must be brook, kafka or both");
        }
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        if (out == null) {
            out = root.resolve("bench/results").resolve(now.format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)));
        }
        Files.createDirectories(out);
        Path work = root.resolve("bench/target/bench-data");
        if (!RunLock.mayRun(single != null, work)) {
            System.err.println("bench/run: another bench/run of this checkout is running (" + work
                    + " is locked); two at once would delete each other's broker data and share the cores they measure");
            System.exit(2);
        }
        List<Broker> brokers = new ArrayList<>();
        if (!which.equals("kafka")) {
            String given = brookOverrides.isEmpty() ? ""
                    : "; with `--override` for each setting given to bench/run with --brook: " + brookOverrides;
            brokers.add(new BrookBroker("brook", root, work.resolve("brook"), out.resolve("brook.log"), brookOverrides,
                    "Brook, default durable mode: `bin/brook --port P --data-dir D`; acks=all is answered after"
                            + " fsync (group commit) and consumers see only fsynced data; JVM -Xms256m -Xmx1g"
                            + " (bin/brook's default)" + given));
            Map<String, String> nofsync = new java.util.LinkedHashMap<>(brookOverrides);
            nofsync.put("brook.fsync.on.ack", "false");
            brokers.add(new BrookBroker("brook-nofsync", root, work.resolve("brook-nofsync"),
                    out.resolve("brook-nofsync.log"), nofsync,
                    "Brook with `--override brook.fsync.on.ack=false`: acks=all is answered once the write"
                            + " reached the OS, like Kafka's defaults; JVM as above" + given));
        }
        if (!which.equals("brook")) {
            brokers.add(new KafkaBroker(root.resolve("compat-tests/kafka/kafka-local.sh"),
                    root.resolve("bench/target/reference-kafka"), out.resolve("kafka.log"),
                    "Apache Kafka " + kafkaVersion + " with its default settings: KRaft single node"
                            + " (broker+controller) started by compat-tests/kafka/kafka-local.sh; acks=all is"
                            + " answered before fsync (the OS flushes its page cache); JVM -Xms1g -Xmx1g"
                            + " (kafka-local.sh)"));
        }
        Plan plan = quick ? Plan.quick() : Plan.full();
        BenchRunner runner = new BenchRunner(out, consumeRecords == null ? plan : plan.withConsumeRecords(consumeRecords),
                brokers, only, producerOverrides, consumerOverrides);
        runner.tls = tls;
        runner.tlsEngines = tlsEngines;
        runner.sasl = sasl;
        runner.consumers = consumers;
        runner.consumeRecordsGiven = consumeRecords != null;
        runner.tlsDir = work.resolve("tls");
        runner.transactionVersion = transactionVersion;
        runner.repeat = repeat;
        if (single != null) {
            if (resultsFile == null) {
                usage("--single needs --results-file");
            }
            System.exit(runner.runOne(single, resultsFile));
        }
        int status = runner.run(now, commit, kafkaVersion, args);
        System.exit(status);
    }

    private static void keyValue(String kv, Map<String, String> into) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
            usage("--producer and --consumer need KEY=VALUE, not " + kv);
        }
        into.put(kv.substring(0, eq), kv.substring(eq + 1));
    }

    private static long consumeRecords(String n) {
        if (!n.matches("[1-9][0-9]{0,9}")) {
            usage("--consume-records must be a positive number, not " + n);
        }
        return Long.parseLong(n);
    }

    private static int consumers(String n) {
        if (!n.matches("[1-8]")) {
            usage("--consumers must be 1 to " + Plan.CONSUME_PARTITIONS + ", not " + n);
        }
        return Integer.parseInt(n);
    }

    private static int repeat(String n) {
        if (!n.matches("\\d{1,2}") || Integer.parseInt(n) < 1 || Integer.parseInt(n) > Rounds.MAX) {
            usage("--repeat must be 1 to " + Rounds.MAX + ", not " + n);
        }
        return Integer.parseInt(n);
    }

    private static short transactionVersion(String level) {
        if (!level.matches("[0-2]")) {
            usage("--transaction-version must be 0, 1 or 2, not " + level);
        }
        return Short.parseShort(level);
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            usage(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    private static void usage(String problem) {
        System.err.println("bench/run: " + problem);
        System.err.println("usage: bench/run [--quick] [--broker brook|kafka|both] [--tls | --tls-engines] [--sasl] [--only TEXT]... [--producer K=V]... [--consumer K=V]... [--brook K=V]... [--consumers N] [--consume-records N] [--transaction-version N] [--repeat N] [--out DIR]");
        System.exit(2);
    }

    /**
     * Measures every broker, each from a fresh runner JVM of its own (the same command line with
     * {@code --single LABEL}), so that no broker's figures profit from client code that an earlier
     * broker's workloads already compiled: each gets the same cold client and the same warm-up.
     */
    private int run(ZonedDateTime started, String commit, String kafkaVersion, String[] args) throws IOException {
        progress.note("results go to " + out);
        AtomicReference<Process> child = new AtomicReference<>();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Process p = child.get();
            if (p != null) {
                p.destroy(); // its own hook stops its broker
                try {
                    p.waitFor(70, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, "stop-child"));
        List<List<Result>> rounds = new ArrayList<>();
        try {
            for (int round = 1; round <= repeat; round++) {
                if (repeat > 1) {
                    progress.note("round " + round + " of " + repeat);
                }
                List<Result> roundResults = new ArrayList<>();
                for (Broker broker : brokers) {
                    roundResults.addAll(measureInChild(broker, args, child));
                }
                rounds.add(roundResults);
            }
        } finally {
            for (Broker broker : brokers) {
                try {
                    broker.deleteData();
                } catch (RuntimeException e) {
                    progress.note("could not delete " + broker.label() + "'s data: " + e.getMessage());
                }
            }
        }
        List<String> labels = new ArrayList<>();
        for (Broker b : brokers) {
            labels.add(b.label());
        }
        results.addAll(repeat == 1 ? rounds.get(0) : Rounds.medians(rounds));
        for (int round = 1; repeat > 1 && round <= rounds.size(); round++) {
            Files.writeString(out.resolve("round-" + round + ".csv"),
                    new Report(labels, "kafka", rounds.get(round - 1)).csv(), StandardCharsets.UTF_8);
        }
        Report report = new Report(labels, "kafka", results);
        String md = header(started, commit, kafkaVersion) + "\n" + report.markdown();
        Files.writeString(out.resolve("results.md"), md, StandardCharsets.UTF_8);
        Files.writeString(out.resolve("results.csv"), report.csv(), StandardCharsets.UTF_8);
        try {
            Chart.write(report, out.resolve("chart.png"));
        } catch (IOException | RuntimeException | Error e) { // no display libraries or fonts: the table still stands
            progress.note("chart not written: " + e);
        }
        System.out.println(md);
        progress.note("wrote " + out.resolve("results.md") + ", results.csv and chart.png");
        if (!report.failures().isEmpty()) {
            progress.note("FAILED: " + report.failures().size() + " workload(s) failed; see the list under the table");
            return 1;
        }
        return 0;
    }

    /** Runs {@code --single} for one broker in a fresh JVM ({@code child} holds it meanwhile) and reads its results. */
    private List<Result> measureInChild(Broker broker, String[] args, AtomicReference<Process> child) throws IOException {
        Path file = out.resolve(broker.label() + ".results.tsv");
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(BenchRunner.class.getName());
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("--out", out.toString(), "--single", broker.label(), "--results-file", file.toString()));
        Process p = new ProcessBuilder(cmd).inheritIO().start();
        child.set(p);
        try {
            p.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        child.set(null);
        if (!Files.exists(file)) {
            return List.of(Result.failed(STARTUP, broker.label(),
                    "the runner for " + broker.label() + " exited with status " + p.exitValue() + " and wrote no results"));
        }
        List<Result> read = ResultsFile.read(file);
        Files.delete(file);
        return read;
    }

    /** {@code --single}: measures one broker in this JVM and writes its results for the parent. */
    private int runOne(String label, Path resultsFile) throws IOException {
        Broker broker = null;
        for (Broker b : brokers) {
            if (b.label().equals(label)) {
                broker = b;
            }
        }
        if (broker == null) {
            usage("--single: no broker " + label);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Broker.Running r = current;
            if (r != null) {
                r.close();
            }
        }, "stop-broker"));
        measure(broker);
        // brook-nofsync differs from brook in its disk writes only, which TLS leaves alone
        if (tls && !label.equals("brook-nofsync")) {
            measureTls(broker);
        }
        ResultsFile.write(resultsFile, results);
        return 0;
    }

    private String header(ZonedDateTime started, String commit, String kafkaVersion) {
        StringBuilder sb = new StringBuilder();
        sb.append("## bench/run").append(plan.quick ? " --quick" : "").append(", ")
                .append(started.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT))).append("\n\n");
        sb.append("- machine: ").append(Machine.describe()).append('\n');
        sb.append("- Brook commit ").append(commit).append("; Apache Kafka ").append(kafkaVersion)
                .append("; clients: kafka-clients ").append(org.apache.kafka.common.utils.internals.AppInfoParser.getVersion())
                .append(" in a fresh runner JVM per broker (Java ").append(System.getProperty("java.version")).append(")\n");
        for (Broker b : brokers) {
            sb.append("- `").append(b.label()).append("`: ").append(b.settings()).append('\n');
        }
        sb.append("- one broker at a time on 127.0.0.1; the runner and the broker share the machine's cores\n");
        if (repeat > 1) {
            sb.append("- --repeat ").append(repeat).append(": every broker measured ").append(repeat)
                    .append(" times, the brokers taking turns in each round; each figure is the median of its ")
                    .append(repeat).append(" values, each ratio the ratio of two medians; every round's own figures in round-1.csv to round-")
                    .append(repeat).append(".csv\n");
        }
        sb.append("- producers: linger.ms=").append(Plan.LINGER_MS).append(", no compression, other settings"
                + " kafka-clients' defaults (idempotence where the acks setting allows it); null keys and the"
                + " default partitioner, except the many-partitions workload, which picks partition i mod n;"
                + " latency: linger.ms=0, consumer in the same JVM, measured from each record's intended send time"
                + " (corrected for coordinated omission), first ")
                .append(plan.latencyWarmup.toMillis()).append(" ms of each rate not recorded\n");
        sb.append("- transactions: one transactional producer (acks=all, linger.ms=").append(Plan.LINGER_MS)
                .append(") commits transactions of N records round-robin over ").append(TransactionalWorkload.PARTITIONS)
                .append(" partitions one after the other; a read_committed consumer in the same JVM; latency from each"
                        + " record's send() to its arrival at that consumer, so it includes the wait for the commit\n");
        if (transactionVersion != null) {
            sb.append("- transaction.version finalized at ").append(transactionVersion).append(" on every broker before"
                    + " the transactions workloads (--transaction-version; 2: transactions V2, KIP-890)\n");
        }
        if (!producerOverrides.isEmpty()) {
            sb.append("- producer settings given with --producer, for every workload: ").append(producerOverrides)
                    .append('\n');
        }
        if (!consumerOverrides.isEmpty()) {
            sb.append("- consumer settings given with --consumer, for every consumer: ").append(consumerOverrides)
                    .append('\n');
        }
        if (!only.isEmpty()) {
            sb.append("- only the workloads whose name contains \"").append(String.join("\" or \"", only)).append("\"\n");
        }
        if (tls) {
            sb.append("- rows \"over TLS\": the broker launched again with an SSL listener beside its PLAINTEXT one"
                    + " (the admin client and the start-up probe use PLAINTEXT), key store PKCS12 with an EC P-256 key"
                    + " made by keytool for the run; producers and consumers with security.protocol=SSL and"
                    + " kafka-clients' TLS defaults (TLSv1.3, host name verification), after a warm-up over TLS;"
                    + " Brook with its default engine (brook.ssl.engine=openssl), Kafka with the JDK's;"
                    + " not run for brook-nofsync\n");
        }
        if (tlsEngines) {
            sb.append("- rows \"over TLS, jdk engine\": Brook launched once more with brook.ssl.engine=jdk\n");
        }
        if (sasl) {
            sb.append(SecureListener.SASL_ROWS);
        }
        if (consumeRecordsGiven) {
            sb.append(String.format(Locale.ROOT, "- consume workloads: %,d records (--consume-records)\n",
                    plan.consumeRecords));
        }
        if (consumers > 1) {
            sb.append("- rows \"..., ").append(consumers).append(" consumers\": the consume workload once more, read by ")
                    .append(consumers).append(" consumers at once, each on its own thread with every ").append(consumers)
                    .append("th partition (--consumers)\n");
        }
        sb.append("- MB = 10^6 bytes of record values; broker CPU = utime+stime of the broker process over the"
                + " measured phase; peak RSS = VmHWM; start-up = from the broker process's start (/proc start"
                + " time; for Kafka after kafka-local.sh formatted its storage) to the first acknowledged"
                + " produce, the median of " + (plan.quick ? 1 : 3) + " launches after one that warms the"
                + " client and is not counted; client CPU = the runner's own process; broker+kernel CPU = the"
                + " machine's busy CPU (/proc/stat) less the runner's, from the start of a write workload until"
                + " a `sync` after it returned, so that the page writeback of what a broker left dirty counts"
                + " (Kafka's happens later in kernel threads, outside its process); every workload read back"
                + " what it wrote and compared counts per partition\n");
        sb.append("- ratio columns: Brook ÷ Kafka; higher is better for records/s and MB/s, lower for every other"
                + " figure\n");
        return sb.toString();
    }

    private void measure(Broker broker) {
        String label = broker.label();
        int port;
        try {
            port = freePortPair();
        } catch (IOException e) {
            results.add(Result.failed(STARTUP, label, "no free port: " + e));
            return;
        }
        // Launches before the one that serves the workloads: the first warms the runner's own client
        // code (a cold kafka-clients would otherwise count against whichever broker it meets), the
        // others add samples; start-up is the median of the measured launches.
        List<Long> startups = new ArrayList<>();
        int extraLaunches = plan.quick ? 1 : 3;
        for (int i = 0; i < extraLaunches; i++) {
            progress.step(label, "launch and first acknowledged produce (" + (i == 0 ? "warms the client, not counted"
                    : "sample " + i) + ")");
            try {
                int p = freePortPair();
                try (KafkaProducer<byte[], byte[]> probe = Workloads.startupProducer("127.0.0.1:" + p)) {
                    Broker.Running r = broker.launch(p);
                    current = r;
                    try {
                        long ms = Workloads.firstAck(probe, r) - ProcFs.startEpochMillis(r.pid(), clockTicks);
                        if (i > 0) {
                            startups.add(ms);
                        }
                        progress.done(String.format(Locale.ROOT, "first ack %,d ms after launch", ms));
                    } finally {
                        r.close();
                        current = null;
                    }
                }
            } catch (Exception e) {
                results.add(Result.failed(STARTUP, label, describe(e)));
                progress.done("FAILED: " + describe(e));
                return;
            }
        }
        progress.step(label, "launch and first acknowledged produce");
        Broker.Running running = null;
        try (KafkaProducer<byte[], byte[]> probe = Workloads.startupProducer("127.0.0.1:" + port)) {
            running = broker.launch(port);
            current = running;
            long pid;
            try {
                long ackMillis = Workloads.firstAck(probe, running);
                pid = running.pid();
                startups.add(ackMillis - ProcFs.startEpochMillis(pid, clockTicks));
                long median = median(startups);
                results.add(Result.of(STARTUP, label)
                        .put(Metric.STARTUP_MS, (double) median)
                        .put(Metric.PEAK_RSS_MIB, (double) ProcFs.peakRssBytes(pid) / (1024 * 1024))
                        .build());
                progress.done(String.format(Locale.ROOT, "first ack %,d ms after launch; median of %d launches %,d ms"
                        + " (all: %s; pid %d)", startups.get(startups.size() - 1), startups.size(), median, startups,
                        pid));
            } catch (Exception e) {
                results.add(Result.failed(STARTUP, label, describe(e)));
                progress.done("FAILED: " + describe(e));
                return;
            }
            try (Workloads w = new Workloads(running.bootstrap(), label, pid, clockTicks, progress,
                    Workloads.IDLE_LIMIT, producerOverrides, consumerOverrides)) {
                Broker.Running r = running;
                step(r, label, "warm-up (not reported)", () -> {
                    w.warmUp(plan.warmupRecords);
                    return null;
                });
                for (Plan.ProduceCell cell : plan.produce) {
                    step(r, label, cell.name(), () -> w.produce(cell, plan.produceRecords(cell)));
                }
                step(r, label, Workloads.consumeName(), () -> w.consume(plan.consumeRecords));
                if (consumers > 1) {
                    step(r, label, Workloads.consumeName(consumers), () -> w.consume(plan.consumeRecords, consumers));
                }
                for (int rate : plan.latencyRates) {
                    step(r, label, Workloads.latencyName(rate),
                            () -> w.latency(rate, plan.latencyDuration, plan.latencyWarmup));
                }
                step(r, label, Workloads.manyPartitionsName(plan.manyPartitions),
                        () -> w.manyPartitions(plan.manyPartitions, plan.manyPartitionRecords));
                for (boolean sessions : new boolean[] {true, false}) {
                    step(r, label, FetchSessionWorkload.name(plan.manyPartitions, sessions),
                            () -> FetchSessionWorkload.run(w, r.bootstrap(), label, pid, clockTicks,
                                    plan.manyPartitions, plan.fetchSessionDuration, sessions));
                }
                for (int perTransaction : Plan.RECORDS_PER_TRANSACTION) {
                    step(r, label, TransactionalWorkload.name(perTransaction),
                            () -> {
                                if (transactionVersion != null) {
                                    TransactionalWorkload.finalizeTransactionVersion(w.admin(), transactionVersion);
                                }
                                return TransactionalWorkload.run(w, label, pid, clockTicks, perTransaction,
                                        plan.transactionalRecords / perTransaction, Workloads.IDLE_LIMIT);
                            });
                }
            }
            results.add(Result.of(WHOLE_RUN, label)
                    .put(Metric.PEAK_RSS_MIB, (double) ProcFs.peakRssBytes(pid) / (1024 * 1024)).build());
        } catch (Exception e) {
            // start-up failures were recorded above; this is a launch or a run that broke down
            results.add(Result.failed(running == null ? STARTUP : WHOLE_RUN, label, describe(e)));
            progress.done("FAILED: " + describe(e));
        } finally {
            if (running != null) {
                progress.step(label, "stopping");
                running.close();
                current = null;
            }
        }
    }

    /**
     * The produce cells and the consume workload over an SSL listener, once per TLS engine asked
     * for, and over SASL_SSL with {@code --sasl}.
     */
    private void measureTls(Broker broker) {
        String label = broker.label();
        TlsSetup material;
        try {
            material = TlsSetup.create(tlsDir);
        } catch (IOException | RuntimeException e) {
            results.add(Result.failed(Workloads.consumeName() + " over TLS", label, describe(e)));
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        List<SecureListener> listeners = new ArrayList<>();
        listeners.add(new SecureListener(null, false));
        if (tlsEngines && broker instanceof BrookBroker) {
            listeners.add(new SecureListener("jdk", false));
        }
        if (sasl) {
            listeners.add(new SecureListener(null, true));
        }
        for (SecureListener listener : listeners) {
            String suffix = listener.suffix();
            progress.step(label, listener.describe());
            Broker.Running running = null;
            try {
                int port = freePortPair();
                int tlsPort = freePortPair();
                if (tlsPort == port + 1) {
                    tlsPort = freePortPair();
                }
                try (KafkaProducer<byte[], byte[]> probe = Workloads.startupProducer("127.0.0.1:" + port)) {
                    running = broker.launchTls(port, tlsPort, material, listener.engine(), listener.sasl());
                    current = running;
                    Workloads.firstAck(probe, running);
                }
                long pid = running.pid();
                progress.done("ready (pid " + pid + "; a client of this JVM negotiates "
                        + material.negotiated("127.0.0.1", tlsPort) + ")");
                String secureBootstrap = "127.0.0.1:" + tlsPort;
                Map<String, String> client = listener.sasl() ? material.saslClientSettings(secureBootstrap)
                        : material.clientSettings(secureBootstrap);
                Map<String, String> producerSettings = new java.util.LinkedHashMap<>(producerOverrides);
                producerSettings.putAll(client);
                Map<String, String> consumerSettings = new java.util.LinkedHashMap<>(consumerOverrides);
                consumerSettings.putAll(client);
                try (Workloads w = new Workloads(running.bootstrap(), label, pid, clockTicks, progress,
                        Workloads.IDLE_LIMIT, producerSettings, consumerSettings)) {
                    Broker.Running r = running;
                    step(r, label, "warm-up" + suffix + " (not reported)", () -> {
                        w.warmUp(plan.warmupRecords);
                        return null;
                    });
                    for (Plan.ProduceCell cell : plan.produce) {
                        String name = cell.name() + suffix;
                        step(r, label, name, () -> w.produce(cell, plan.produceRecords(cell)).renamed(name));
                    }
                    String name = Workloads.consumeName() + suffix;
                    step(r, label, name, () -> w.consume(plan.consumeRecords).renamed(name));
                    if (consumers > 1) {
                        String parallel = Workloads.consumeName(consumers) + suffix;
                        step(r, label, parallel, () -> w.consume(plan.consumeRecords, consumers).renamed(parallel));
                    }
                }
            } catch (Exception e) {
                results.add(Result.failed(Workloads.consumeName() + suffix, label, describe(e)));
                progress.done("FAILED: " + describe(e));
            } finally {
                if (running != null) {
                    progress.step(label, "stopping");
                    running.close();
                    current = null;
                }
            }
        }
        Files2.deleteTree(tlsDir);
    }

    static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        java.util.Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private interface Step {
        Result run() throws Exception;
    }

    /** Runs one workload; {@code name} is the workload's row in the report, also when it fails. */
    private void step(Broker.Running running, String label, String name, Step step) {
        if (!only.isEmpty() && only.stream().noneMatch(name::contains) && !name.startsWith("warm-up")) {
            return;
        }
        progress.step(label, name);
        if (!running.alive()) {
            results.add(Result.failed(name, label, "the broker is not running"));
            progress.done("FAILED: the broker is not running");
            return;
        }
        try {
            Result r = step.run();
            if (r != null) {
                results.add(r);
                progress.done(summary(r));
            } else {
                progress.done("done");
            }
        } catch (Exception e) {
            results.add(Result.failed(name, label, describe(e)));
            progress.done("FAILED: " + describe(e));
        }
    }

    private static String summary(Result r) {
        StringBuilder sb = new StringBuilder();
        r.values.forEach((m, v) -> {
            if (m != Metric.BROKER_CPU_S_PER_GB && m != Metric.MACHINE_CPU_S_PER_GB) {
                sb.append(sb.length() == 0 ? "" : ", ").append(m.format(v)).append(' ').append(m.label);
            }
        });
        return sb.toString();
    }

    private static String describe(Throwable e) {
        String s = e.getClass().getSimpleName() + ": " + e.getMessage();
        return e.getCause() != null && e.getCause() != e ? s + " (cause: " + e.getCause() + ")" : s;
    }

    /** A free port P on loopback whose neighbour P+1 is free too (Kafka's controller listens there). */
    static int freePortPair() throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        for (int attempt = 0; attempt < 50; attempt++) {
            try (ServerSocket a = new ServerSocket(0, 1, loopback)) {
                int p = a.getLocalPort();
                if (p >= 65535) {
                    continue;
                }
                try {
                    new ServerSocket(p + 1, 1, loopback).close();
                    return p;
                } catch (IOException taken) {
                    // try another
                }
            }
        }
        throw new IOException("no two adjacent free ports on loopback after 50 attempts");
    }
}
