package io.brook.storage;

import io.brook.storage.file.DurableFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * One segment: {@code <base>.log} with batches exactly as appended, its sparse {@link OffsetIndex}
 * ({@code .index}) and {@link TimeIndex} ({@code .timeindex}); base = the first offset it may
 * hold, as 20 zero-padded digits.
 *
 * <p>Threading: appends, truncation and index rebuilds run under the owning log's lock (a single
 * writer); reads run on any thread and see a prefix of the file bounded by {@link #size()}, which
 * is published only after the bytes were written. {@link #flush} runs on the flusher thread.
 * {@link #flush}, {@link #flushIndexes} and {@link #markDeleted} hold this segment's monitor, so a
 * segment marked deleted is never forced afterwards and marking waits for a force in progress
 * (so it is never done under the append lock without the flush lock, see the package
 * documentation).
 *
 * <p>Preallocation (the active segment only): the file may extend past {@link #size()} with
 * zeros written ahead of the data, see {@link PreallocatedTail}. Tailing reads find their batch
 * through {@link RecentBatches}.
 */
final class LogSegment {
    private static final Logger LOG = LoggerFactory.getLogger(LogSegment.class);
    static final String LOG_SUFFIX = ".log";
    static final String INDEX_SUFFIX = ".index";
    static final String TIME_INDEX_SUFFIX = ".timeindex";
    static final String CLEANED_SUFFIX = ".cleaned";
    static final String SWAP_SUFFIX = ".swap";
    static final String DELETED_SUFFIX = ".deleted";
    /** As many zeros as a file name's offset has digits (Long.MAX_VALUE has 19). */
    private static final String ZEROS = "00000000000000000000";
    /** Bytes of a header needed to find a batch: up to and including lastOffsetDelta. */
    static final int LOCATE_BYTES = BatchHeader.LAST_OFFSET_DELTA + 4;

    final long baseOffset;
    private final Path dir;
    private final FileChannel channel;
    final OffsetIndex offsetIndex;
    final TimeIndex timeIndex;
    private final int indexIntervalBytes;

    private volatile int size;
    private int bytesSinceLastIndexEntry;
    private volatile long nextOffset;
    private volatile long maxTimestamp = -1L;
    private volatile long rollingTimestamp = -1L;
    private volatile long createdMs;
    /** Last offset of the first batch holding {@link #maxTimestamp} (the time index's offset for it), or -1. */
    private long offsetOfMaxTimestamp = -1L;
    /** Whether the directory entry of a newly created file still has to be fsynced. */
    private volatile boolean directoryEntryDirty;
    /**
     * Whether the file may hold bytes (or a length) not yet forced: set after every write or
     * truncation and by a recovery scan (whose data may sit in the page cache only), cleared by
     * {@link #flush} just before its force, so a write racing with the force sets it again.
     */
    private volatile boolean dataDirty;
    /** Whether the index files on disk are stale relative to memory. */
    private boolean indexesDirty = true;
    /**
     * Set (under this segment's monitor) once the segment was taken out of its log to be deleted:
     * from then on {@link #flush} and {@link #flushIndexes} do nothing, so a flush racing with
     * retention, truncation or a compaction swap neither forces a closed channel nor writes the
     * index files of a deleted segment back.
     */
    private boolean deleted;
    /** Whether {@link #forceIndexFiles} forced the directory since this segment was opened (its thread only). */
    private boolean indexNamesForced;
    /** How often the log file was forced (observable by tests). */
    int forceCount;

    /** The zeros written ahead of the data (active segment only). */
    final PreallocatedTail tail;
    private final RecentBatches recent = new RecentBatches();
    /** Where the last {@link #recover} scan started, and the bytes recovery scans went through (tests). */
    int recoveryScanStart = -1;
    long recoveryBytesScanned;
    /** Header reads by {@link #findBatch}, counted only with assertions on (tests): no shared write on the read path. */
    int headerReads;

    private LogSegment(Path dir, long baseOffset, FileChannel channel, LogConfig config, long nowMs) {
        this.dir = dir;
        this.baseOffset = baseOffset;
        this.channel = channel;
        this.tail = new PreallocatedTail(channel);
        this.offsetIndex = new OffsetIndex(baseOffset, config.segmentIndexBytes());
        this.timeIndex = new TimeIndex(baseOffset, config.segmentIndexBytes());
        this.indexIntervalBytes = config.indexIntervalBytes();
        this.nextOffset = baseOffset;
        this.createdMs = nowMs;
    }

    /**
     * The offset in 20 digits, zero-padded (Kafka's file names). Padded by hand: the first
     * String.format of a JVM sets up the JDK's locale data (~80 classes), which a new broker's
     * first topic paid for.
     */
    static String name(long offset) {
        if (offset < 0) {
            return String.format(Locale.ROOT, "%020d", offset); // (no segment or snapshot has one)
        }
        String digits = Long.toString(offset);
        return ZEROS.substring(digits.length()) + digits;
    }

    static Path file(Path dir, long base, String suffix) {
        return dir.resolve(name(base) + suffix);
    }

    /** A new empty segment; an existing file of that name is emptied. */
    static LogSegment create(Path dir, long base, LogConfig config, long nowMs) throws IOException {
        FileChannel ch = SegmentChannels.open(file(dir, base, LOG_SUFFIX), StandardOpenOption.CREATE,
                StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        try {
            Files.deleteIfExists(file(dir, base, INDEX_SUFFIX));
            Files.deleteIfExists(file(dir, base, TIME_INDEX_SUFFIX));
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        LogSegment s = new LogSegment(dir, base, ch, config, nowMs);
        s.directoryEntryDirty = true;
        // Empty indexes need no files: a segment without data is never indexed at load.
        s.indexesDirty = false;
        return s;
    }

    /** Opens an existing segment; nothing is trusted until {@link #load} or {@link #recover}. */
    static LogSegment open(Path dir, long base, LogConfig config, long nowMs) throws IOException {
        return open(dir, base, file(dir, base, LOG_SUFFIX), config, nowMs);
    }

    /**
     * Opens {@code logFile} as the segment with base offset {@code base} of {@code dir}: a file
     * written under another name (a compaction's {@code .cleaned} file) that is renamed to the
     * segment's name before the segment is used; nothing is trusted until {@link #recover}.
     */
    static LogSegment open(Path dir, long base, Path logFile, LogConfig config, long nowMs) throws IOException {
        FileChannel ch = SegmentChannels.open(logFile, StandardOpenOption.READ, StandardOpenOption.WRITE);
        LogSegment s = new LogSegment(dir, base, ch, config, nowMs);
        s.size = (int) Math.min(Integer.MAX_VALUE, ch.size());
        // An empty segment is not indexed (see Log's load): there is nothing to write back.
        s.indexesDirty = s.size > 0;
        return s;
    }

    /** The log directory the segment's files live in. */
    Path dir() {
        return dir;
    }

    Path logFile() {
        return file(dir, baseOffset, LOG_SUFFIX);
    }

    FileChannel channel() {
        return channel;
    }

    int size() {
        return size;
    }

    /** One past the last offset held; the base offset when empty. */
    long nextOffset() {
        return nextOffset;
    }

    long maxTimestamp() {
        return maxTimestamp;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Time from which segment.ms counts: the first batch's timestamp, else when the segment was made. */
    long rollingTimestamp() {
        return rollingTimestamp >= 0 ? rollingTimestamp : createdMs;
    }

    /** The largest timestamp of the first batch; -1 when empty or the batch has none. */
    long firstBatchTimestamp() {
        return rollingTimestamp;
    }

    boolean indexesFull() {
        return offsetIndex.isFull() || timeIndex.isFull();
    }

    /**
     * Appends one batch (in {@code srcs}, {@code bytes} long in total) whose offsets are already
     * assigned. The channel position is kept at the end of the file by the single writer.
     */
    void append(ByteBuffer[] srcs, int bytes, long batchBase, long batchLast, long batchMaxTs) throws IOException {
        int position = size;
        tail.append(srcs, bytes, position);
        noteBatch(batchLast, position, bytes, batchMaxTs);
        nextOffset = batchLast + 1;
        indexesDirty = true;
        dataDirty = true;
        recent.add(batchBase - baseOffset, position);
        size = position + bytes;
    }

    /**
     * Takes a batch of {@code bytes} at {@code position} ending at offset {@code batchLast} (by an
     * append, or found by recovery) into the segment's timestamps and, once
     * {@code index.interval.bytes} passed since the last entry, into the offset and time indexes,
     * with the offsets Kafka's index files hold (see {@link OffsetIndex} and {@link TimeIndex}).
     */
    private void noteBatch(long batchLast, int position, int bytes, long batchMaxTs) {
        if (position == 0) {
            rollingTimestamp = batchMaxTs;
        }
        if (batchMaxTs > maxTimestamp) {
            maxTimestamp = batchMaxTs;
            offsetOfMaxTimestamp = batchLast;
        }
        if (bytesSinceLastIndexEntry > indexIntervalBytes) {
            offsetIndex.append(batchLast, position);
            timeIndex.maybeAppend(maxTimestamp, offsetOfMaxTimestamp);
            bytesSinceLastIndexEntry = 0;
        }
        bytesSinceLastIndexEntry += bytes;
    }

    /**
     * Under the log's append lock, after an append's write failed (no space): cuts off whatever a
     * short write left past the data (and the zeros ahead of it, freeing their space) and puts
     * the write position back at the end of the data, so that the next append writes there.
     * Nothing below {@link #size()} changes, so readers and a force in progress are unaffected.
     */
    void discardFailedAppend() throws IOException {
        channel.position(size);
        tail.cutAt(size);
        dataDirty = true;
    }

    /** Where the zeros written ahead of the data end (the file's length while preallocated). */
    int zeroedEnd() {
        return tail.zeroedEnd();
    }

    /** See {@link PreallocatedTail#extendZeros}: runs on the preallocator's thread. */
    long extendZeros(ByteBuffer zeros, long targetEnd) throws IOException {
        return tail.extendZeros(zeros, targetEnd);
    }

    /**
     * Stops preallocation and cuts the zeros past the data off the file (a rolled segment, a
     * clean close); the next {@link #flush} forces the new length.
     */
    void trimPreallocation() throws IOException {
        if (tail.trim(size)) {
            dataDirty = true;
        }
    }

    private boolean countHeaderRead() {
        headerReads++;
        return true;
    }

    /** Reads the locating part of the header at {@code position} into {@code hdr}; false if short. */
    private boolean readLocate(int position, ByteBuffer hdr) throws IOException {
        assert countHeaderRead();
        hdr.clear().limit(LOCATE_BYTES);
        long p = position;
        while (hdr.hasRemaining()) {
            int n = channel.read(hdr, p);
            if (n < 0) {
                return false;
            }
            p += n;
        }
        return true;
    }

    /**
     * Position of the first batch whose last offset is at or above {@code offset}, looking only
     * below {@code limit}; -1 if none. On success {@code hdr} holds that batch's first
     * {@link #LOCATE_BYTES} bytes.
     */
    int findBatch(long offset, int limit, ByteBuffer hdr) throws IOException {
        int recent = this.recent.find(offset - baseOffset);
        if (recent >= 0 && recent + BatchHeader.HEADER_SIZE <= limit && readLocate(recent, hdr)
                && hdr.getLong(BatchHeader.BASE_OFFSET) == offset
                && hdr.getInt(BatchHeader.BATCH_LENGTH) >= BatchHeader.MIN_BATCH_LENGTH) {
            return recent;
        }
        int slot = offset <= baseOffset ? -1 : offsetIndex.slotFor(offset);
        int position = slot < 0 ? 0 : offsetIndex.positionAt(slot);
        if (position >= limit) {
            position = 0;
            slot = -1;
        }
        while (position + BatchHeader.HEADER_SIZE <= limit) {
            if (!readLocate(position, hdr)) {
                return -1;
            }
            if (slot >= 0) {
                // The index is only a hint: an entry whose offset is not in the batch at its
                // position (a damaged file that passed the load checks) must not make us serve garbage.
                long expected = offsetIndex.offsetAt(slot);
                slot = -1;
                if (!BatchHeader.holds(hdr, 0, expected)) {
                    LOG.warn("{}: index entry for offset {} does not point at its batch; scanning", this, expected);
                    position = 0;
                    continue;
                }
            }
            int length = hdr.getInt(BatchHeader.BATCH_LENGTH);
            if (length < BatchHeader.MIN_BATCH_LENGTH) {
                return -1;
            }
            long last = hdr.getLong(BatchHeader.BASE_OFFSET) + hdr.getInt(BatchHeader.LAST_OFFSET_DELTA);
            if (last >= offset) {
                return position;
            }
            position += BatchHeader.LOG_OVERHEAD + length;
        }
        return -1;
    }

    /**
     * The slice that starts with the batch holding {@code offset} (or the first batch after it),
     * at most {@code maxBytes} long unless the first batch alone is longer and
     * {@code minOneBatch}, and never reaching past {@code limit}. Null when nothing qualifies.
     */
    FileRecords read(long offset, int maxBytes, int limit, boolean minOneBatch, ByteBuffer hdr) throws IOException {
        int position = findBatch(offset, limit, hdr);
        if (position < 0) {
            return null;
        }
        int first = BatchHeader.LOG_OVERHEAD + hdr.getInt(BatchHeader.BATCH_LENGTH);
        int available = limit - position;
        int length = Math.min(maxBytes, available);
        if (length < first) {
            if (!minOneBatch) {
                return null;
            }
            length = Math.min(first, available);
        }
        if (length <= 0) {
            return null;
        }
        return new FileRecords(channel, position, length, hdr.getLong(BatchHeader.BASE_OFFSET));
    }

    /**
     * Scans the whole file checking every batch (framing, CRC, offsets growing from the base),
     * rebuilding both indexes and the statistics from what is sound. Nothing is truncated here.
     *
     * @param replay receives each sound batch (the scanner's buffer and position), may be null
     * @return null if the file is sound to its end, else where and why it is not; {@link #size()}
     *         is then the end of the sound prefix
     */
    Corruption recover(BatchConsumer replay) throws IOException {
        return recover(replay, 0, baseOffset);
    }

    /**
     * {@link #recover(BatchConsumer)} from {@code start}, a position that {@link
     * RecoveryStart#verified} accepted for a batch holding offset {@code startOffset} (its index
     * entry): the bytes before it are taken as they are, with the index entries up to it and the
     * largest timestamp that the time index records for them (the running maximum up to the
     * indexed batch, as the appender wrote it); position 0 scans everything, from the segment's
     * base offset {@code startOffset}.
     */
    Corruption recover(BatchConsumer replay, int start, long startOffset) throws IOException {
        long fileSize = channel.size();
        if (start == 0) {
            offsetIndex.clear();
            timeIndex.clear();
            maxTimestamp = -1L;
            offsetOfMaxTimestamp = -1L;
            rollingTimestamp = -1L;
        } else {
            maxTimestamp = timeIndex.lastTimestamp();
            offsetOfMaxTimestamp = timeIndex.entries() == 0 ? -1L : timeIndex.lastOffset();
            rollingTimestamp = -1L;
            ByteBuffer first = ByteBuffer.allocate(BatchHeader.HEADER_SIZE);
            if (channel.read(first, 0) == BatchHeader.HEADER_SIZE) {
                rollingTimestamp = first.getLong(BatchHeader.MAX_TIMESTAMP);
            }
        }
        // The batch at a later start carries an index entry already: the next one is due
        // index.interval.bytes after it, as when it was appended.
        bytesSinceLastIndexEntry = 0;
        long expected = startOffset;
        boolean indexedBatch = start > 0;
        recoveryScanStart = start;
        BatchScanner scanner = new BatchScanner(channel, start, fileSize, true, Integer.MAX_VALUE);
        int validBytes = start;
        String error = null;
        while (scanner.next()) {
            ByteBuffer b = scanner.buffer();
            int p = scanner.batchPosition();
            long base = BatchHeader.baseOffset(b, p);
            long last = BatchHeader.lastOffset(b, p);
            if (indexedBatch ? expected < base || expected > last : base < expected) {
                error = indexedBatch ? "the indexed batch holds offsets " + base + " to " + last + ", not " + expected
                        : "base offset " + base + " below expected " + expected;
                break;
            }
            indexedBatch = false;
            int batchSize = BatchHeader.sizeInBytes(b, p);
            noteBatch(last, validBytes, batchSize, BatchHeader.maxTimestamp(b, p));
            expected = last + 1;
            if (replay != null) {
                replay.accept(b, p, base, expected - 1);
            }
            validBytes += batchSize;
        }
        if (error == null) {
            error = scanner.error();
        }
        recoveryBytesScanned += scanner.filePosition() - start;
        size = validBytes;
        nextOffset = expected;
        indexesDirty = true;
        dataDirty = true;
        if (error == null && validBytes == fileSize) {
            return null;
        }
        if (PreallocatedTail.isZero(channel, validBytes, fileSize)) {
            return new Corruption(logFile(), validBytes, expected, (fileSize - validBytes) + " bytes of zeros", true);
        }
        return new Corruption(logFile(), validBytes, expected, error == null ? "trailing bytes" : error, false);
    }

    /**
     * Trusts the file and loads the index files; returns false when they are missing or fail
     * their sanity checks (the caller then runs {@link #recover}).
     */
    boolean load() throws IOException {
        if (offsetIndex.load(file(dir, baseOffset, INDEX_SUFFIX), size) != null) {
            return false;
        }
        int position = offsetIndex.lastPosition();
        long indexed = offsetIndex.lastOffset();
        long max = -1L;
        long offsetOfMax = -1L;
        long next = baseOffset;
        boolean firstBatch = true;
        BatchScanner scanner = new BatchScanner(channel, position, size, false, Integer.MAX_VALUE);
        while (scanner.next()) {
            ByteBuffer b = scanner.buffer();
            int p = scanner.batchPosition();
            if (firstBatch && offsetIndex.entries() > 0 && !BatchHeader.holds(b, p, indexed)) {
                return false;
            }
            firstBatch = false;
            next = BatchHeader.lastOffset(b, p) + 1;
            if (BatchHeader.maxTimestamp(b, p) > max) {
                max = BatchHeader.maxTimestamp(b, p);
                offsetOfMax = next - 1;
            }
        }
        if (scanner.error() != null) {
            return false;
        }
        if (timeIndex.load(file(dir, baseOffset, TIME_INDEX_SUFFIX), next) != null) {
            return false;
        }
        nextOffset = next;
        boolean indexHoldsMax = timeIndex.entries() > 0 && timeIndex.lastTimestamp() >= max;
        maxTimestamp = indexHoldsMax ? timeIndex.lastTimestamp() : max;
        offsetOfMaxTimestamp = indexHoldsMax ? timeIndex.lastOffset() : offsetOfMax;
        bytesSinceLastIndexEntry = size - position;
        if (size >= BatchHeader.HEADER_SIZE) {
            ByteBuffer first = ByteBuffer.allocate(BatchHeader.HEADER_SIZE);
            if (channel.read(first, 0) == BatchHeader.HEADER_SIZE) {
                rollingTimestamp = first.getLong(BatchHeader.MAX_TIMESTAMP);
            }
        }
        indexesDirty = false;
        return true;
    }

    /**
     * Removes every batch that holds an offset at or above {@code offset}; a batch straddling it
     * goes whole (batches are never split). Returns the new {@link #nextOffset()}.
     */
    synchronized long truncateTo(long offset) throws IOException {
        ByteBuffer hdr = ByteBuffer.allocate(LOCATE_BYTES);
        int position = findBatch(offset, size, hdr);
        if (position < 0) {
            return nextOffset;
        }
        long cutBase = hdr.getLong(BatchHeader.BASE_OFFSET);
        truncateBytes(position, cutBase);
        return nextOffset;
    }

    /** Cuts the file at {@code position} (a batch boundary) where offset {@code next} would start. */
    synchronized void truncateBytes(int position, long next) throws IOException {
        if (position == size && next == nextOffset && position > 0) {
            // Only bytes past the data go (a recovery cutting a torn tail or zeros off): the
            // indexes and statistics stay right, and no scan of the whole segment is needed.
            tail.cutAt(position);
            dataDirty = true;
            channel.position(position);
            return;
        }
        recent.clear();
        tail.cutAt(position);
        dataDirty = true;
        channel.position(position);
        size = position;
        offsetIndex.truncateTo(next);
        timeIndex.truncateTo(next);
        nextOffset = position == 0 ? baseOffset : next;
        long max = -1L;
        offsetOfMaxTimestamp = -1L;
        BatchScanner scanner = new BatchScanner(channel, 0, position, false, Integer.MAX_VALUE);
        while (scanner.next()) {
            long ts = BatchHeader.maxTimestamp(scanner.buffer(), scanner.batchPosition());
            if (ts > max) {
                max = ts;
                offsetOfMaxTimestamp = BatchHeader.lastOffset(scanner.buffer(), scanner.batchPosition());
            }
        }
        maxTimestamp = max;
        if (position == 0) {
            rollingTimestamp = -1L;
        }
        bytesSinceLastIndexEntry = position - offsetIndex.lastPosition();
        indexesDirty = true;
    }

    /** Puts the write position at the end of the sound data (after load or recovery). */
    void prepareForAppend() throws IOException {
        if (tail.resetTo(size)) {
            dataDirty = true;
        }
        channel.position(size);
    }

    /** The segment stops being active: remember its largest timestamp in the time index. */
    void onBecomeInactive() {
        if (maxTimestamp >= 0 && offsetOfMaxTimestamp >= 0) {
            timeIndex.maybeAppend(maxTimestamp, offsetOfMaxTimestamp);
        }
    }

    /**
     * Forces the log file (fdatasync: data and the file length) if it changed since the last
     * force and, the first time it holds data after the file was created, the directory, without
     * which a power failure could lose the file's name even though its data reached the disk (an
     * empty segment lost that way is simply recreated at start-up).
     */
    synchronized void flush() throws IOException {
        if (deleted) {
            return;
        }
        if (dataDirty) {
            dataDirty = false;
            forceCount++;
            channel.force(false);
        }
        if (directoryEntryDirty && size > 0) {
            DurableFiles.fsyncDirectory(dir);
            directoryEntryDirty = false;
        }
    }

    /**
     * Deletes the index files (not the entries in memory, which the next {@link #flushIndexes}
     * writes); the caller makes the deletion durable.
     */
    void deleteIndexFiles() throws IOException {
        Files.deleteIfExists(file(dir, baseOffset, INDEX_SUFFIX));
        Files.deleteIfExists(file(dir, baseOffset, TIME_INDEX_SUFFIX));
        indexesDirty = true;
    }

    /**
     * Writes the index files without forcing them and without counting them as written (a
     * later {@link #flushIndexes} writes and forces them again): the active segment's, at the
     * end of an unclean start, for the next one (see {@link LogLoader}).
     */
    synchronized void writeIndexFiles() throws IOException {
        if (deleted) {
            return;
        }
        offsetIndex.writeTo(file(dir, baseOffset, INDEX_SUFFIX));
        timeIndex.writeTo(file(dir, baseOffset, TIME_INDEX_SUFFIX));
    }

    /**
     * Forces the index files {@link #writeIndexFiles} wrote, and the first time the directory,
     * whose entries for them may be new: the active segment's, with each recovery-point
     * checkpoint, so that a power cut leaves the next start an index to begin its scan at. Not
     * under the segment's lock, which {@link #flush} needs meanwhile; a segment deleted meanwhile
     * has nothing to force.
     */
    void forceIndexFiles() throws IOException {
        if (IndexFiles.forceExisting(file(dir, baseOffset, INDEX_SUFFIX), file(dir, baseOffset, TIME_INDEX_SUFFIX))
                && !indexNamesForced) {
            DurableFiles.fsyncDirectory(dir);
            indexNamesForced = true;
        }
    }

    /** Writes the index files if memory is newer, and forces them. */
    synchronized void flushIndexes() throws IOException {
        if (!indexesDirty || deleted) {
            return;
        }
        writeIndexFiles();
        IndexFiles.force(file(dir, baseOffset, INDEX_SUFFIX));
        IndexFiles.force(file(dir, baseOffset, TIME_INDEX_SUFFIX));
        indexesDirty = false;
    }

    void close() throws IOException {
        tail.stop();
        channel.close();
    }

    /**
     * Called when the segment leaves its log for deletion, before its files are renamed or
     * closed: waits for a flush of it in progress and turns later flushes into no-ops (its data
     * is no longer part of the log, so there is nothing left to make durable).
     */
    void markDeleted() {
        synchronized (this) {
            deleted = true;
        }
        tail.stop();
    }

    /**
     * Takes the segment out of service for good, once it is out of its log's map: marks it
     * deleted (waiting for a force of it in progress, so never under the append lock unless the
     * flush lock is held) and renames its files to {@code .deleted}.
     */
    void retire() throws IOException {
        markDeleted();
        renameWithSuffix(DELETED_SUFFIX);
    }

    synchronized boolean isDeleted() {
        return deleted;
    }

    /**
     * Renames all three files by adding {@code suffix} (e.g. before a delayed delete). The renames
     * are not forced: the caller fsyncs the directory, outside the log's append lock.
     */
    void renameWithSuffix(String suffix) throws IOException {
        for (String s : new String[] {INDEX_SUFFIX, TIME_INDEX_SUFFIX, LOG_SUFFIX}) {
            Path f = file(dir, baseOffset, s);
            if (Files.exists(f)) {
                Files.move(f, dir.resolve(f.getFileName() + suffix), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** Deletes the files of this segment carrying {@code suffix} after the normal name ("" for none). */
    static void deleteFiles(Path dir, long base, String suffix) throws IOException {
        for (String s : new String[] {INDEX_SUFFIX, TIME_INDEX_SUFFIX, LOG_SUFFIX}) {
            Files.deleteIfExists(dir.resolve(name(base) + s + suffix));
        }
    }

    @Override
    public String toString() {
        return "LogSegment(" + logFile() + ", size=" + size + ", next=" + nextOffset + ")";
    }

    /** Receives each sound batch of a scan. */
    @FunctionalInterface
    interface BatchConsumer {
        void accept(ByteBuffer buf, int position, long baseOffset, long lastOffset) throws IOException;
    }
}
