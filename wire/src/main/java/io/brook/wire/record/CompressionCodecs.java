package io.brook.wire.record;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jpountz.xxhash.XXHashFactory;
import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyError;
import org.xerial.snappy.SnappyOutputStream;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Compression and bounded decompression of a batch's records section, in the stream formats the
 * Kafka clients write:
 * <ul>
 *   <li>gzip: a gzip stream (RFC 1952);</li>
 *   <li>snappy: snappy-java's framing (16-byte header with magic {@code 0x82 "SNAPPY" 0}, then
 *       chunks of {@code int32 length + raw snappy block}). Plain raw snappy is accepted on read as
 *       well, as the Java clients have always done, since not every client frames it;</li>
 *   <li>lz4: one LZ4 frame (magic 0x184D2204) with independent 64 KiB blocks, no block or content
 *       checksums and no content size, exactly the header the Java clients write;</li>
 *   <li>zstd: a standard zstd frame.</li>
 * </ul>
 *
 * <p>Bombs: decompressed output goes into one array that grows by doubling from a small multiple
 * of the compressed size and never beyond {@code maxBytes}; going past it is a
 * {@link CorruptRecordException}. So memory follows the bytes actually produced, not any size a
 * stream declares. Snappy chunks are parsed here rather than by {@code SnappyInputStream} because
 * that class allocates whatever chunk size and uncompressed length the input declares. LZ4 frame
 * blocks are at most 4 MiB by the format. zstd keeps its default decoder window limit (2^27), the
 * same as the Java clients use, so frames written at any compression level remain readable.
 */
final class CompressionCodecs {
    private static final byte[] SNAPPY_MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
    /** Magic plus the int32 version and int32 compatible-version that follow it. */
    private static final int SNAPPY_HEADER_SIZE = 16;
    private static final int ZSTD_DEFAULT_LEVEL = 3;
    private static final int MIN_INITIAL_OUTPUT = 256;

    /**
     * The decompressor used for untrusted LZ4 input: the JNI binding of the C library's bounds
     * checked decoder if the native library loads, else the pure-Java safe decoder. The "fast"
     * decoders and the Unsafe-based ones of lz4-java 1.8.0 do not guard all out-of-bounds accesses
     * on malformed input.
     */
    private static final LZ4SafeDecompressor LZ4_DECOMPRESSOR = lz4Decompressor();

    private CompressionCodecs() {
    }

    private static LZ4SafeDecompressor lz4Decompressor() {
        try {
            return LZ4Factory.nativeInstance().safeDecompressor();
        } catch (Throwable e) { // the native library may be missing for this platform
            return LZ4Factory.safeInstance().safeDecompressor();
        }
    }

    /**
     * Decompresses bytes [from, to) of {@code src} (absolute indices, position untouched) into a new
     * heap buffer of at most {@code maxBytes} bytes, positioned at 0 with its limit at the end of
     * the output.
     *
     * @throws CorruptRecordException if the input is not a valid stream of that codec or its
     *         output would exceed {@code maxBytes}
     */
    static ByteBuffer decompress(Compression compression, ByteBuffer src, int from, int to, int maxBytes) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("maxBytes " + maxBytes);
        }
        int compressedSize = to - from;
        Sink sink = new Sink((int) Math.min(maxBytes, Math.max(MIN_INITIAL_OUTPUT, 4L * compressedSize)), maxBytes,
                compression);
        if (compressedSize == 0) {
            return ByteBuffer.wrap(sink.buf, 0, 0);
        }
        try {
            switch (compression) {
                case GZIP -> {
                    try (InputStream in = new GZIPInputStream(new ByteBufferInputStream(src, from, to), 8192)) {
                        sink.readAll(in);
                    }
                }
                case SNAPPY -> snappy(src, from, to, sink);
                case LZ4 -> {
                    try (InputStream in = new LZ4FrameInputStream(new ByteBufferInputStream(src, from, to),
                            LZ4_DECOMPRESSOR, XXHashFactory.fastestInstance().hash32())) {
                        sink.readAll(in);
                    }
                }
                case ZSTD -> {
                    try (InputStream in = new ZstdInputStreamNoFinalizer(new ByteBufferInputStream(src, from, to))) {
                        sink.readAll(in);
                    }
                }
                default -> throw new IllegalArgumentException("not a compressed codec: " + compression);
            }
        } catch (CorruptRecordException e) {
            throw e;
        } catch (IOException | RuntimeException | SnappyError e) {
            throw new CorruptRecordException(compression + " records section of " + compressedSize
                    + " bytes does not decompress: " + e, e);
        }
        return ByteBuffer.wrap(sink.buf, 0, sink.len);
    }

    private static void snappy(ByteBuffer src, int from, int to, Sink sink) throws IOException {
        byte[] in;
        int start;
        int end;
        if (src.hasArray()) {
            in = src.array();
            start = src.arrayOffset() + from;
            end = src.arrayOffset() + to;
        } else {
            in = new byte[to - from];
            src.get(from, in);
            start = 0;
            end = in.length;
        }
        if (end - start < SNAPPY_HEADER_SIZE || !startsWithSnappyMagic(in, start, end)) {
            snappyBlock(in, start, end - start, sink);
            return;
        }
        int p = start + SNAPPY_HEADER_SIZE;
        while (p < end) {
            if (startsWithSnappyMagic(in, p, end)) { // concatenated streams repeat the header
                if (end - p < SNAPPY_HEADER_SIZE) {
                    throw new CorruptRecordException("snappy: truncated stream header at byte " + (p - start));
                }
                p += SNAPPY_HEADER_SIZE;
                continue;
            }
            if (end - p < 4) {
                throw new CorruptRecordException("snappy: truncated chunk length at byte " + (p - start));
            }
            int chunk = ((in[p] & 0xFF) << 24) | ((in[p + 1] & 0xFF) << 16) | ((in[p + 2] & 0xFF) << 8) | (in[p + 3] & 0xFF);
            p += 4;
            if (chunk < 0 || chunk > end - p) {
                throw new CorruptRecordException("snappy: chunk length " + chunk + " exceeds the " + (end - p)
                        + " bytes that remain");
            }
            snappyBlock(in, p, chunk, sink);
            p += chunk;
        }
    }

    private static boolean startsWithSnappyMagic(byte[] in, int at, int end) {
        if (end - at < SNAPPY_MAGIC.length) {
            return false;
        }
        for (int i = 0; i < SNAPPY_MAGIC.length; i++) {
            if (in[at + i] != SNAPPY_MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    private static void snappyBlock(byte[] in, int off, int len, Sink sink) throws IOException {
        if (len == 0) {
            return;
        }
        int size = Snappy.uncompressedLength(in, off, len);
        if (size < 0) {
            throw new CorruptRecordException("snappy: block declares a negative uncompressed length");
        }
        sink.reserve(size);
        // The native decoder writes exactly the declared length and relies on the caller for room.
        int n = Snappy.uncompress(in, off, len, sink.buf, sink.len);
        if (n != size) {
            throw new CorruptRecordException("snappy: block declared " + size + " bytes but produced " + n);
        }
        sink.len += n;
    }

    /** Compresses {@code len} bytes of {@code in} into a new array, in the format described above. */
    static byte[] compress(Compression compression, byte[] in, int off, int len) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, len / 2));
        try (OutputStream os = wrapForOutput(compression, out)) {
            os.write(in, off, len);
        } catch (IOException e) {
            throw new IllegalStateException(compression + " compression failed", e);
        }
        return out.toByteArray();
    }

    private static OutputStream wrapForOutput(Compression compression, OutputStream out) throws IOException {
        return switch (compression) {
            case GZIP -> new GZIPOutputStream(out, 8192);
            case SNAPPY -> new SnappyOutputStream(out);
            case LZ4 -> new LZ4FrameOutputStream(out, LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB,
                    LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE);
            case ZSTD -> new ZstdOutputStreamNoFinalizer(out, ZSTD_DEFAULT_LEVEL);
            case NONE -> throw new IllegalArgumentException("NONE is not a compressed codec");
        };
    }

    /** Growable output array with a hard size bound. */
    private static final class Sink {
        final int max;
        final Compression compression;
        byte[] buf;
        int len;

        Sink(int initial, int max, Compression compression) {
            this.buf = new byte[initial];
            this.max = max;
            this.compression = compression;
        }

        void readAll(InputStream in) throws IOException {
            while (true) {
                if (len == buf.length) {
                    if (len >= max) {
                        if (in.read() >= 0) {
                            throw tooLarge();
                        }
                        return;
                    }
                    grow(len + 1);
                }
                int n = in.read(buf, len, buf.length - len);
                if (n < 0) {
                    return;
                }
                len += n;
            }
        }

        /** Makes room for {@code n} more bytes, or fails if that would pass the bound. */
        void reserve(int n) {
            if (n > max - len) {
                throw tooLarge();
            }
            if (n > buf.length - len) {
                grow(len + n);
            }
        }

        private void grow(int needed) {
            int capacity = (int) Math.min(max, Math.max(needed, 2L * buf.length));
            byte[] bigger = new byte[capacity];
            System.arraycopy(buf, 0, bigger, 0, len);
            buf = bigger;
        }

        private CorruptRecordException tooLarge() {
            return new CorruptRecordException(compression + " records section decompresses to more than " + max
                    + " bytes");
        }
    }
}
