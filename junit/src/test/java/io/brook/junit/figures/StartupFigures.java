package io.brook.junit.figures;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The figures of the README's "Brook as the test broker" section: for Brook through the JUnit
 * extension and for Kafka's {@code KafkaClusterTestKit}, the time from test start to the first
 * acknowledged produce, the jars the test broker adds to a test class path, and the memory of
 * each broker. Run by {@code junit/startup-figures}, which builds the class paths; each variant
 * runs {@code --runs} times, each time in a fresh JVM, and the medians are printed.
 *
 * <p>Methods. <b>First produce</b>: JUnit's launcher runs the variant's test class, whose
 * {@value #BROKERS_IN_SEQUENCE} tests each get their own broker; the clock starts when JUnit
 * starts a test (before the extension's or the {@code @BeforeEach} start of the broker) and stops
 * when a new producer's first record (acks=all, topic created before the test) is acknowledged.
 * The first test pays for loading the broker's classes in the JVM, the later ones show a broker
 * started after another. <b>Jars</b>: the test broker's runtime class path less what a test of a
 * Kafka application has anyway (JUnit, kafka-clients with its compression libraries, SLF4J's API).
 * <b>Classes loaded</b>: the JVM's count when the tests end (its class-loading MXBean), a figure
 * that, unlike the times, a busy machine does not change.
 * <b>Memory</b>: after the tests, brokers are started one after another and kept running (each
 * with topic "t" and one record); after each start the heap is collected and its used size and
 * the process's resident set (VmRSS) are read; a broker's share is the growth from one running
 * broker to {@value #BROKERS_IN_MEMORY}, divided by the brokers added.
 * <b>The client's own share</b> (variant {@code client}): a new JVM whose first producer sends
 * its first record to a broker that is already running and warm (in the JVM that runs the
 * variant), timed from the JVM's {@code main}. It is what kafka-clients costs in a new JVM with
 * any broker, and so the floor of the first test's time for every test broker.
 */
public final class StartupFigures {
    static final int BROKERS_IN_SEQUENCE = 5;
    static final int BROKERS_IN_MEMORY = 4;

    /** File names of what a Kafka client test has on its class path without any test broker. */
    private static final Pattern BASELINE = Pattern.compile(
            "(junit-|opentest4j|apiguardian|zstd-jni|lz4-java|snappy-java|slf4j-api).*|kafka-clients-[0-9.]+\\.jar");

    private static final Set<String> SUMMARIZED = Set.of("first_ms", "later_ms", "heap_mb_per_broker", "rss_mb_per_broker",
            "classes_loaded");

    private StartupFigures() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        String variant = opts.getOrDefault("variant", "brook");
        if (!variant.equals("brook") && !variant.equals("kafka") && !variant.equals("client")) {
            throw new IllegalArgumentException("--variant is brook, kafka or client");
        }
        int runs = Integer.parseInt(opts.getOrDefault("runs", "0"));
        if (variant.equals("client")) {
            clientShare(runs, opts.get("bootstrap"));
        } else if (runs > 0) {
            summarize(variant, runs, opts.getOrDefault("added-classpath", ""));
        } else {
            measureOnce(variant);
        }
    }

    /**
     * The client's own share: with {@code runs > 0}, starts a warm broker here and runs the
     * client-only JVMs against it; otherwise (in such a JVM) times the first produce to {@code bootstrap}.
     */
    private static void clientShare(int runs, String bootstrap) throws Exception {
        if (runs <= 0) {
            long started = System.nanoTime();
            FirstProduce.produce(bootstrap);
            System.out.println("figures variant=client first_ms=" + fmt((FirstProduce.acknowledged().get(0) - started) / 1e6));
            return;
        }
        try (AutoCloseable broker = BrookBrokers.startWithTopic()) {
            Map<String, List<Double>> values = runJvms("client", runs, List.of("--bootstrap", BrookBrokers.bootstrapServers(broker)));
            System.out.printf(Locale.ROOT, "summary variant=client runs=%d first_ms=%s%n", runs,
                    fmt(median(values.get("first_ms"))));
        }
    }

    /** One run in this JVM: prints one line of figures, {@code figures key=value...}. */
    private static void measureOnce(String variant) throws Exception {
        List<Long> started = Collections.synchronizedList(new ArrayList<>());
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        TestExecutionListener listener = new TestExecutionListener() {
            @Override
            public void executionStarted(TestIdentifier test) {
                if (test.isTest()) {
                    started.add(System.nanoTime());
                }
            }

            @Override
            public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                    failures.add(test.getDisplayName() + ": " + result.getThrowable().map(Throwable::toString).orElse("?"));
                }
            }
        };
        Class<?> testClass = variant.equals("brook") ? BrookStartupCase.class : KafkaTestKitStartupCase.class;
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectClass(testClass)).build();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(request, listener);
        // what the JVM loaded for the tests (the runner's own few hundred classes included): unlike
        // the times, the same on a busy machine as on a quiet one
        long classesLoaded = ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount();
        if (!failures.isEmpty() || FirstProduce.acknowledged().size() != BROKERS_IN_SEQUENCE) {
            throw new IllegalStateException("the start-up tests failed: " + failures);
        }
        List<Long> acknowledged = FirstProduce.acknowledged();
        List<Double> millis = new ArrayList<>();
        for (int i = 0; i < BROKERS_IN_SEQUENCE; i++) {
            millis.add((acknowledged.get(i) - started.get(i)) / 1e6);
        }

        List<AutoCloseable> running = new ArrayList<>();
        long[] heap = new long[BROKERS_IN_MEMORY + 1];
        long[] rss = new long[BROKERS_IN_MEMORY + 1];
        try {
            for (int n = 1; n <= BROKERS_IN_MEMORY; n++) {
                running.add(variant.equals("brook") ? BrookBrokers.startWithTopic() : kafkaWithTopic());
                heap[n] = heapUsedAfterGc();
                rss[n] = residentBytes();
            }
        } finally {
            for (AutoCloseable broker : running) {
                broker.close();
            }
        }
        double heapPerBroker = (heap[BROKERS_IN_MEMORY] - heap[1]) / (BROKERS_IN_MEMORY - 1.0) / (1 << 20);
        double rssPerBroker = (rss[BROKERS_IN_MEMORY] - rss[1]) / (BROKERS_IN_MEMORY - 1.0) / (1 << 20);
        StringBuilder line = new StringBuilder("figures variant=" + variant);
        line.append(" first_ms=").append(fmt(millis.get(0)));
        line.append(" later_ms=").append(fmt(median(millis.subList(1, millis.size()))));
        line.append(" all_ms=").append(millis.stream().map(StartupFigures::fmt).reduce((a, b) -> a + "," + b).orElse(""));
        line.append(" heap_mb_per_broker=").append(fmt(heapPerBroker));
        line.append(" rss_mb_per_broker=").append(fmt(rssPerBroker));
        line.append(" heap_mb_one_broker=").append(fmt(heap[1] / (double) (1 << 20)));
        line.append(" classes_loaded=").append(classesLoaded);
        System.out.println(line);
    }

    private static AutoCloseable kafkaWithTopic() throws Exception {
        KafkaTestKitStartupCase c = new KafkaTestKitStartupCase();
        c.startCluster();
        c.firstProduce();
        return c::stopCluster;
    }

    private static long heapUsedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long residentBytes() throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.UTF_8)) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        return 0;
    }

    /** Runs {@code runs} fresh JVMs of this class (same java, options, class path) and prints medians. */
    private static void summarize(String variant, int runs, String addedClassPath) throws Exception {
        Map<String, List<Double>> values = runJvms(variant, runs, List.of());
        long[] jars = addedJars(addedClassPath);
        System.out.printf(Locale.ROOT,
                "summary variant=%s runs=%d first_ms=%s later_ms=%s heap_mb_per_broker=%s rss_mb_per_broker=%s added_jars=%d added_mb=%.1f"
                        + " classes_loaded=%.0f%n",
                variant, runs, fmt(median(values.get("first_ms"))), fmt(median(values.get("later_ms"))),
                fmt(median(values.get("heap_mb_per_broker"))), fmt(median(values.get("rss_mb_per_broker"))),
                jars[0], jars[1] / 1048576.0, median(values.get("classes_loaded")));
    }

    /** Runs {@code runs} fresh JVMs of this class for {@code variant}; the summarized figures of each, by key. */
    private static Map<String, List<Double>> runJvms(String variant, int runs, List<String> extraArgs) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), StartupFigures.class.getName(),
                "--variant", variant));
        command.addAll(extraArgs);
        Map<String, List<Double>> values = new HashMap<>();
        for (int r = 1; r <= runs; r++) {
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String figures = null;
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    if (line.startsWith("figures ")) {
                        figures = line;
                    }
                }
            }
            if (p.waitFor() != 0 || figures == null) {
                throw new IllegalStateException(variant + " run " + r + " failed (exit " + p.exitValue() + ")");
            }
            System.out.println("run " + r + ": " + figures);
            for (String kv : figures.split(" ")) {
                int eq = kv.indexOf('=');
                String key = eq < 0 ? "" : kv.substring(0, eq);
                if (SUMMARIZED.contains(key)) {
                    values.computeIfAbsent(key, k -> new ArrayList<>()).add(Double.parseDouble(kv.substring(eq + 1)));
                }
            }
        }
        return values;
    }

    /** Count and bytes of the class path entries not in {@link #BASELINE}. */
    private static long[] addedJars(String classPath) throws IOException {
        long count = 0;
        long bytes = 0;
        for (String entry : classPath.split(File.pathSeparator)) {
            if (entry.isBlank()) {
                continue;
            }
            Path path = Paths.get(entry);
            if (BASELINE.matcher(path.getFileName().toString()).matches()) {
                continue;
            }
            count++;
            bytes += size(path);
        }
        return new long[] {count, bytes};
    }

    private static long size(Path path) throws IOException {
        if (!Files.isDirectory(path)) {
            return Files.size(path);
        }
        try (Stream<Path> files = Files.walk(path)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
