package io.brook.wire.record;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Record contents shared by the tests: what a batch should hold, independent of any encoder. */
final class Samples {
    private Samples() {
    }

    record Header(String key, byte[] value) {
    }

    record Sample(long offsetDelta, long timestamp, byte[] key, byte[] value, List<Header> headers) {
    }

    static final long BASE_TIMESTAMP = 1_700_000_000_000L;

    /**
     * Keys and values null and empty, headers with null values and non-ASCII keys, a timestamp
     * earlier than the first (negative delta), and one value large enough to span several LZ4
     * blocks and snappy chunks.
     */
    static List<Sample> mixed() {
        Random random = new Random(42);
        byte[] large = new byte[150_000];
        for (int i = 0; i < large.length; i++) {
            large[i] = (byte) (random.nextInt(16) + 'a'); // compressible but not trivially
        }
        List<Sample> samples = new ArrayList<>();
        samples.add(new Sample(0, BASE_TIMESTAMP, bytes("key-0"), bytes("value-0"), List.of()));
        samples.add(new Sample(1, BASE_TIMESTAMP + 5, null, bytes("no key"), List.of(new Header("h1", bytes("v1")))));
        samples.add(new Sample(2, BASE_TIMESTAMP - 3, bytes("tombstone"), null,
                List.of(new Header("null-valued", null), new Header("schlüssel-ключ", bytes("x")))));
        samples.add(new Sample(3, BASE_TIMESTAMP + 1000, new byte[0], new byte[0], List.of()));
        samples.add(new Sample(4, BASE_TIMESTAMP + 7, bytes("big"), large, List.of(new Header("", new byte[0]))));
        samples.add(new Sample(5, BASE_TIMESTAMP + 8, null, null, List.of()));
        return samples;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] bytes(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    static RecordHeader[] ourHeaders(Sample s) {
        return s.headers().stream().map(h -> RecordHeader.of(h.key(), h.value())).toArray(RecordHeader[]::new);
    }

    static org.apache.kafka.common.header.Header[] kafkaHeaders(Sample s) {
        return s.headers().stream()
                .map(h -> new org.apache.kafka.common.header.internals.RecordHeader(h.key(), h.value()))
                .toArray(org.apache.kafka.common.header.Header[]::new);
    }

    static org.apache.kafka.common.compress.Compression kafka(Compression c) {
        return switch (c) {
            case NONE -> org.apache.kafka.common.compress.Compression.NONE;
            case GZIP -> org.apache.kafka.common.compress.Compression.gzip().build();
            case SNAPPY -> org.apache.kafka.common.compress.Compression.snappy().build();
            case LZ4 -> org.apache.kafka.common.compress.Compression.lz4().build();
            case ZSTD -> org.apache.kafka.common.compress.Compression.zstd().build();
        };
    }

    /** A valid batch built by our builder, small and with headers. */
    static ByteBuffer smallBatch(Compression compression) {
        RecordBatchBuilder builder = new RecordBatchBuilder(compression).baseOffset(0)
                .producer(1000L, (short) 3, 17);
        for (int i = 0; i < 5; i++) {
            builder.append(BASE_TIMESTAMP + i, bytes("k" + i), bytes("value number " + i),
                    RecordHeader.of("h", bytes("v" + i)));
        }
        return builder.build();
    }
}
