package io.brook.cluster.raft;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.function.LongSupplier;

/**
 * Makes the names in the Raft log's directory durable before an answer depends on them.
 *
 * <p>Ratis forces its log files but never a directory. POSIX makes a new, renamed or removed name
 * durable only when its directory is forced, so after a power cut a file system may have lost a
 * new segment file, or a closed segment's rename, although the entries in it were forced and
 * acknowledged; and for a new node, the whole storage directory Ratis just created. (ext4 and XFS
 * journal name changes in order, so on them a later force of any file covers these; other file
 * systems need not.)
 *
 * <p>So: once, when the state machine is initialised, the storage directory's chain up to the
 * metadata directory is forced ({@link #forceStorage}); and before the state machine answers an
 * applied entry, the log's {@code current} directory is forced if it changed since the last force
 * ({@link #beforeAnswer}). The answer to a client waits for the apply, so no appender hears of an
 * entry whose segment's name a power cut could take. A change shows as a new modification time of
 * the directory; as file system timestamps are coarse, a force taken within {@link #SETTLE_MILLIS}
 * of the time it saw is repeated at the next answer. The same check runs before every force of the
 * log ({@link MetadataStateMachine#flush}), so that no entry counts as flushed while its segment's
 * name could still be lost, and before a granted vote is sent ({@link DurableVoteInterceptor}).
 *
 * <p>Threading: {@link #beforeAnswer} is called from Ratis' apply thread, its log worker and the
 * gRPC threads answering votes; it is synchronized.
 */
final class RaftDirectoryForcer {
    static final long SETTLE_MILLIS = 2_000;

    private final Path current;
    private final LongSupplier wallClockMillis;
    private FileTime forced;
    private boolean settled;
    private long forces;

    RaftDirectoryForcer(Path current, LongSupplier wallClockMillis) {
        this.current = current;
        this.wallClockMillis = wallClockMillis;
    }

    /** Forces {@code current}'s parent (the storage directory) and every directory up to {@code top}. */
    synchronized void forceStorage(Path top) throws IOException {
        Path end = top.toAbsolutePath().normalize();
        for (Path dir = current.toAbsolutePath().normalize(); dir != null; dir = dir.getParent()) {
            forceCounted(dir);
            if (dir.equals(end)) {
                break;
            }
        }
    }

    /** Forces the log's directory if its names may have changed since it was last forced. */
    synchronized void beforeAnswer() {
        try {
            long now = wallClockMillis.getAsLong();
            FileTime modified = Files.getLastModifiedTime(current);
            if (settled && modified.equals(forced)) {
                return;
            }
            forceCounted(current);
            forced = modified;
            // a change later in the same timestamp tick would leave the time as it is
            settled = now - modified.toMillis() > SETTLE_MILLIS;
        } catch (IOException e) {
            // as a failed fsync of a segment: the disk is failing, nothing more may be acknowledged
            throw new UncheckedIOException("cannot force the Raft log directory " + current, e);
        }
    }

    /** How many times a directory was forced (for tests). */
    synchronized long forces() {
        return forces;
    }

    private void forceCounted(Path dir) throws IOException {
        force(dir);
        forces++;
    }

    /** Forces a directory, so that the creations, renames and removals in it are durable. */
    static void force(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
