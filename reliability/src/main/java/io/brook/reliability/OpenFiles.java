package io.brook.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * A process's open file descriptors by kind, from {@code /proc/<pid>/fd}: {@value #SOCKET}s,
 * {@code anon_inode}s (an event loop's epoll, eventfd and timerfd), pipes, and files. A leaked
 * connection shows as a socket; event loops that start under load add anonymous inodes, and
 * segments opened add files, neither of which is a leak.
 */
final class OpenFiles {
    static final String SOCKET = "socket";

    private OpenFiles() {
    }

    /**
     * Checks ({@code check}) that {@code pid}'s sockets return to at most {@code slack} more than
     * {@code before} within 30 s, and reports the counts of every kind before and after.
     */
    static void checkSocketsReturn(ScenarioResult result, String check, long pid, Map<String, Long> before, int slack) {
        long socketsBefore = before.getOrDefault(SOCKET, 0L);
        AtomicReference<Map<String, Long>> after = new AtomicReference<>(before);
        boolean settled = Waits.holds(Duration.ofSeconds(30), () -> {
            after.set(of(pid));
            return after.get().getOrDefault(SOCKET, 0L) <= socketsBefore + slack;
        });
        result.check(check, settled, "open files before the fuzzing " + before + ", after it " + after.get()
                + " (sockets: limit +" + slack + ")");
    }

    /** Counts by kind; empty when the process is gone. */
    static Map<String, Long> of(long pid) {
        Map<String, Long> out = new TreeMap<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    out.merge(kind(Files.readSymbolicLink(fd).toString()), 1L, Long::sum);
                } catch (IOException e) {
                    // closed between the listing and the read
                }
            }
        } catch (IOException e) {
            return Map.of();
        }
        return out;
    }

    /** The kind of a descriptor from its link's target: {@code socket:[123]}, {@code anon_inode:[eventpoll]}, a path. */
    static String kind(String target) {
        if (target.startsWith("socket:")) {
            return SOCKET;
        } else if (target.startsWith("anon_inode:")) {
            return "anon_inode";
        } else if (target.startsWith("pipe:")) {
            return "pipe";
        }
        return "file";
    }
}
