package io.brook.cluster.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RaftDirectoryForcerTest {
    @TempDir
    Path root;

    @Test
    void forcesTheLogDirectoryOnlyWhenItsNamesMayHaveChanged() throws Exception {
        Path current = Files.createDirectories(root.resolve("group/current"));
        Files.setLastModifiedTime(current, FileTime.fromMillis(1_000_000));
        AtomicLong now = new AtomicLong(1_000_000 + RaftDirectoryForcer.SETTLE_MILLIS + 1);
        RaftDirectoryForcer forcer = new RaftDirectoryForcer(current, now::get);

        forcer.beforeAnswer();
        forcer.beforeAnswer();
        assertThat(forcer.forces()).as("the first answer forces, the next sees no change").isEqualTo(1);

        Files.createFile(current.resolve("log_inprogress_7"));
        Files.setLastModifiedTime(current, FileTime.fromMillis(2_000_000));
        now.set(2_000_000 + RaftDirectoryForcer.SETTLE_MILLIS + 1);
        forcer.beforeAnswer();
        forcer.beforeAnswer();
        assertThat(forcer.forces()).as("a new name: forced once").isEqualTo(2);
    }

    @Test
    void aChangeWithinTheTimestampsTickIsForcedAgainAtTheNextAnswer() throws Exception {
        Path current = Files.createDirectories(root.resolve("group/current"));
        Files.setLastModifiedTime(current, FileTime.fromMillis(5_000_000));
        AtomicLong now = new AtomicLong(5_000_000); // read in the very tick of the change
        RaftDirectoryForcer forcer = new RaftDirectoryForcer(current, now::get);

        forcer.beforeAnswer();
        // another rename in the same tick would leave the time unchanged: not settled, so forced again
        forcer.beforeAnswer();
        assertThat(forcer.forces()).isEqualTo(2);

        now.set(5_000_000 + RaftDirectoryForcer.SETTLE_MILLIS + 1);
        forcer.beforeAnswer();
        forcer.beforeAnswer();
        assertThat(forcer.forces()).as("settled once the tick is long past").isEqualTo(3);
    }

    @Test
    void forcesTheStorageChainUpToTheMetadataDirectory() throws Exception {
        Path current = Files.createDirectories(root.resolve("meta/group/current"));
        RaftDirectoryForcer forcer = new RaftDirectoryForcer(current, System::currentTimeMillis);

        forcer.forceStorage(root.resolve("meta"));

        assertThat(forcer.forces()).as("current, group, meta").isEqualTo(3);
    }
}
