package io.brook.reliability;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The power cuts of one scenario on its {@link PowerCutFileSystem}: each {@link #next} mounts the
 * file system for the next broker run, each {@link #cut} (with the broker killed) takes what was
 * not durable. Cuts alternate between clean (everything unforced lost) and torn (each unforced
 * page kept with probability one half), their seeds drawn from the scenario's random. Sums what
 * the cuts took, so that the report shows they took something.
 */
final class PowerCuts implements AutoCloseable {
    static final double TORN_KEEP = 0.5;

    private final PowerCutFileSystem fs;
    private final PowerCutFileSystem.Names names;
    private final Random random;
    private final Map<String, Long> taken = new TreeMap<>();
    private int cuts;
    private int torn;

    PowerCuts(PowerCutFileSystem fs, PowerCutFileSystem.Names names, Random random) {
        this.fs = fs;
        this.names = names;
        this.random = random;
    }

    /** Mounts the file system for the next run of the broker. */
    void next() throws IOException {
        boolean tear = cuts % 2 == 1;
        fs.mount(random.nextLong(), tear ? TORN_KEEP : 0, names);
    }

    /** The power cut after a kill. */
    void cut() throws IOException, InterruptedException {
        boolean tear = cuts % 2 == 1;
        fs.cut().forEach((k, v) -> taken.merge(k, v, Long::sum));
        cuts++;
        if (tear) {
            torn++;
        }
    }

    /** The total of one of the daemon's summary figures over every cut so far. */
    long taken(String figure) {
        return taken.getOrDefault(figure, 0L);
    }

    /** Where the broker's data live between runs (for inspection after a failure). */
    Path disk() {
        return fs.liveDirectory();
    }

    void addTo(ScenarioResult result) {
        result.figure("power cuts", cuts, "");
        result.figure("name changes durable", names == PowerCutFileSystem.Names.STRICT
                ? "at an fsync of their directory (POSIX)" : "at any fsync (ext4, XFS)");
        result.figure("of them torn (each unforced page kept with probability " + TORN_KEEP + ")", torn, "");
        result.figure("files whose unforced writes a cut undid", taken("files_cut"), "");
        result.figure("unforced bytes written before the cuts", taken("bytes_written_since_fsync"), "B");
        result.figure("unforced pages lost", taken("pages_lost"), "");
        result.figure("unforced pages kept by torn cuts", taken("pages_kept"), "");
        result.figure("directory entries undone (created, removed or renamed, not forced)",
                taken("entries_undone"), "");
        result.figure("directory entries moot (their directory's removal was durable)", taken("entries_moot"), "");
        result.figure("cuts whose connection the kernel ended with an error at the unmount (cut as usual)",
                taken("connections_aborted"), "");
        result.check("every undo of the cuts applied", taken("entry_undo_failures") == 0,
                taken("entry_undo_failures") + " entries could not be undone (see the FUSE log)");
    }

    /** Unmounts the file system (no cut). */
    @Override
    public void close() {
        fs.close();
    }
}
