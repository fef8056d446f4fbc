package io.brook.storage.file;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The one place where Brook replaces, renames, forces and deletes files whose state must survive
 * a crash. Every failure propagates as an {@link IOException}: a caller that cannot make a change
 * durable must know it, and decides itself whether that takes a log offline, fails a request or
 * stops start-up. Nothing here swallows an error.
 *
 * <p>Replacing a small file: write {@code <name>.tmp} beside the target, force it, rename it over
 * the target atomically, force the directory so that the rename itself is durable. After a crash
 * the target holds either the old or the new content, never a mix; a leftover {@code .tmp} is
 * garbage that the next write overwrites.
 */
public final class DurableFiles {

    private DurableFiles() {
    }

    /** Replaces {@code target} with {@code content} durably (see the class comment). */
    public static void writeAtomically(Path target, byte[] content) throws IOException {
        Path dir = parentOf(target);
        Path tmp = dir.resolve(target.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(content);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        moveAtomically(tmp, target);
    }

    /**
     * Renames {@code source} to {@code target} (replacing it) atomically and forces the target's
     * directory, and the source's when it is another one.
     */
    public static void moveAtomically(Path source, Path target) throws IOException {
        Files.move(source, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Path targetDir = parentOf(target);
        fsyncDirectory(targetDir);
        Path sourceDir = parentOf(source);
        if (!sourceDir.equals(targetDir)) {
            fsyncDirectory(sourceDir);
        }
    }

    /** Forces a directory, so that the creations, renames and deletions in it are durable. */
    public static void fsyncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /**
     * Deletes a file, or a directory with everything below it, deepest first. A path that does
     * not exist is not an error; anything that cannot be deleted is.
     */
    public static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        List<Path> all;
        try (Stream<Path> walk = Files.walk(path)) {
            all = walk.sorted(Comparator.reverseOrder()).toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        for (Path p : all) {
            Files.deleteIfExists(p);
        }
    }

    private static Path parentOf(Path file) {
        Path dir = file.toAbsolutePath().getParent();
        if (dir == null) {
            throw new IllegalArgumentException("no parent directory: " + file);
        }
        return dir;
    }
}
