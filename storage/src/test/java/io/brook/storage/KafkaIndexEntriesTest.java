package io.brook.storage;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The index files hold the entries Kafka's do: the offset index a batch's last offset, the time
 * index the last offset of the batch where the largest timestamp so far was reached; and index
 * files that Brook wrote before (a batch's base offset in both) still serve lookups as they are.
 */
class KafkaIndexEntriesTest {
    private static final Map<String, Integer> SMALL_INDEX_INTERVAL = Map.of(LogConfig.INDEX_INTERVAL_BYTES, 100);
    private static final int BATCHES = 40;
    private static final int RECORDS_PER_BATCH = 3;

    @TempDir
    Path tmp;
    LogFixture fx;

    @AfterEach
    void tearDown() throws Exception {
        if (fx != null) {
            fx.close();
        }
    }

    /** A closed log of 40 batches of 3 records whose timestamps go up and down; its index files are written. */
    private void closedLog() throws IOException {
        fx = new LogFixture(tmp.resolve("a"), SMALL_INDEX_INTERVAL);
        Log log = fx.open();
        for (int i = 0; i < BATCHES; i++) {
            log.append(Batches.batch(1_000 + (i * 37 % 50) * 10L, RECORDS_PER_BATCH, "k" + i + "-"), 0);
        }
        log.flush();
        log.close();
    }

    private Path file(String suffix) {
        return LogSegment.file(fx.dir, 0L, suffix);
    }

    /** Each batch of the log file: {base, last, maxTimestamp, position}. */
    private List<long[]> batches() throws IOException {
        List<long[]> out = new ArrayList<>();
        ByteBuffer log = ByteBuffer.wrap(Files.readAllBytes(file(LogSegment.LOG_SUFFIX)));
        int p = 0;
        while (p + BatchHeader.HEADER_SIZE <= log.limit()) {
            out.add(new long[] {BatchHeader.baseOffset(log, p), BatchHeader.lastOffset(log, p),
                BatchHeader.maxTimestamp(log, p), p});
            p += BatchHeader.sizeInBytes(log, p);
        }
        return out;
    }

    private static long[] batchAt(List<long[]> batches, long position) {
        return batches.stream().filter(b -> b[3] == position).findFirst().orElseThrow();
    }

    private static long[] batchEndingAt(List<long[]> batches, long last) {
        return batches.stream().filter(b -> b[1] == last).findFirst().orElseThrow();
    }

    @Test
    void shouldWriteTheEntriesKafkasIndexFilesHold() throws Exception {
        closedLog();
        List<long[]> batches = batches();
        ByteBuffer idx = ByteBuffer.wrap(Files.readAllBytes(file(LogSegment.INDEX_SUFFIX)));
        assertThat(idx.remaining() / OffsetIndex.ENTRY_SIZE).isGreaterThan(10);
        while (idx.hasRemaining()) {
            int rel = idx.getInt();
            int position = idx.getInt();
            assertThat((long) rel).as("entry at position " + position).isEqualTo(batchAt(batches, position)[1]);
        }
        ByteBuffer tidx = ByteBuffer.wrap(Files.readAllBytes(file(LogSegment.TIME_INDEX_SUFFIX)));
        assertThat(tidx.remaining() / TimeIndex.ENTRY_SIZE).isGreaterThan(2);
        long running = -1;
        for (long[] b : batches) {
            running = Math.max(running, b[2]);
        }
        long previous = -1;
        long lastTimestamp = -1;
        while (tidx.hasRemaining()) {
            long ts = tidx.getLong();
            int rel = tidx.getInt();
            long[] batch = batchEndingAt(batches, rel);
            assertThat(batch[2]).as("the batch ending at " + rel + " holds the entry's timestamp").isEqualTo(ts);
            assertThat(ts).isGreaterThan(previous);
            for (long[] b : batches) {
                if (b[1] <= rel) {
                    assertThat(b[2]).as("no record up to the entry has a larger timestamp").isLessThanOrEqualTo(ts);
                }
            }
            previous = ts;
            lastTimestamp = ts;
        }
        assertThat(lastTimestamp).as("a closed segment's last entry holds its largest timestamp").isEqualTo(running);
    }

    @Test
    void shouldServeReadsAndTimestampLookupsFromIndexFilesThatNameBaseOffsets() throws Exception {
        closedLog();
        Log log = fx.open();
        long[] probes = {995, 1_000, 1_001, 1_137, 1_250, 1_333, 1_490, 1_492, 1_493};
        List<TimestampOffset> expected = new ArrayList<>();
        for (long t : probes) {
            expected.add(log.offsetForTimestamp(t, false));
        }
        log.close();

        // Rewrite both files as Brook wrote them before it followed Kafka: each entry names the
        // base offset of the batch it indexes.
        List<long[]> batches = batches();
        ByteBuffer idx = ByteBuffer.wrap(Files.readAllBytes(file(LogSegment.INDEX_SUFFIX)));
        ByteBuffer oldIdx = ByteBuffer.allocate(idx.remaining());
        while (idx.hasRemaining()) {
            idx.getInt();
            int position = idx.getInt();
            oldIdx.putInt((int) batchAt(batches, position)[0]).putInt(position);
        }
        overwrite(file(LogSegment.INDEX_SUFFIX), oldIdx.flip());
        ByteBuffer tidx = ByteBuffer.wrap(Files.readAllBytes(file(LogSegment.TIME_INDEX_SUFFIX)));
        ByteBuffer oldTidx = ByteBuffer.allocate(tidx.remaining());
        while (tidx.hasRemaining()) {
            long ts = tidx.getLong();
            oldTidx.putLong(ts).putInt((int) batchEndingAt(batches, tidx.getInt())[0]);
        }
        overwrite(file(LogSegment.TIME_INDEX_SUFFIX), oldTidx.flip());

        log = fx.open();
        assertThat(log.active().recoveryScanStart).as("the files pass the load checks: no scan").isEqualTo(-1);
        for (long offset = 0; offset < BATCHES * RECORDS_PER_BATCH; offset++) {
            List<Batches.Rec> read = Batches.records(log.read(offset, 1, true).records());
            long first = read.get(0).offset();
            assertThat(first).as("the batch read from " + offset).isLessThanOrEqualTo(offset)
                    .isGreaterThan(offset - RECORDS_PER_BATCH);
        }
        for (int i = 0; i < probes.length; i++) {
            assertThat(log.offsetForTimestamp(probes[i], false)).as("timestamp " + probes[i]).isEqualTo(expected.get(i));
        }
        assertThat(Batches.readAll(log, 0)).hasSize(BATCHES * RECORDS_PER_BATCH);
    }

    private static void overwrite(Path file, ByteBuffer content) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            while (content.hasRemaining()) {
                ch.write(content);
            }
        }
    }
}
