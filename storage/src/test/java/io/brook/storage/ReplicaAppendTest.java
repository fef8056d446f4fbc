package io.brook.storage;

import io.brook.testkit.MutableClock;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.RecordBatchBuilder;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link Log#appendReplicated}: a follower's log made of the leader's batches as they are. */
class ReplicaAppendTest {
    static final long PID = 4242L;
    static final short EPOCH = 3;

    @TempDir
    Path tmp;
    final List<LogFixture> fixtures = new ArrayList<>();

    LogFixture fixture(String name, Map<String, ?> settings) {
        LogFixture fx = new LogFixture(tmp.resolve(name), settings);
        fixtures.add(fx);
        return fx;
    }

    @AfterEach
    void tearDown() throws Exception {
        for (LogFixture fx : fixtures) {
            fx.close();
        }
    }

    /** Every batch of {@code log} from {@code from} to its log end, as the bytes a fetch returns. */
    static byte[] bytesOf(Log log, long from) throws Exception {
        log.flush();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long next = from;
        while (next < log.logEndOffset()) {
            LogReadResult r = log.read(next, 1 << 20, true);
            assertThat(r.error()).isEqualTo(Errors.NONE);
            List<MutableRecordBatch> batches = Batches.batches(r.records());
            if (batches.isEmpty()) {
                break;
            }
            ByteBuffer all = r.records().readAll();
            out.write(all.array(), all.arrayOffset() + all.position(), all.remaining());
            next = batches.get(batches.size() - 1).lastOffset() + 1;
        }
        return out.toByteArray();
    }

    /** Copies {@code bytes} into {@code follower} in chunks cut at random byte positions; returns the chunk count. */
    static int copyInChunks(byte[] bytes, Log follower, long seed) {
        Random rnd = new Random(seed);
        int pos = 0;
        int chunks = 0;
        int cut = 1 + rnd.nextInt(200);
        while (pos < bytes.length) {
            int len = Math.min(cut, bytes.length - pos);
            ByteBuffer chunk = ByteBuffer.wrap(bytes, pos, len).slice();
            ReplicaAppendResult r = follower.appendReplicated(chunk);
            assertThat(r.error()).as("%s", r).isEqualTo(Errors.NONE);
            assertThat(chunk.position()).isZero();
            assertThat(chunk.limit()).isEqualTo(len);
            if (r.bytesConsumed() == 0) {
                assertThat(r.appendedAny()).isFalse();
                cut *= 2; // the chunk held no whole batch: fetch more, as a fetcher does
            } else {
                assertThat(r.lastOffset()).isEqualTo(follower.logEndOffset() - 1);
                pos += r.bytesConsumed();
                cut = 1 + rnd.nextInt(600);
            }
            chunks++;
        }
        return chunks;
    }

    /** A leader log with plain, compressed, idempotent and transactional batches and both markers, over several segments. */
    static void fillLeader(Log leader, long ts) {
        for (int i = 0; i < 12; i++) {
            assertThat(leader.append(Batches.batch(ts + i * 10, 1 + i % 4, "k" + i), 5).error()).isEqualTo(Errors.NONE);
            assertThat(leader.append(Batches.batch(Compression.gzip().build(), ts + i * 10 + 5, 3, "z" + i, 20), 5)
                    .error()).isEqualTo(Errors.NONE);
            assertThat(leader.append(Batches.idempotent(PID, EPOCH, i * 2, 2, ts + i * 10 + 7), 6).error())
                    .isEqualTo(Errors.NONE);
        }
        assertThat(leader.append(Batches.producerBatch(77L, (short) 0, 0, 2, ts + 200, true), 6).error())
                .isEqualTo(Errors.NONE);
        assertThat(leader.appendMarker(Batches.abortMarker(77L, (short) 0, ts + 201), 6, false).error())
                .isEqualTo(Errors.NONE);
        assertThat(leader.append(Batches.producerBatch(78L, (short) 0, 0, 2, ts + 202, true), 6).error())
                .isEqualTo(Errors.NONE);
        assertThat(leader.appendMarker(Batches.commitMarker(78L, (short) 0, ts + 203), 6, false).error())
                .isEqualTo(Errors.NONE);
        assertThat(leader.append(Batches.batch(ts + 300, 2, "last"), 7).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldCopyTheLeadersBatchesAsTheyAreInChunksCutAnywhere() throws Exception {
        long ts = 1_700_000_000_000L;
        Map<String, Object> small = Map.of(LogConfig.SEGMENT_BYTES, 1200, LogConfig.INDEX_INTERVAL_BYTES, 100);
        Log leader = fixture("leader", small).open();
        fillLeader(leader, ts);
        byte[] bytes = bytesOf(leader, 0);

        Log follower = fixture("follower", small).open();
        int chunks = copyInChunks(bytes, follower, 7);
        assertThat(chunks).isGreaterThan(10);

        assertThat(follower.logEndOffset()).isEqualTo(leader.logEndOffset());
        assertThat(follower.segmentCount()).as("rolled").isGreaterThan(2);
        assertThat(bytesOf(follower, 0)).as("identical bytes: offsets, epochs, timestamps, producers").isEqualTo(bytes);
        assertThat(follower.highWatermark()).isEqualTo(leader.highWatermark());
        // reads from any offset return the same batches
        for (long o = 0; o < leader.logEndOffset(); o += 7) {
            assertThat(Batches.records(follower.read(o, 500, true).records()))
                    .isEqualTo(Batches.records(leader.read(o, 500, true).records()));
        }
        assertThat(Batches.readAll(follower, 0)).isEqualTo(Batches.readAll(leader, 0));
        // offset and timestamp lookups
        for (long t = ts - 1; t <= ts + 301; t += 3) {
            assertThat(follower.offsetForTimestamp(t, false)).as("timestamp %d", t)
                    .isEqualTo(leader.offsetForTimestamp(t, false));
        }
        assertThat(follower.offsetForTimestamp(Log.MAX_TIMESTAMP, false))
                .isEqualTo(leader.offsetForTimestamp(Log.MAX_TIMESTAMP, false));
        assertThat(follower.abortedTransactions(0, follower.logEndOffset()))
                .isEqualTo(leader.abortedTransactions(0, leader.logEndOffset()));
        assertThat(follower.lastStableOffset()).isEqualTo(leader.lastStableOffset());

        // and after a reopen, which loads the indexes and the producer state from the files
        follower = fixtures.get(1).reopen();
        assertThat(bytesOf(follower, 0)).isEqualTo(bytes);
        for (long t = ts - 1; t <= ts + 301; t += 3) {
            assertThat(follower.offsetForTimestamp(t, false)).isEqualTo(leader.offsetForTimestamp(t, false));
        }
    }

    @Test
    void shouldCarryIdempotentAndTransactionalProducerStateOver() throws Exception {
        long ts = 1_700_000_000_000L;
        Log leader = fixture("leader", Map.of(LogConfig.SEGMENT_BYTES, 1200)).open();
        fillLeader(leader, ts);
        // a transaction left open on the leader
        AppendResult open = leader.append(Batches.producerBatch(90L, (short) 1, 0, 2, ts + 400, true), 7);
        assertThat(open.error()).isEqualTo(Errors.NONE);
        Log follower = fixture("follower", Map.of(LogConfig.SEGMENT_BYTES, 1200)).open();
        copyInChunks(bytesOf(leader, 0), follower, 11);
        assertThat(follower.logEndOffset()).isEqualTo(leader.logEndOffset());

        // the follower becomes the leader: a retry of the producer's last batch is a duplicate,
        // its next sequence is accepted, a gap in its sequences is refused
        AppendResult dup = follower.append(Batches.idempotent(PID, EPOCH, 22, 2, ts + 500), 8);
        assertThat(dup.error()).isEqualTo(Errors.NONE);
        assertThat(dup.duplicate()).isTrue();
        AppendResult original = leader.append(Batches.idempotent(PID, EPOCH, 22, 2, ts + 500), 7);
        assertThat(original.duplicate()).isTrue();
        assertThat(dup.baseOffset()).isEqualTo(original.baseOffset());
        assertThat(dup.lastOffset()).isEqualTo(original.lastOffset());
        assertThat(follower.append(Batches.idempotent(PID, EPOCH, 30, 1, ts + 500), 8).error())
                .isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        AppendResult next = follower.append(Batches.idempotent(PID, EPOCH, 24, 2, ts + 500), 8);
        assertThat(next.error()).isEqualTo(Errors.NONE);
        assertThat(next.duplicate()).isFalse();
        assertThat(next.baseOffset()).isEqualTo(leader.logEndOffset());
        assertThat(follower.activeProducers()).containsExactlyInAnyOrderElementsOf(
                leader.activeProducers().stream().map(p -> p.producerId() == PID
                        ? new ActiveProducer(PID, EPOCH, 25, ts + 500, -1, -1L) : p).toList());

        // the open transaction is still open, holds the last stable offset, and its abort lands
        // in the aborted index
        assertThat(follower.inOpenTransaction(90L, (short) 1)).isTrue();
        follower.flush();
        assertThat(follower.lastStableOffset()).isEqualTo(open.baseOffset());
        AppendResult abort = follower.appendMarker(Batches.abortMarker(90L, (short) 1, ts + 600), 8, false);
        assertThat(abort.error()).isEqualTo(Errors.NONE);
        assertThat(follower.inOpenTransaction(90L, (short) 1)).isFalse();
        assertThat(follower.abortedTransactions(open.baseOffset(), follower.logEndOffset()))
                .contains(new AbortedTransaction(90L, open.baseOffset(), abort.baseOffset()));
        follower.flush();
        assertThat(follower.lastStableOffset()).isEqualTo(follower.logEndOffset());
    }

    static ByteBuffer gapped(long base, long... offsets) {
        RecordBatchBuilder b = new RecordBatchBuilder(io.brook.wire.record.Compression.NONE).baseOffset(base)
                .partitionLeaderEpoch(4);
        for (long o : offsets) {
            b.appendWithOffset(o, 1_700_000_000_000L + o, ByteBuffer.wrap(("k" + o).getBytes(StandardCharsets.UTF_8)),
                    ByteBuffer.wrap(("v" + o).getBytes(StandardCharsets.UTF_8)));
        }
        return b.build();
    }

    static ByteBuffer concat(ByteBuffer... parts) {
        int n = 0;
        for (ByteBuffer p : parts) {
            n += p.remaining();
        }
        ByteBuffer out = ByteBuffer.allocate(n);
        for (ByteBuffer p : parts) {
            out.put(p.duplicate());
        }
        return out.flip();
    }

    @Test
    void shouldAcceptCompactedStyleGapsBetweenAndInsideBatches() throws Exception {
        Log follower = fixture("follower", Map.of()).open();
        ByteBuffer emptyBatch = new RecordBatchBuilder(io.brook.wire.record.Compression.NONE).baseOffset(20)
                .emptyBatchLastOffset(24).build();
        ByteBuffer chunk = concat(gapped(0, 0, 2), gapped(5, 7, 9), emptyBatch, gapped(100, 100));
        ReplicaAppendResult r = follower.appendReplicated(chunk);
        assertThat(r.error()).as("%s", r).isEqualTo(Errors.NONE);
        assertThat(r.firstOffset()).isZero();
        assertThat(r.lastOffset()).isEqualTo(100);
        assertThat(r.bytesConsumed()).isEqualTo(chunk.remaining());
        assertThat(follower.logEndOffset()).isEqualTo(101);
        follower.flush();
        assertThat(Batches.readAll(follower, 0)).extracting(Batches.Rec::offset).containsExactly(0L, 2L, 7L, 9L, 100L);
        assertThat(Batches.records(follower.read(3, 1 << 20, true).records())).extracting(Batches.Rec::offset)
                .startsWith(7L);
        assertThat(Batches.records(follower.read(30, 1 << 20, true).records())).extracting(Batches.Rec::offset)
                .containsExactly(100L);
        // a gap of more than 2^31 offsets is stored relative to a segment of its own
        ByteBuffer far = gapped(3_000_000_000L, 3_000_000_000L);
        assertThat(follower.appendReplicated(far).error()).isEqualTo(Errors.NONE);
        assertThat(follower.logEndOffset()).isEqualTo(3_000_000_001L);
        assertThat(follower.segments.lastKey()).isEqualTo(3_000_000_000L);
        follower.flush();
        assertThat(Batches.records(follower.read(101, 1 << 20, true).records())).extracting(Batches.Rec::offset)
                .containsExactly(3_000_000_000L);
        follower = fixtures.get(0).crashAndReopen(0);
        assertThat(follower.logEndOffset()).isEqualTo(3_000_000_001L);
        assertThat(Batches.readAll(follower, 0)).extracting(Batches.Rec::offset)
                .containsExactly(0L, 2L, 7L, 9L, 100L, 3_000_000_000L);

        // the same far batch as the first of an empty log: its empty segment cannot hold it either
        LogFixture emptyFx = fixture("empty", Map.of());
        Log empty = emptyFx.open();
        assertThat(empty.appendReplicated(gapped(3_000_000_000L, 3_000_000_000L, 3_000_000_001L)).error())
                .isEqualTo(Errors.NONE);
        assertThat(empty.segments.lastKey()).as("indexable relative to its segment").isEqualTo(3_000_000_000L);
        empty.flush();
        empty = emptyFx.crashAndReopen(0);
        assertThat(empty.corruption()).isNull();
        assertThat(empty.logEndOffset()).isEqualTo(3_000_000_002L);
        assertThat(Batches.records(empty.read(3_000_000_001L, 1 << 20, true).records()))
                .extracting(Batches.Rec::offset).containsExactly(3_000_000_000L, 3_000_000_001L);
    }

    @Test
    void shouldRefuseBatchesBelowTheLogEndAndCorruptOrDisorderedOnesAppendingNothing() throws Exception {
        Log follower = fixture("follower", Map.of()).open();
        assertThat(follower.appendReplicated(concat(gapped(0, 0, 1), gapped(2, 2))).error()).isEqualTo(Errors.NONE);
        byte[] before = bytesOf(follower, 0);

        // below the log end: the caller must truncate first
        ReplicaAppendResult below = follower.appendReplicated(concat(gapped(2, 2), gapped(3, 3)));
        assertThat(below.error()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
        assertThat(below.appendedAny()).isFalse();
        assertThat(below.bytesConsumed()).isZero();

        // a flipped byte in the second batch: the first one is not appended either
        ByteBuffer bad = concat(gapped(3, 3), gapped(4, 4, 5));
        int second = gapped(3, 3).remaining();
        bad.put(bad.limit() - 3, (byte) (bad.get(bad.limit() - 3) ^ 1));
        assertCorrupt(follower, bad, "crc mismatch");
        // offsets that do not increase between batches
        assertCorrupt(follower, concat(gapped(3, 3, 4), gapped(4, 4)), "not above the last offset 4");
        // a bad length field
        ByteBuffer shortLength = concat(gapped(3, 3), gapped(4, 4));
        shortLength.putInt(second + BatchHeader.BATCH_LENGTH, 3);
        assertCorrupt(follower, shortLength, "below the minimum");
        // records whose framing is broken under a sound CRC
        ByteBuffer framing = gapped(3, 3, 4);
        framing.putInt(RecordBatch.RECORDS_COUNT_OFFSET, 3);
        framing.putInt(RecordBatch.CRC_OFFSET, (int) new RecordBatch().wrap(framing, 0).computeCrc());
        assertCorrupt(follower, framing, "");
        // a records section that does not decompress
        ByteBuffer gz = new RecordBatchBuilder(io.brook.wire.record.Compression.GZIP).baseOffset(3)
                .append(1L, new byte[] {1}, new byte[100]).build();
        gz.put(RecordBatch.RECORDS_OFFSET + 12, (byte) 0x55);
        gz.putInt(RecordBatch.CRC_OFFSET, (int) new RecordBatch().wrap(gz, 0).computeCrc());
        assertCorrupt(follower, gz, "");

        assertThat(follower.logEndOffset()).isEqualTo(3);
        assertThat(bytesOf(follower, 0)).isEqualTo(before);
        // and the log takes the next batch as if nothing had happened, whatever the buffer's byte order
        ByteBuffer little = gapped(3, 3).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        assertThat(follower.appendReplicated(little).lastOffset()).isEqualTo(3);
        assertThat(little.order()).isEqualTo(java.nio.ByteOrder.LITTLE_ENDIAN);
        // a chunk holding only part of a batch appends nothing and consumes nothing
        ByteBuffer part = gapped(4, 4).limit(30);
        ReplicaAppendResult partial = follower.appendReplicated(part);
        assertThat(partial.error()).isEqualTo(Errors.NONE);
        assertThat(partial.appendedAny()).isFalse();
        assertThat(partial.bytesConsumed()).isZero();
    }

    private static void assertCorrupt(Log log, ByteBuffer chunk, String why) {
        long end = log.logEndOffset();
        ReplicaAppendResult r = log.appendReplicated(chunk);
        assertThat(r.error()).as("%s", r).isEqualTo(Errors.CORRUPT_MESSAGE);
        assertThat(r.errorMessage()).contains(why);
        assertThat(r.appendedAny()).isFalse();
        assertThat(r.bytesConsumed()).isZero();
        assertThat(log.logEndOffset()).isEqualTo(end);
    }

    @Test
    @Timeout(30)
    void shouldMakeReplicatedBatchesDurableAndKeepThemAcrossACrash() throws Exception {
        long ts = 1_700_000_000_000L;
        Log leader = fixture("leader", Map.of(LogConfig.SEGMENT_BYTES, 1200)).open();
        fillLeader(leader, ts);
        byte[] bytes = bytesOf(leader, 0);
        Path dir = tmp.resolve("follower");
        MutableClock clock = new MutableClock(ts);
        LogConfig cfg = LogConfig.defaults().with(Map.of(LogConfig.SEGMENT_BYTES, 1200));
        long durable;
        try (Scheduler scheduler = new Scheduler("s"); Flusher flusher = new Flusher("flusher")) {
            Log follower = Log.open(dir, "t", 0, cfg, 0, true, clock, scheduler, flusher);
            try {
                int half = bytes.length / 2;
                ReplicaAppendResult first = follower.appendReplicated(ByteBuffer.wrap(bytes, 0, half).slice());
                assertThat(first.appendedAny()).isTrue();
                assertThat(follower.highWatermark()).as("nothing visible before it is durable")
                        .isLessThanOrEqualTo(follower.durableOffset());
                follower.whenDurable(first.lastOffset() + 1).get(20, TimeUnit.SECONDS);
                assertThat(follower.durableOffset()).isGreaterThanOrEqualTo(first.lastOffset() + 1);
                assertThat(follower.highWatermark()).isEqualTo(first.lastOffset() + 1);
                ReplicaAppendResult rest = follower.appendReplicated(
                        ByteBuffer.wrap(bytes, first.bytesConsumed(), bytes.length - first.bytesConsumed()).slice());
                assertThat(rest.lastOffset()).isEqualTo(leader.logEndOffset() - 1);
                follower.whenDurable(rest.lastOffset() + 1).get(20, TimeUnit.SECONDS);
                durable = follower.durableOffset();
                assertThat(durable).isEqualTo(leader.logEndOffset());
            } finally {
                follower.closeAbruptly();
            }
            Log reopened = Log.open(dir, "t", 0, cfg, durable, false, clock, scheduler, flusher);
            try {
                assertThat(reopened.logEndOffset()).isEqualTo(leader.logEndOffset());
                assertThat(reopened.corruption()).isNull();
                assertThat(bytesOf(reopened, 0)).isEqualTo(bytes);
                assertThat(reopened.activeProducers()).containsExactlyInAnyOrderElementsOf(leader.activeProducers());
                assertThat(reopened.abortedTransactions(0, reopened.logEndOffset()))
                        .isEqualTo(leader.abortedTransactions(0, leader.logEndOffset()));
            } finally {
                reopened.close();
            }
        }
    }
}
