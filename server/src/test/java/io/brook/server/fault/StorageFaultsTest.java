package io.brook.server.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The crash model and the disk errors of {@link StorageFaults}, on plain files. */
class StorageFaultsTest {
    @TempDir
    Path dir;
    private StorageFaults faults;

    @BeforeEach
    void install() {
        faults = StorageFaults.install(dir);
    }

    @AfterEach
    void uninstall() {
        faults.uninstall();
    }

    private FileChannel open(Path file) throws IOException {
        return faults.opened(file, FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE));
    }

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void aCrashCutsEachFileAtItsFirstUnforcedWrite() throws IOException {
        Path log = dir.resolve("a.log");
        Path untouched = dir.resolve("b.log");
        try (FileChannel ch = open(log); FileChannel other = open(untouched)) {
            ch.write(bytes("durable"));
            other.write(bytes("forced"));
            ch.force(false);
            other.force(false);
            ch.write(bytes("-lost"));
            ch.write(bytes("-also-lost"));
        }
        faults.crash();
        faults.loseUnforced();
        assertThat(Files.readString(log)).isEqualTo("durable");
        assertThat(Files.readString(untouched)).isEqualTo("forced");
    }

    @Test
    void writesOverForcedZerosAreCutToo() throws IOException {
        Path log = dir.resolve("c.log");
        try (FileChannel ch = open(log)) {
            ch.write(ByteBuffer.allocate(64), 0); // zeros written ahead and forced
            ch.force(false);
            ch.write(bytes("data"), 0);
        }
        faults.crash();
        faults.loseUnforced();
        assertThat(Files.size(log)).isZero();
    }

    @Test
    void aForceCoversOnlyWritesBeforeItStarted() throws IOException {
        UnforcedWrites w = new UnforcedWrites();
        w.wrote(0, 10);
        long epoch = w.forceStarting();
        w.wrote(10, 5); // during the force
        w.forced(epoch);
        assertThat(w.lostFrom()).isEqualTo(10);
        w.forced(w.forceStarting());
        assertThat(w.lostFrom()).isEqualTo(-1);
    }

    @Test
    void aFailedForceLeavesTheWritesUnforced() throws IOException {
        Path log = dir.resolve("d.log");
        try (FileChannel ch = open(log)) {
            ch.write(bytes("never-durable"));
            faults.failFsync(true);
            assertThatThrownBy(() -> ch.force(false)).isInstanceOf(IOException.class)
                    .hasMessage(StorageFaults.EIO);
        }
        faults.crash();
        faults.loseUnforced();
        assertThat(Files.size(log)).isZero();
    }

    @Test
    void aFullDiskRefusesWritesThatGrowAFileOnly() throws IOException {
        Path log = dir.resolve("e.log");
        try (FileChannel ch = open(log)) {
            ch.write(ByteBuffer.allocate(16), 0);
            faults.diskFull(true);
            ch.write(bytes("fits"), 0); // inside the file: its blocks are there
            assertThatThrownBy(() -> ch.write(bytes("grows"), 16)).isInstanceOf(IOException.class)
                    .hasMessage(StorageFaults.ENOSPC);
            faults.diskFull(false);
            assertThat(ch.write(bytes("grows"), 16)).isEqualTo(5);
        }
    }

    @Test
    void afterACrashNothingMoreReachesTheFiles() throws IOException {
        Path log = dir.resolve("f.log");
        try (FileChannel ch = open(log)) {
            faults.crash();
            assertThatThrownBy(() -> ch.write(bytes("late"))).isInstanceOf(IOException.class);
            assertThatThrownBy(() -> ch.force(false)).isInstanceOf(IOException.class);
        }
        faults.loseUnforced();
        try (FileChannel ch = open(log)) {
            assertThat(ch.write(bytes("next run"))).isEqualTo(8);
        }
    }
}
