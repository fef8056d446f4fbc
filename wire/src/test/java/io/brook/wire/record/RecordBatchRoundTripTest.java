package io.brook.wire.record;

import io.brook.wire.protocol.Errors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static io.brook.wire.record.Samples.bytes;
import static org.assertj.core.api.Assertions.assertThat;

/** Random record sets through our builder, read back by our reader and by kafka-clients. */
class RecordBatchRoundTripTest {

    @Provide
    Arbitrary<List<Samples.Sample>> sampleLists() {
        return samples().list().ofMinSize(1).ofMaxSize(30);
    }

    private static Arbitrary<Samples.Sample> samples() {
        Arbitrary<byte[]> nullableBytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(300).injectNull(0.2);
        Arbitrary<Samples.Header> header = Combinators.combine(Arbitraries.strings().ofMaxLength(12), nullableBytes)
                .as(Samples.Header::new);
        return Combinators.combine(
                Arbitraries.longs().between(1, 1000),
                Arbitraries.longs().between(-1_000_000L, 1_000_000L),
                nullableBytes, nullableBytes,
                header.list().ofMaxSize(4))
                .as((gap, time, key, value, headers) -> new Samples.Sample(gap, Samples.BASE_TIMESTAMP + time, key,
                        value, headers));
    }

    @Property(tries = 150, seed = "20261130")
    void ourBatchesReadBackTheSameThroughBothReaders(@ForAll("sampleLists") List<Samples.Sample> gaps,
                                                    @ForAll Compression compression,
                                                    @ForAll boolean idempotent,
                                                    @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int baseSequence) {
        long baseOffset = 1L << 40;
        RecordBatchBuilder builder = new RecordBatchBuilder(compression).baseOffset(baseOffset);
        if (idempotent) {
            builder.producer(77L, (short) 1, baseSequence);
        }
        List<Long> offsets = new ArrayList<>();
        long offset = baseOffset;
        for (Samples.Sample s : gaps) {
            builder.appendWithOffset(offset, s.timestamp(), wrap(s.key()), wrap(s.value()), Samples.ourHeaders(s));
            offsets.add(offset);
            offset += s.offsetDelta(); // the sample's offsetDelta is used as the gap to the next offset
        }
        ByteBuffer buffer = builder.build();

        RecordBatch ours = new RecordBatch().wrap(buffer, 0);
        assertThat(ours.isCrcValid()).isTrue();
        assertThat(ours.lastOffset()).isEqualTo(offsets.get(offsets.size() - 1));
        if (offsets.size() == ours.lastOffsetDelta() + 1 && idempotent) {
            assertThat(ours.validateClientBatch(buffer.limit())).isEqualTo(Errors.NONE);
        }
        Iterator<Record> mine = ours.records();
        Iterator<MutableRecordBatch> kafkaBatches = MemoryRecords.readableRecords(buffer.duplicate()).batches().iterator();
        MutableRecordBatch kafka = kafkaBatches.next();
        kafka.ensureValid();
        assertThat(kafkaBatches.hasNext()).isFalse();
        Iterator<org.apache.kafka.common.record.internal.Record> theirs = kafka.iterator();
        for (int i = 0; i < gaps.size(); i++) {
            Samples.Sample s = gaps.get(i);
            Record m = mine.next();
            org.apache.kafka.common.record.internal.Record t = theirs.next();
            assertThat(m.offset()).isEqualTo(offsets.get(i)).isEqualTo(t.offset());
            assertThat(m.timestamp()).isEqualTo(s.timestamp()).isEqualTo(t.timestamp());
            assertThat(m.sequence()).isEqualTo(t.sequence());
            assertThat(bytes(m.key())).isEqualTo(s.key()).isEqualTo(bytes(t.key()));
            assertThat(bytes(m.value())).isEqualTo(s.value()).isEqualTo(bytes(t.value()));
            assertThat(m.headers()).hasSize(s.headers().size()).hasSize(t.headers().length);
            for (int h = 0; h < s.headers().size(); h++) {
                assertThat(m.headers().get(h).key()).isEqualTo(s.headers().get(h).key()).isEqualTo(t.headers()[h].key());
                assertThat(bytes(m.headers().get(h).value())).isEqualTo(s.headers().get(h).value())
                        .isEqualTo(t.headers()[h].value());
            }
        }
        assertThat(mine.hasNext()).isFalse();
        assertThat(theirs.hasNext()).isFalse();
    }

    private static ByteBuffer wrap(byte[] b) {
        return b == null ? null : ByteBuffer.wrap(b);
    }
}
