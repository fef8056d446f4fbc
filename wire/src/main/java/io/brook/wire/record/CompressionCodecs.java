package io.brook.wire.record;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jpountz.xxhash.XXHashFactory;
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
 * stream declares. Callers that only walk the records read {@link #decompressing} as a stream
 * and keep no more than a small window of it ({@link RecordWalker}). Snappy chunks are parsed by
 * {@link SnappyBlocksInputStream} rather than by {@code SnappyInputStream} because that class
 * allocates whatever chunk size and uncompressed length the input declares. LZ4 frame blocks are
 * at most 4 MiB by the format. zstd windows are limited to {@link #ZSTD_MAX_WINDOW_LOG}.
 */
final class CompressionCodecs {
    /**
     * The largest zstd window accepted: 2^23 = 8 MiB, the limit RFC 8878 (3.1.1.1.2) recommends
     * decoders to support and encoders not to exceed. zstd's own default limit is 2^27: a frame
     * declaring such a window makes the decoder allocate it (128 MiB of native memory) whatever
     * the frame holds. Every compression level up to 19 stays within 8 MiB; only the "ultra"
     * levels 20-22 write larger windows, and batches compressed at those levels are refused.
     */
    static final int ZSTD_MAX_WINDOW_LOG = 23;
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
        try (InputStream in = decompressing(compression, src, from, to, maxBytes)) {
            sink.readAll(in);
        } catch (CorruptRecordException e) {
            throw e;
        } catch (IOException | RuntimeException | SnappyError e) {
            throw new CorruptRecordException(compression + " records section of " + compressedSize
                    + " bytes does not decompress: " + e, e);
        }
        return ByteBuffer.wrap(sink.buf, 0, sink.len);
    }

    /**
     * A stream of the decompressed bytes [from, to) of {@code src} (absolute indices, position
     * untouched), which the caller reads as far as it needs and closes (zstd holds native memory
     * until then). The stream does not count its output: the caller bounds what it reads.
     * {@code maxBytes} bounds what the stream may allocate at once: a snappy block that declares
     * more is refused. A zstd frame whose window exceeds {@link #ZSTD_MAX_WINDOW_LOG} fails when
     * its header is read.
     *
     * @throws IOException from the codec for malformed input; a {@link CorruptRecordException}
     *         (unchecked) for a malformed snappy stream or a block larger than {@code maxBytes}
     */
    static InputStream decompressing(Compression compression, ByteBuffer src, int from, int to, int maxBytes)
            throws IOException {
        InputStream raw = new ByteBufferInputStream(src, from, to);
        return switch (compression) {
            case GZIP -> new GZIPInputStream(raw, 8192);
            case SNAPPY -> new SnappyBlocksInputStream(src, from, to, maxBytes);
            case LZ4 -> new LZ4FrameInputStream(raw, LZ4_DECOMPRESSOR, XXHashFactory.fastestInstance().hash32());
            // the pool recycles the stream's 128 KiB input buffer, which it would otherwise allocate per batch
            case ZSTD -> new ZstdInputStreamNoFinalizer(raw, RecyclingBufferPool.INSTANCE)
                    .setLongMax(ZSTD_MAX_WINDOW_LOG);
            case NONE -> throw new IllegalArgumentException("not a compressed codec: " + compression);
        };
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
