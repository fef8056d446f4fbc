package io.brook.storage;

import io.brook.wire.protocol.Errors;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

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
}
