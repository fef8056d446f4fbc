package io.brook.bench;

import io.brook.storage.FileRecords;
import io.brook.storage.Log;
import io.brook.storage.LogConfig;
import io.brook.storage.LogManager;
import io.brook.storage.LogManagerOptions;
import io.brook.storage.LogReadResult;
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
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Read throughput of file slices: {@link Log#read} at a random offset for up to
 * {@code fetchBytes}, then the slice sent with {@code transferTo} (sendfile) into /dev/null, as
 * the server would send it to a socket. Baseline: the same byte count transferred straight
 * from the segment file at a random position. MB/s = ops/s × {@code fetchBytes} / 1e6 (the data,
 * 64 MiB, sits in the page cache after set-up).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class LogReadBenchmark {
    private static final int LOG_BYTES = 64 * 1024 * 1024;
    private static final int BATCH_BYTES = 16 * 1024;

    @Param({"65536", "1048576"})
    public int fetchBytes;

    private Path dir;
    private LogManager manager;
    private Log log;
    private FileChannel sink;
    private FileChannel segment;
    private long segmentSize;
    private long endOffset;
    private final SplittableRandom random = new SplittableRandom(7);

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("brook-read-bench");
        LogConfig cfg = LogConfig.defaults().with(Map.of(LogConfig.FLUSH_ON_ACK, false, LogConfig.RETENTION_MS, -1));
        manager = LogManager.open(new LogManagerOptions(dir).defaults(cfg).backgroundThreads(false));
        log = manager.getOrCreateLog("bench", 0, cfg);
        byte[] value = new byte[1000];
        for (int written = 0; written < LOG_BYTES; ) {
            RecordBatchBuilder b = new RecordBatchBuilder(Compression.NONE);
            for (int i = 0; i < BATCH_BYTES / 1024; i++) {
                b.append(1_700_000_000_000L, null, value);
            }
            ByteBuffer batch = b.build();
            written += batch.remaining();
            if (log.append(batch, 0).error() != Errors.NONE) {
                throw new IllegalStateException("append failed");
            }
        }
        endOffset = log.logEndOffset();
        sink = FileChannel.open(Paths.get("/dev/null"), StandardOpenOption.WRITE);
        segment = FileChannel.open(dir.resolve("bench-0").resolve("00000000000000000000.log"), StandardOpenOption.READ);
        segmentSize = segment.size();
    }

    @Benchmark
    public long readAndSend() throws IOException {
        LogReadResult r = log.read(random.nextLong(endOffset), fetchBytes, true);
        FileRecords fr = r.records();
        if (fr == null) {
            throw new IllegalStateException("nothing read: " + r);
        }
        long sent = 0;
        while (sent < fr.sizeInBytes()) {
            sent += fr.transferTo(sink, sent, fr.sizeInBytes() - sent);
        }
        return sent;
    }

    @Benchmark
    public long rawTransfer() throws IOException {
        long position = random.nextLong(segmentSize - fetchBytes);
        long sent = 0;
        while (sent < fetchBytes) {
            sent += segment.transferTo(position + sent, fetchBytes - sent, sink);
        }
        return sent;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        sink.close();
        segment.close();
        manager.close();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
