package io.brook.reliability;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A small file system mounted for one scenario: an ext4 image on a loop device (real block
 * allocation, journal and fsync), or tmpfs with {@code size=} where loop devices are not
 * available. Mounting needs root. {@link #close()} unmounts it (lazily if it is still busy) and
 * deletes the image; a shutdown hook does the same if the JVM exits first.
 */
final class SmallFileSystem implements AutoCloseable {

    /** Why no small file system could be mounted here: the scenario is skipped with this reason. */
    static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        Unavailable(String reason) {
            super(reason);
        }
    }

    private final Path mountPoint;
    private final Path image;
    private final String kind;
    private final Thread hook;
    private boolean closed;

    private SmallFileSystem(Path mountPoint, Path image, String kind) {
        this.mountPoint = mountPoint;
        this.image = image;
        this.kind = kind;
        this.hook = new Thread(this::unmountQuietly, "unmount-" + mountPoint.getFileName());
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * Mounts a file system of {@code bytes} at a new directory {@code mountPoint}, the ext4 image
     * (if one is made) at {@code image}.
     */
    static SmallFileSystem mount(Path mountPoint, Path image, long bytes) throws Unavailable, IOException,
            InterruptedException {
        String uid = Machine.command("id", "-u");
        if (!uid.equals("0")) {
            throw new Unavailable("needs root to mount a small file system (id -u is " + uid + ")");
        }
        Files.createDirectories(mountPoint);
        List<String> problems = new ArrayList<>();
        try (RandomAccessFile f = new RandomAccessFile(image.toFile(), "rw")) {
            f.setLength(bytes);
        }
        // -m 0: no blocks reserved for root (the broker runs as root here and would use them)
        String mkfs = run("mkfs.ext4", "-q", "-F", "-m", "0", image.toString());
        String loop = mkfs == null ? run("mount", "-o", "loop", image.toString(), mountPoint.toString()) : mkfs;
        if (loop == null) {
            return new SmallFileSystem(mountPoint, image, "ext4 on a loop device, " + (bytes >> 20) + " MiB");
        }
        problems.add("ext4 on a loop device: " + loop);
        Files.deleteIfExists(image);
        String tmpfs = run("mount", "-t", "tmpfs", "-o", "size=" + bytes, "tmpfs", mountPoint.toString());
        if (tmpfs == null) {
            return new SmallFileSystem(mountPoint, null, "tmpfs, size=" + (bytes >> 20) + " MiB");
        }
        problems.add("tmpfs: " + tmpfs);
        Files.deleteIfExists(mountPoint);
        throw new Unavailable("cannot mount a small file system: " + String.join("; ", problems));
    }

    Path root() {
        return mountPoint;
    }

    String kind() {
        return kind;
    }

    /** Bytes still free for new data. */
    long usableBytes() throws IOException {
        return Files.getFileStore(mountPoint).getUsableSpace();
    }

    @Override
    public synchronized void close() throws IOException, InterruptedException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: the hook runs (or ran) the same unmount
        }
        String problem = run("umount", mountPoint.toString());
        if (problem != null) {
            String lazy = run("umount", "-l", mountPoint.toString());
            if (lazy != null) {
                throw new IOException("cannot unmount " + mountPoint + ": " + problem + "; lazily: " + lazy);
            }
        }
        Files.deleteIfExists(mountPoint);
        if (image != null) {
            Files.deleteIfExists(image);
        }
    }

    private void unmountQuietly() {
        try {
            close();
        } catch (IOException | InterruptedException e) {
            System.err.println("reliability: " + e.getMessage());
        }
    }

    /** Runs a command; null when it succeeded, else its exit status and output (or why it could not start). */
    static String run(String... cmd) {
        Process p;
        String out;
        int status;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            status = p.waitFor();
        } catch (IOException e) {
            return e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
        return status == 0 ? null : "`" + String.join(" ", cmd) + "` exited with " + status + ": " + out;
    }
}
