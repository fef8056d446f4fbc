package io.brook.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
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
