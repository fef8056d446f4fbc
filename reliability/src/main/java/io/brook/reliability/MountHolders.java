package io.brook.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Who keeps a mount busy, read from {@code /proc}: every process with a file, its working
 * directory or a mapping under the mount point, with its state and, for each of its threads in
 * uninterruptible sleep (state D), the kernel function it waits in and its kernel stack (readable
 * by root). Written down when a power cut's unmount stays busy, so that the report says what the
 * file system was waiting for.
 */
final class MountHolders {
    private MountHolders() {
    }

    /** A description of the holders of {@code mountPoint} and of {@code daemonPid}'s waits; never throws. */
    static String describe(Path mountPoint, long daemonPid) {
        String prefix = mountPoint.toAbsolutePath().toString();
        StringBuilder out = new StringBuilder();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path proc : procs) {
                long pid = Long.parseLong(proc.getFileName().toString());
                List<String> held = held(proc, prefix);
                if (!held.isEmpty() || pid == daemonPid) {
                    out.append("pid ").append(pid).append(' ').append(stat(proc))
                            .append(pid == daemonPid ? " (the FUSE daemon)" : "")
                            .append(held.isEmpty() ? "" : ", holds " + held.subList(0, Math.min(5, held.size()))
                                    + (held.size() > 5 ? " and " + (held.size() - 5) + " more" : ""))
                            .append('\n');
                    out.append(blockedThreads(proc));
                }
            }
        } catch (IOException | RuntimeException e) {
            out.append("(cannot read /proc: ").append(e).append(")\n");
        }
        return out.length() == 0 ? "no process holds " + prefix + "\n" : out.toString();
    }

    private static List<String> held(Path proc, String prefix) {
        List<String> held = new ArrayList<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(proc.resolve("fd"))) {
            for (Path fd : fds) {
                String target = readLink(fd);
                if (target.startsWith(prefix)) {
                    held.add(target.substring(prefix.length()));
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone, or not ours to read
        }
        if (readLink(proc.resolve("cwd")).startsWith(prefix)) {
            held.add("(working directory)");
        }
        try {
            for (String line : Files.readAllLines(proc.resolve("maps"), StandardCharsets.UTF_8)) {
                if (line.contains(prefix)) {
                    held.add("(mapped) " + line.substring(line.indexOf(prefix) + prefix.length()));
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone, or not ours to read
        }
        return held;
    }

    /** Threads of {@code proc} in state D: name, wait channel, kernel stack. */
    private static String blockedThreads(Path proc) {
        StringBuilder out = new StringBuilder();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(proc.resolve("task"))) {
            for (Path task : tasks) {
                String stat = stat(task);
                if (stat.contains(" D")) {
                    out.append("  thread ").append(task.getFileName()).append(' ').append(stat).append(" in ")
                            .append(read(task.resolve("wchan"))).append('\n');
                    for (String frame : read(task.resolve("stack")).split("\n")) {
                        out.append("    ").append(frame).append('\n');
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone
        }
        return out.toString();
    }

    /** "(comm) S": the name and state from {@code stat}. */
    private static String stat(Path proc) {
        String s = read(proc.resolve("stat"));
        int open = s.indexOf('(');
        int close = s.lastIndexOf(')');
        return open < 0 || close < open || close + 3 > s.length() ? s : s.substring(open, close + 3);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8).trim();
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private static String readLink(Path link) {
        try {
            return Files.readSymbolicLink(link).toString();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
