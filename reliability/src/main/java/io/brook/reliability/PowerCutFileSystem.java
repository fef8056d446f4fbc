package io.brook.reliability;

import io.brook.testkit.Await;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A directory whose unforced changes a power cut takes: the FUSE file system of
 * {@code powercut_fs.py} (a resource beside this class, run by Debian's python3 with its
 * {@code python3-fusepy}) mounted over a backing directory. While mounted, every write,
 * truncation, creation, removal and rename is applied at once and journaled until an fsync of the
 * file (for data) or of its directory (for names) makes it durable. {@link #cut} unmounts it and
 * has the daemon undo everything not durable, so that the backing directory holds what a disk
 * would after the power came back; {@link #mount} again continues from there.
 *
 * <p>Needs root and {@code /dev/fuse}; {@link Unavailable} says what is missing.
 */
final class PowerCutFileSystem implements AutoCloseable {
    static final Path PYTHON = Path.of("/usr/bin/python3"); // where Debian's python3-fusepy is importable

    /** Why the file system cannot be mounted here. */
    static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        Unavailable(String reason) {
            super(reason);
        }
    }

    private final Path script;
    private final Path backing;
    private final Path mountPoint;
    private final Path daemonLog;
    private final Thread hook;
    private volatile Process daemon;

    private PowerCutFileSystem(Path script, Path backing, Path mountPoint, Path daemonLog) {
        this.script = script;
        this.backing = backing;
        this.mountPoint = mountPoint;
        this.daemonLog = daemonLog;
        this.hook = new Thread(this::unmountQuietly, "unmount-" + mountPoint.getFileName());
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * Checks what the file system needs and prepares it over {@code backing} (created if missing;
     * the data live in its {@code live} directory) at {@code mountPoint}; nothing is mounted yet.
     */
    static PowerCutFileSystem prepare(Path backing, Path mountPoint, Path daemonLog) throws Unavailable, IOException {
        String uid = Machine.command("id", "-u");
        if (!uid.equals("0")) {
            throw new Unavailable("needs root to mount a FUSE file system (id -u is " + uid + ")");
        }
        if (!Files.exists(Path.of("/dev/fuse"))) {
            throw new Unavailable("this machine has no /dev/fuse");
        }
        String missing = missingPython();
        if (missing != null) {
            throw new Unavailable(missing);
        }
        Files.createDirectories(backing);
        Files.createDirectories(mountPoint);
        Path script = backing.resolveSibling("powercut_fs.py");
        try (InputStream in = PowerCutFileSystem.class.getResourceAsStream("powercut_fs.py")) {
            if (in == null) {
                throw new IOException("powercut_fs.py is not on the classpath");
            }
            Files.write(script, in.readAllBytes());
        }
        return new PowerCutFileSystem(script, backing, mountPoint, daemonLog);
    }

    /** Null when Debian's python3 can import fusepy, else why not (installed by {@code .ci/run}). */
    static String missingPython() {
        if (!Files.isExecutable(PYTHON)) {
            return PYTHON + " is missing";
        }
        String out = Machine.command(PYTHON.toString(), "-c", "import fusepy; print('ok')");
        return out.equals("ok") ? null : PYTHON + " cannot import fusepy (Debian's python3-fusepy)";
    }

    /** Where the data are kept: what the broker sees while mounted, the disk after a cut. */
    Path liveDirectory() {
        return backing.resolve("live");
    }

    /** The directory the broker uses. */
    Path root() {
        return mountPoint;
    }

    /** When a change of a directory entry (a creation, removal or rename) becomes durable. */
    enum Names {
        /** At an fsync of its directory: what POSIX promises, and all a careful program may assume. */
        STRICT,
        /**
         * At any fsync at all: how ext4 and XFS behave, as they journal name changes in order and
         * a force of any file commits the journal.
         */
        JOURNALED
    }

    /**
     * Mounts the file system; the next {@link #cut} keeps each unforced page with probability
     * {@code keep} (0: it loses everything unforced), chosen with {@code seed}, and undoes the
     * name changes not durable under {@code names}.
     */
    void mount(long seed, double keep, Names names) throws IOException {
        if (daemon != null) {
            throw new IllegalStateException("already mounted");
        }
        daemon = new ProcessBuilder(PYTHON.toString(), script.toString(), backing.toString(), mountPoint.toString(),
                Long.toString(seed), Double.toString(keep), names.name().toLowerCase(Locale.ROOT))
                .redirectError(ProcessBuilder.Redirect.appendTo(daemonLog.toFile()))
                .start();
        Process started = daemon;
        Await.until("the FUSE file system at " + mountPoint, Duration.ofSeconds(20),
                () -> mounted() || !started.isAlive());
        if (!mounted()) {
            throw new IOException("the FUSE daemon exited with " + started.exitValue() + " before mounting "
                    + mountPoint + "; see " + daemonLog);
        }
    }

    /**
     * The power cut: unmounts (the broker must be dead, so that nothing holds a file open) and
     * waits until the daemon has undone what was not durable. Returns the daemon's summary, e.g.
     * {@code files_cut}, {@code pages_lost}, {@code entries_undone}.
     */
    Map<String, Long> cut() throws IOException, InterruptedException {
        if (daemon == null) {
            throw new IllegalStateException("not mounted");
        }
        Process d = daemon;
        daemon = null;
        // a just-killed broker's last file handles may still be closing: retry a busy unmount
        String[] problem = {null};
        boolean unmounted = Waits.holds(Duration.ofSeconds(10), () -> {
            problem[0] = SmallFileSystem.run("umount", mountPoint.toString());
            return problem[0] == null;
        });
        if (!unmounted) {
            // what kept it busy goes into the daemon's log before anything is forced out
            String holders = MountHolders.describe(mountPoint, d.pid());
            Files.writeString(daemonLog, "unmount of " + mountPoint + " busy for 10 s: " + problem[0] + "\n" + holders,
                    StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            String lazy = SmallFileSystem.run("umount", "-l", mountPoint.toString());
            if (lazy != null) {
                d.destroyForcibly();
                throw new IOException("cannot unmount " + mountPoint + ": " + problem[0] + "; lazily: " + lazy
                        + "; holders: " + holders);
            }
        }
        String out = new String(d.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!d.waitFor(120, TimeUnit.SECONDS)) {
            d.destroyForcibly();
            throw new IOException("the FUSE daemon did not finish its cut within 120 s");
        }
        if (d.exitValue() != 0) {
            throw new IOException("the FUSE daemon exited with " + d.exitValue() + "; see " + daemonLog
                    + (unmounted ? "" : " (the unmount was busy for 10 s and was made lazily; who held it is there)"));
        }
        return summary(out);
    }

    static Map<String, Long> summary(String json) {
        Map<String, Long> out = new LinkedHashMap<>();
        Matcher m = Pattern.compile("\"([a-z_]+)\": (\\d+)").matcher(json);
        while (m.find()) {
            out.put(m.group(1), Long.parseLong(m.group(2)));
        }
        if (out.isEmpty()) {
            throw new IllegalStateException("no summary from the FUSE daemon: " + json);
        }
        return out;
    }

    private boolean mounted() {
        try {
            String target = " " + mountPoint.toAbsolutePath() + " ";
            return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().anyMatch(l -> l.contains(target));
        } catch (IOException e) {
            return false;
        }
    }

    /** Unmounts without a cut's summary (the backing directory keeps everything written). */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs the same unmount
        }
        unmountQuietly();
    }

    private void unmountQuietly() {
        Process d = daemon;
        daemon = null;
        if (d != null) {
            try {
                if (SmallFileSystem.run("umount", mountPoint.toString()) != null) {
                    SmallFileSystem.run("umount", "-l", mountPoint.toString());
                }
                if (!d.waitFor(60, TimeUnit.SECONDS)) {
                    d.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                System.err.println("reliability: " + e.getMessage());
            }
        }
    }
}
