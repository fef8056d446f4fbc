package io.brook.bench;

import io.brook.storage.AppendResult;
import io.brook.storage.Log;
import io.brook.storage.LogConfig;
import io.brook.storage.LogManager;
import io.brook.storage.LogManagerOptions;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Append throughput of {@link Log} next to its baseline: a raw {@link FileChannel} writing the
 * same bytes sequentially to the same number of files. One operation appends one batch; batches
 * go round-robin over the partitions. MB/s = ops/s × {@code batchBytes} / 1e6.
 *
 * <ul>
 *   <li>{@code raw}: {@code FileChannel.write} of the batch, nothing else (the ceiling);</li>
 *   <li>{@code fsyncOff}: {@code brook.flush.on.ack=false}, Kafka's page-cache durability;</li>
 *   <li>{@code groupCommit}: the default, every append queued for the shared flusher thread,
 *       which fsyncs in the background (appenders never wait; the disk's fsync rate decides how
 *       many appends each fsync covers).</li>
 * </ul>
 * Each iteration starts from empty files; the tear-down checks that the log end matches the
 * number of appended records, so a benchmark that silently failed appends cannot look fast.
 * Run: {@code java -jar bench/target/benchmarks.jar LogAppendBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class LogAppendBenchmark {
    @Param({"1024", "16384"})
    public int batchBytes;

    @Param({"1", "8"})
    public int partitions;

    @Param({"raw", "fsyncOff", "groupCommit"})
    public String mode;

    private Path dir;
    private LogManager manager;
    private Log[] logs;
    private FileChannel[] raw;
    private ByteBuffer batch;
    private int recordsPerBatch;
    private long appended;
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("brook-append-bench");
        // Records of 100 bytes, as many as fit the batch size.
        RecordBatchBuilder b = new RecordBatchBuilder(Compression.NONE);
        byte[] value = new byte[100];
        Arrays.fill(value, (byte) 'x');
        while (b.recordCount() * 110 + 61 + 110 <= batchBytes) {
            b.append(1_700_000_000_000L, null, value);
        }
        batch = b.build();
        recordsPerBatch = b.recordCount();
        if (mode.equals("raw")) {
            raw = new FileChannel[partitions];
            for (int p = 0; p < partitions; p++) {
                raw[p] = FileChannel.open(dir.resolve("raw-" + p), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING);
            }
            return;
        }
        LogConfig cfg = LogConfig.defaults().with(Map.of(LogConfig.FLUSH_ON_ACK, mode.equals("groupCommit"),
                LogConfig.RETENTION_MS, -1));
        manager = LogManager.open(new LogManagerOptions(dir).defaults(cfg).backgroundThreads(false));
        logs = new Log[partitions];
        for (int p = 0; p < partitions; p++) {
            logs[p] = manager.getOrCreateLog("bench", p, cfg);
        }
    }

    @Setup(Level.Iteration)
    public void emptyFiles() throws IOException {
        appended = 0;
        if (raw != null) {
            for (FileChannel ch : raw) {
                ch.truncate(0);
                ch.position(0);
            }
        } else {
            for (Log log : logs) {
                log.truncateTo(0);
            }
        }
    }

    @Benchmark
    public long append() throws IOException {
        int p = next;
        next = p + 1 == partitions ? 0 : p + 1;
        batch.position(0);
        if (raw != null) {
            return raw[p].write(batch);
        }
        AppendResult r = logs[p].append(batch, 0);
        if (r.error() != Errors.NONE) {
            throw new IllegalStateException(r.toString());
        }
        appended++;
        return r.lastOffset();
    }

    @TearDown(Level.Iteration)
    public void check() {
        if (logs == null) {
            return;
        }
        long total = 0;
        for (Log log : logs) {
            total += log.logEndOffset();
        }
        if (total != appended * recordsPerBatch) {
            throw new IllegalStateException("log ends add up to " + total + ", expected " + appended * recordsPerBatch);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (raw != null) {
            for (FileChannel ch : raw) {
                ch.close();
            }
        }
        if (manager != null) {
            manager.close();
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
