package io.brook.wire.record;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RecordBatchesTest {

    private static ByteBuffer concat(ByteBuffer... parts) {
        int size = 0;
        for (ByteBuffer p : parts) {
            size += p.remaining();
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (ByteBuffer p : parts) {
            out.put(p.duplicate());
        }
        return out.flip();
    }

    private static ByteBuffer threeBatches() {
        return concat(Samples.smallBatch(Compression.NONE), Samples.smallBatch(Compression.ZSTD),
                Samples.smallBatch(Compression.SNAPPY));
    }

    private static List<Integer> starts(RecordBatches walk) {
        List<Integer> starts = new ArrayList<>();
        RecordBatch batch;
        while ((batch = walk.next()) != null) {
            starts.add(batch.offset());
            assertThat(batch.isCrcValid()).isTrue();
        }
        return starts;
    }

    @Test
    void shouldWalkEveryBatchAndEndCleanly() {
        ByteBuffer all = threeBatches();
        RecordBatches walk = new RecordBatches().wrap(all);
        List<Integer> starts = starts(walk);
        int first = Samples.smallBatch(Compression.NONE).limit();
        int second = Samples.smallBatch(Compression.ZSTD).limit();
        assertThat(starts).containsExactly(0, first, first + second);
        assertThat(walk.status()).isEqualTo(RecordBatches.Status.END);
        assertThat(walk.position()).isEqualTo(all.limit());
        assertThat(walk.validBytes()).isEqualTo(all.limit());
        assertThat(walk.next()).isNull();
    }

    @Test
    void shouldStopAtATruncatedTrailingBatchWhereverItIsCut() {
        ByteBuffer all = threeBatches();
        int first = Samples.smallBatch(Compression.NONE).limit();
        int second = first + Samples.smallBatch(Compression.ZSTD).limit();
        for (int cut = 0; cut <= all.limit(); cut++) {
            RecordBatches walk = new RecordBatches().wrap(all, 0, cut);
            List<Integer> starts = starts(walk);
            int whole = cut >= all.limit() ? 3 : cut >= second ? 2 : cut >= first ? 1 : 0;
            int boundary = whole == 3 ? all.limit() : whole == 2 ? second : whole == 1 ? first : 0;
            assertThat(starts).as("cut at %d", cut).hasSize(whole);
            assertThat(walk.position()).as("cut at %d", cut).isEqualTo(boundary);
            assertThat(walk.status()).as("cut at %d", cut)
                    .isEqualTo(cut == boundary ? RecordBatches.Status.END : RecordBatches.Status.TRUNCATED);
        }
    }

    @Test
    void shouldReportACorruptLengthAndStopThere() {
        ByteBuffer all = threeBatches();
        int first = Samples.smallBatch(Compression.NONE).limit();
        all.putInt(first + RecordBatch.BATCH_LENGTH_OFFSET, 10);
        RecordBatches walk = new RecordBatches().wrap(all);
        assertThat(starts(walk)).containsExactly(0);
        assertThat(walk.status()).isEqualTo(RecordBatches.Status.CORRUPT);
        assertThat(walk.position()).isEqualTo(first);
    }

    @Test
    void shouldReportOldMagicAndBadMagic() {
        ByteBuffer all = threeBatches();
        int first = Samples.smallBatch(Compression.NONE).limit();
        all.put(first + RecordBatch.MAGIC_OFFSET, (byte) 1);
        RecordBatches walk = new RecordBatches().wrap(all);
        assertThat(starts(walk)).containsExactly(0);
        assertThat(walk.status()).isEqualTo(RecordBatches.Status.UNSUPPORTED_MAGIC);

        all.put(first + RecordBatch.MAGIC_OFFSET, (byte) 9);
        walk.wrap(all);
        assertThat(starts(walk)).containsExactly(0);
        assertThat(walk.status()).isEqualTo(RecordBatches.Status.CORRUPT);
        assertThat(walk.position()).isEqualTo(first);
    }

    @Test
    void shouldWalkTheRegionGivenAndLeaveTheBufferPositionAlone() {
        ByteBuffer all = threeBatches();
        int first = Samples.smallBatch(Compression.NONE).limit();
        all.position(first);
        RecordBatches walk = new RecordBatches().wrap(all);
        assertThat(starts(walk)).hasSize(2).first().isEqualTo(first);
        assertThat(all.position()).isEqualTo(first);
        assertThat(walk.validBytes()).isEqualTo(all.limit() - first);
    }

    @Test
    void shouldEndAtOnceOnAnEmptyRegion() {
        RecordBatches walk = new RecordBatches().wrap(ByteBuffer.allocate(0));
        assertThat(walk.next()).isNull();
        assertThat(walk.status()).isEqualTo(RecordBatches.Status.END);
    }
}
