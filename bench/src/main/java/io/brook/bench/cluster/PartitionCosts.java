package io.brook.bench.cluster;

import io.brook.storage.Log;
import io.brook.storage.LogConfig;
import io.brook.storage.LogManager;
import io.brook.storage.LogManagerOptions;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What one partition costs the broker that hosts it, from the storage code as it is: the log
 * manager (defaults, background threads on, as the server opens it) creates {@code count} empty
 * partitions, then one small batch is appended to each and made durable. Counted: this process's
 * open descriptors ({@code /proc/self/fd}), memory mappings of the data directory ({@code
 * /proc/self/maps}), heap after GC, and the directory's apparent and allocated bytes ({@code du}).
 */
final class PartitionCosts {
    private final Figures out;
    private final Path dir;

    PartitionCosts(Figures out, Path dir) {
        this.out = out;
        this.dir = dir;
    }

    private record Usage(long fds, long maps, long heap, long apparentKiB, long allocatedKiB) {
    }

    private Usage usage(Path data) throws IOException, InterruptedException {
        long fds;
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            fds = s.count();
        }
        String prefix = data.toAbsolutePath().toString();
        long maps = Files.readAllLines(Path.of("/proc/self/maps"), StandardCharsets.UTF_8).stream()
                .filter(l -> l.contains(prefix)).count();
        return new Usage(fds, maps, HeapMeter.usedAfterGc(), du(data, true), du(data, false));
    }

    private static long du(Path data, boolean apparent) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("du", "-sk"));
        if (apparent) {
            cmd.add("--apparent-size");
        }
        cmd.add(data.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (p.waitFor() != 0) {
            throw new IOException("du failed: " + text);
        }
        return Long.parseLong(text.split("\\s+")[0]);
    }

    void measure(int count) throws Exception {
        Path data = Files.createTempDirectory(dir, "partitions");
        LogConfig config = LogConfig.defaults();
        out.section("Broker side: " + count + " partitions on one log manager (storage defaults, background threads on)");
        out.line("%-34s %10s %10s %14s %14s %14s", "state", "fds", "mappings", "heap bytes", "apparent KiB",
                "allocated KiB");
        try (LogManager manager = LogManager.open(new LogManagerOptions(data).defaults(config))) {
            Usage base = usage(data);
            row("no partition yet", base, base, 1);
            List<Log> logs = new ArrayList<>(count);
            for (int p = 0; p < count; p++) {
                logs.add(manager.getOrCreateLog("cost", p, config));
            }
            Usage empty = usage(data);
            row("per partition, empty", empty, base, count);
            for (Log log : logs) {
                RecordBatchBuilder b = new RecordBatchBuilder(Compression.NONE);
                b.append(1_700_000_000_000L, null, new byte[100]);
                if (log.append(b.build(), 0).error() != Errors.NONE) {
                    throw new IllegalStateException("append failed");
                }
            }
            for (Log log : logs) {
                log.whenDurable(log.logEndOffset()).get(60, TimeUnit.SECONDS);
            }
            Usage written = usage(data);
            row("per partition, one 100 B record", written, base, count);
        }
        QuorumCosts.deleteTree(data);
    }

    private void row(String state, Usage u, Usage base, int count) {
        if (count == 1) {
            out.line("%-34s %10d %10d %,14d %,14d %,14d   (totals of the empty manager)", state, u.fds(), u.maps(),
                    u.heap(), u.apparentKiB(), u.allocatedKiB());
            return;
        }
        out.line("%-34s %10.2f %10.2f %,14d %14.1f %14.1f", state, (u.fds() - base.fds()) / (double) count,
                (u.maps() - base.maps()) / (double) count, (u.heap() - base.heap()) / count,
                (u.apparentKiB() - base.apparentKiB()) / (double) count,
                (u.allocatedKiB() - base.allocatedKiB()) / (double) count);
    }
}
