package io.brook.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Opens the channels of segment files (data and index files): the one seam through which the storage
 * tests put a channel that fails on demand (no space, I/O errors and short writes on write,
 * force and read; see {@code docs/storage-faults.md}), and through which the server's fault hooks
 * (an embedded broker built with {@code faults(true)}) fail fsyncs, fill the disk and lose what
 * was not forced when they simulate a crash.
 *
 * <p>Cost: production installs nothing, so {@link #open} returns the JDK's own channel and every
 * write, force and read of a segment calls the one {@link FileChannel} class the JVM has loaded
 * (a call the JIT inlines, as before the seam). The only extra work is one look at an empty map
 * per segment opened, never per write.
 *
 * <p>Threading: any thread; interceptors are keyed by directory, so tests running in parallel
 * in one JVM each see only their own files.
 */
public final class SegmentChannels {
    /** Replaces a freshly opened channel (or fails the open). */
    @FunctionalInterface
    public interface Interceptor {
        FileChannel opened(Path file, FileChannel channel) throws IOException;
    }

    private static final Map<Path, Interceptor> INTERCEPTORS = new ConcurrentHashMap<>();

    private SegmentChannels() {
    }

    /** Channels of files below {@code dir} are opened through {@code interceptor}. */
    public static void intercept(Path dir, Interceptor interceptor) {
        INTERCEPTORS.put(dir.toAbsolutePath(), interceptor);
    }

    /** Removes the interceptor of {@code dir}. */
    public static void stopIntercepting(Path dir) {
        INTERCEPTORS.remove(dir.toAbsolutePath());
    }

    static FileChannel open(Path file, OpenOption... options) throws IOException {
        FileChannel ch = FileChannel.open(file, options);
        if (INTERCEPTORS.isEmpty()) {
            return ch;
        }
        Path abs = file.toAbsolutePath();
        for (Map.Entry<Path, Interceptor> e : INTERCEPTORS.entrySet()) {
            if (abs.startsWith(e.getKey())) {
                try {
                    return e.getValue().opened(abs, ch);
                } catch (IOException | RuntimeException ex) {
                    ch.close();
                    throw ex;
                }
            }
        }
        return ch;
    }
}
