package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.file.DurableFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the power-cut file system takes and keeps, through the Java calls the broker's storage
 * makes ({@link FileChannel#force}, {@link DurableFiles#fsyncDirectory}, atomic moves). Needs root
 * and /dev/fuse (skipped otherwise); in CI a missing python3-fusepy fails it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PowerCutFileSystemTest {
    @TempDir
    Path work;
    private PowerCutFileSystem fs;
    private Path root;

    @BeforeEach
    void prepare() throws Exception {
        if (System.getenv("CI") != null) {
            assertThat(PowerCutFileSystem.missingPython()).as("python3-fusepy, installed by .ci/run").isNull();
        }
        try {
            fs = PowerCutFileSystem.prepare(work.resolve("disk"), work.resolve("mnt"), work.resolve("fuse.log"));
        } catch (PowerCutFileSystem.Unavailable e) {
            Assumptions.abort(e.getMessage());
        }
        root = fs.root();
    }

    @AfterEach
    void unmount() throws Exception {
        if (fs != null) {
            fs.close();
        }
    }

    @Test
    void aCleanCutKeepsExactlyWhatWasForced() throws Exception {
        fs.mount(1, 0, PowerCutFileSystem.Names.STRICT);
        Path a = root.resolve("a");
        try (FileChannel ch = FileChannel.open(a, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            write(ch, "forced");
            ch.force(false);
            write(ch, " and more");
        }
        DurableFiles.fsyncDirectory(root);
        Files.createDirectory(root.resolve("d"));
        DurableFiles.fsyncDirectory(root);
        forcedFile(root.resolve("d/named"), "both forced");
        forcedFile(root.resolve("d/tmp"), "moved");
        DurableFiles.moveAtomically(root.resolve("d/tmp"), root.resolve("d/moved")); // forces d
        forcedFile(root.resolve("d/unnamed"), "its data forced, its name not");
        Files.delete(root.resolve("d/named"));

        Map<String, Long> summary = fs.cut();

        Path disk = fs.liveDirectory();
        assertThat(Files.readString(disk.resolve("a"))).isEqualTo("forced");
        assertThat(disk.resolve("d/unnamed")).doesNotExist();
        // the deletion was not forced: the file comes back, whole
        assertThat(Files.readString(disk.resolve("d/named"))).isEqualTo("both forced");
        assertThat(Files.readString(disk.resolve("d/moved"))).isEqualTo("moved");
        assertThat(disk.resolve("d/tmp")).doesNotExist();
        assertThat(summary).containsEntry("files_cut", 1L).containsEntry("entry_undo_failures", 0L);
    }

    @Test
    void journaledNamesAreDurableAtAnyForceButUnforcedDataIsNot() throws Exception {
        fs.mount(2, 0, PowerCutFileSystem.Names.JOURNALED);
        Path unforced = root.resolve("unforced");
        Files.writeString(unforced, "never forced");
        forcedFile(root.resolve("other"), "forced");

        fs.cut();

        Path disk = fs.liveDirectory();
        assertThat(disk.resolve("unforced")).exists();
        assertThat(Files.size(disk.resolve("unforced"))).isZero();
        assertThat(Files.readString(disk.resolve("other"))).isEqualTo("forced");
    }

    @Test
    void aTornCutKeepsUnforcedPagesWithItsProbability() throws Exception {
        fs.mount(3, 1.0, PowerCutFileSystem.Names.STRICT);
        Path f = root.resolve("f");
        forcedFile(f, "x".repeat(10_000));
        DurableFiles.fsyncDirectory(root);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap("y".repeat(10_000).getBytes(StandardCharsets.US_ASCII)), 5_000);
        }

        Map<String, Long> summary = fs.cut();

        // kept with probability 1: the file is as written, longer than what was forced
        assertThat(Files.readString(fs.liveDirectory().resolve("f"))).isEqualTo("x".repeat(5_000) + "y".repeat(10_000));
        assertThat(summary.get("pages_kept")).isEqualTo(3L);
        assertThat(summary.get("pages_lost")).isZero();
    }

    @Test
    void theNextMountGoesOnFromTheDiskTheCutLeft() throws Exception {
        fs.mount(4, 0, PowerCutFileSystem.Names.STRICT);
        forcedFile(root.resolve("kept"), "kept");
        DurableFiles.fsyncDirectory(root);
        fs.cut();

        fs.mount(5, 0, PowerCutFileSystem.Names.STRICT);
        assertThat(Files.readString(root.resolve("kept"))).isEqualTo("kept");
        Files.writeString(root.resolve("kept"), "overwritten, not forced");
        fs.cut();

        assertThat(Files.readString(fs.liveDirectory().resolve("kept"))).isEqualTo("kept");
    }

    private static void forcedFile(Path file, String content) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            write(ch, content);
            ch.force(true);
        }
    }

    private static void write(FileChannel ch, String s) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }
}
