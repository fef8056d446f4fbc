package io.brook.reliability;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code reliability/run}: runs the scenarios one after the other against {@code bin/brook}
 * processes on loopback and writes {@code results.md} and {@code results.csv} to
 * {@code reliability/results/<timestamp>/} (or {@code --out}), with each broker's log beside them.
 *
 * <p>Exit status: 0 if every scenario that ran passed, 1 if one failed, 2 for bad arguments.
 */
public final class ReliabilityRunner {

    private ReliabilityRunner() {
    }

    public static void main(String[] args) throws Exception {
        // the clients log every refused connection while a broker restarts; only errors matter here
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
        boolean quick = false;
        String only = null;
        Path root = Path.of(".").toAbsolutePath().normalize();
        Path out = null;
        String commit = "unknown";
        long seed = System.currentTimeMillis();
        double loadQuota = 0;
        Map<String, String> brokerOverrides = new TreeMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--only" -> only = value(args, ++i);
                case "--out" -> out = Path.of(value(args, ++i)).toAbsolutePath().normalize();
                case "--root" -> root = Path.of(value(args, ++i)).toAbsolutePath().normalize();
                case "--commit" -> commit = value(args, ++i);
                case "--seed" -> seed = Long.parseLong(value(args, ++i));
                case "--overload-request-percentage" -> loadQuota = Double.parseDouble(value(args, ++i));
                case "--broker-override" -> {
                    String kv = value(args, ++i);
                    int eq = kv.indexOf('=');
                    if (eq <= 0) {
                        usage("--broker-override needs key=value, got " + kv);
                    }
                    brokerOverrides.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
                default -> usage("unknown argument: " + args[i]);
            }
        }
        List<Scenario> scenarios = new ArrayList<>();
        List<Scenario> all = scenarios(quick, loadQuota);
        // a whole name picks that scenario alone (crash-loop is part of cluster-crash-loop's name)
        String whole = only;
        boolean exact = only != null && all.stream().anyMatch(s -> s.name().equals(whole));
        for (Scenario s : all) {
            if (only == null || (exact ? s.name().equals(only) : s.name().contains(only))) {
                scenarios.add(s);
            }
        }
        if (scenarios.isEmpty()) {
            usage("no scenario matches --only " + only + " (crash-loop, cluster-crash-loop, power-cut, cluster-power-cut, quorum-power-cut, large-data-restart, disk-full, wire-fuzz, sasl-fuzz, tls-fuzz, overload)");
        }
        ZonedDateTime started = ZonedDateTime.now(ZoneOffset.UTC);
        if (out == null) {
            out = root.resolve("reliability/results")
                    .resolve(started.format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)));
        }
        Files.createDirectories(out);
        Path work = root.resolve("reliability/target/reliability-data");
        Files.createDirectories(work);
        Progress progress = new Progress(System.err);
        progress.note("results go to " + out + " (seed " + seed + ")");
        Env env = new Env(BrokerLauncher.binBrook(root).withOverrides(brokerOverrides), work, out, progress, seed);

        List<ScenarioResult> results = new ArrayList<>();
        for (Scenario s : scenarios) {
            results.add(Scenario.execute(s, env));
            Report.write(out, header(started, commit, quick, seed, work, env), results); // also after each one
        }
        boolean failed = results.stream().anyMatch(r -> r.status() == ScenarioResult.Status.FAIL);
        progress.note((failed ? "FAILED" : "done") + ": " + out.resolve("results.md"));
        System.exit(failed ? 1 : 0);
    }

    /** The scenarios; {@code loadQuota} &gt; 0: the overload's load clients get that default request_percentage. */
    static List<Scenario> scenarios(boolean quick, double loadQuota) {
        Overload.Params overload = quick ? Overload.Params.quick() : Overload.Params.full();
        return List.of(
                new CrashLoop(quick ? CrashLoop.Params.quick() : CrashLoop.Params.full(), false),
                // a cluster node takes a session time-out (9 s) to be ready again: 50 kills at full size
                new CrashLoop(quick ? CrashLoop.Params.quick() : CrashLoop.Params.full().withKills(50), true),
                // each run of the broker on a FUSE file system that a power cut follows
                new CrashLoop(quick ? CrashLoop.Params.quick().withKills(10) : CrashLoop.Params.full().withKills(50), false,
                        true),
                new CrashLoop(quick ? CrashLoop.Params.quick().withKills(6) : CrashLoop.Params.full().withKills(20), true,
                        true),
                // exactly-once copying in transactions, the broker cut under it
                new TransactionalPowerCut(quick ? TransactionalPowerCut.Params.quick() : TransactionalPowerCut.Params.full()),
                // three voters on three FUSE file systems, all cut at once
                new QuorumPowerCut(quick ? QuorumPowerCut.Params.quick() : QuorumPowerCut.Params.full()),
                quick ? LargeDataRestart.quick() : LargeDataRestart.full(),
                new DiskFull(quick ? DiskFull.Params.quick() : DiskFull.Params.full()),
                new WireFuzz(quick ? WireFuzz.quick() : WireFuzz.full()),
                new SaslFuzz(quick ? SaslFuzz.quick() : SaslFuzz.full()),
                new TlsFuzz(quick ? TlsFuzz.quick() : TlsFuzz.full()),
                new Overload(loadQuota > 0 ? overload.withLoadRequestPercentage(loadQuota) : overload));
    }

    private static String header(ZonedDateTime started, String commit, boolean quick, long seed, Path work, Env env) {
        return "- date: " + started.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME) + "\n"
                + "- commit: " + commit + "\n"
                + "- size: " + (quick ? "--quick" : "full") + "; seed " + seed + " (`--seed " + seed + "` repeats the"
                + " random choices)\n"
                + "- broker: " + env.launcher().description() + "\n"
                + Machine.describe(work);
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            usage(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    private static void usage(String problem) {
        System.err.println("reliability/run: " + problem);
        System.err.println("usage: reliability/run [--quick] [--only NAME] [--out DIR] [--seed N]"
                + " [--overload-request-percentage P] [--broker-override key=value]...");
        System.exit(2);
    }
}
