package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MountHoldersTest {

    @Test
    void namesTheProcessThatHoldsAFileUnderThePath(@TempDir Path dir) throws Exception {
        Path file = Files.createFile(dir.resolve("held.log"));
        long self = ProcessHandle.current().pid();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            assertThat(MountHolders.describe(dir, -1)).contains("pid " + self + " ", "/held.log");
        }
        assertThat(MountHolders.describe(dir, -1)).doesNotContain("pid " + self + " ");
    }
}
