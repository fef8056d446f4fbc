package io.brook.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The data directory's KIP-853 {@code directory.id} in meta.properties, as Kafka's tools read it. */
class BrokerMetaDirectoryIdTest {

    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve("meta/meta.properties");
    }

    @Test
    void aNewDirectoryGetsADirectoryIdThatStaysAcrossOpens() throws Exception {
        String first;
        try (BrokerMeta meta = BrokerMeta.open(dir, 4, "c")) {
            first = meta.directoryId();
        }
        assertThat(Base64.getUrlDecoder().decode(first)).hasSize(16);
        assertThat(Files.readString(file(), StandardCharsets.UTF_8)).contains("directory.id=" + first + "\n");

        try (BrokerMeta meta = BrokerMeta.open(dir, 4, "c")) {
            assertThat(meta.directoryId()).isEqualTo(first);
        }
    }

    @Test
    void aDirectoryWrittenBeforeDirectoryIdsGetsOneAndKeepsItsIdentity() throws Exception {
        Files.createDirectories(file().getParent());
        Files.writeString(file(), "version=1\ncluster.id=c\nnode.id=4\n");

        String id;
        try (BrokerMeta meta = BrokerMeta.open(dir, 4, "c")) {
            id = meta.directoryId();
            assertThat(meta.clusterId()).isEqualTo("c");
        }

        assertThat(Files.readString(file(), StandardCharsets.UTF_8))
                .contains("cluster.id=c\n", "node.id=4\n", "directory.id=" + id + "\n");
        try (BrokerMeta meta = BrokerMeta.open(dir, 4, "c")) {
            assertThat(meta.directoryId()).isEqualTo(id);
        }
    }

    @Test
    void refusesADirectoryIdThatIsNotAUuid() throws Exception {
        Files.createDirectories(file().getParent());
        Files.writeString(file(), "version=1\ncluster.id=c\nnode.id=4\ndirectory.id=nope\n");

        assertThatThrownBy(() -> BrokerMeta.open(dir, 4, "c")).hasMessageContaining("directory.id");
    }

    @Test
    void directoryIdsAreNeverReservedNorReadAsOptions() {
        for (int i = 0; i < 1000; i++) {
            String id = BrokerMeta.newDirectoryId();
            assertThat(id).hasSize(22).doesNotStartWith("-");
            assertThat(Base64.getUrlDecoder().decode(id)).isNotEqualTo(new byte[16]);
        }
    }
}
