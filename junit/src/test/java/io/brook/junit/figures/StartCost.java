package io.brook.junit.figures;

import io.brook.server.Brook;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Where the first broker of a JVM spends its CPU: one run in this JVM of a broker started as the
 * extension starts it (port 0, fault seams, topic "t"), then a new producer's first record. Prints,
 * for each phase (the broker's start, the first produce), the classes the JVM loaded and each
 * thread's CPU time from {@code /proc/self/task/<tid>/schedstat}, JIT compiler threads included,
 * grouped by thread name with digits dropped; threads that ended within the phase (the listener's
 * bind thread) are the rest of the process's CPU, as "(ended threads)". CPU counts do not depend on
 * how loaded the machine is the way wall-clock times do (they do somewhat: caches, frequency).
 *
 * <p>With {@code -Dbrook.client.warmup=true} the extension's client warm-up runs beside the
 * broker's start, as the extension starts it; its thread's CPU then shows in the start phase,
 * as "brook-client-wa" (or under the ended threads once it is done).
 *
 * <pre>java -cp &lt;junit test class path&gt; io.brook.junit.figures.StartCost</pre>
 */
public final class StartCost {

    private StartCost() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("io.netty.jfr.enabled", System.getProperty("io.netty.jfr.enabled", "false"));
        Snapshot before = Snapshot.take();
        long t0 = System.nanoTime();
        if (Boolean.getBoolean("brook.client.warmup")) {
            Method startOnce = Class.forName("io.brook.junit.ClientWarmup")
                    .getDeclaredMethod("startOnce", boolean.class, ClassLoader.class);
            startOnce.setAccessible(true);
            startOnce.invoke(null, true, StartCost.class.getClassLoader());
        }
        Brook brook = Brook.builder().port(0).faults(true).start();
        brook.createTopic("t", 1);
        long started = System.nanoTime();
        Snapshot afterStart = Snapshot.take();
        FirstProduce.produce(brook.bootstrapServers());
        long produced = System.nanoTime();
        Snapshot afterProduce = Snapshot.take();
        brook.close();
        print("start", before, afterStart, (started - t0) / 1e6);
        print("first-produce", afterStart, afterProduce, (produced - started) / 1e6);
    }

    private static void print(String phase, Snapshot from, Snapshot to, double wallMs) {
        Map<String, Double> byName = new TreeMap<>();
        double live = 0;
        for (Map.Entry<Integer, Thread> e : to.threads.entrySet()) {
            Thread was = from.threads.get(e.getKey());
            double ms = (e.getValue().cpuNanos - (was == null ? 0 : was.cpuNanos)) / 1e6;
            live += ms;
            byName.merge(e.getValue().name.replaceAll("[0-9]+", "#"), ms, Double::sum);
        }
        double ended = 0;
        for (Map.Entry<Integer, Thread> e : from.threads.entrySet()) {
            if (!to.threads.containsKey(e.getKey())) {
                ended -= e.getValue().cpuNanos / 1e6; // its CPU before the phase is in the process's too
            }
        }
        double total = (to.processNanos - from.processNanos) / 1e6;
        ended += total - live;
        System.out.printf(Locale.ROOT, "phase=%s wall_ms=%.0f cpu_ms=%.0f classes_loaded=%d%n", phase, wallMs, total,
                to.classes - from.classes);
        byName.entrySet().stream().filter(e -> e.getValue() >= 1)
                .sorted((a, b) -> Double.compare(b.getValue(), a.getValue()))
                .forEach(e -> System.out.printf(Locale.ROOT, "  %-34s %7.1f ms%n", e.getKey(), e.getValue()));
        System.out.printf(Locale.ROOT, "  %-34s %7.1f ms%n", "(ended threads)", ended);
    }

    private record Thread(String name, long cpuNanos) {
    }

    private record Snapshot(Map<Integer, Thread> threads, long processNanos, long classes) {
        static Snapshot take() throws IOException {
            long classes = ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount();
            Map<Integer, Thread> threads = new TreeMap<>();
            try (Stream<Path> tasks = Files.list(Paths.get("/proc/self/task"))) {
                for (Path task : (Iterable<Path>) tasks::iterator) {
                    try {
                        String name = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).trim();
                        long cpu = Long.parseLong(Files.readString(task.resolve("schedstat"), StandardCharsets.UTF_8).split(" ")[0]);
                        threads.put(Integer.parseInt(task.getFileName().toString()), new Thread(name, cpu));
                    } catch (IOException e) {
                        // the thread ended meanwhile
                    }
                }
            }
            long process = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                    .getProcessCpuTime();
            return new Snapshot(threads, process, classes);
        }
    }
}
