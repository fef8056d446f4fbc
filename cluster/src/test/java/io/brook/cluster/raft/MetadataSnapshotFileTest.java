package io.brook.cluster.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.metadata.CorruptMetadataException;
import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataRecord.Partition;
import io.brook.cluster.metadata.MetadataRecord.RegisterBroker;
import io.brook.cluster.metadata.MetadataRecord.Topic;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetadataSnapshotFileTest {

    private static final List<MetadataRecord> RECORDS = List.of(
            new RegisterBroker(1, new UUID(1, 1), 1, List.of(new Endpoint("PLAINTEXT", "h", 9092)), null),
            new Topic("t", new UUID(2, 2)),
            new Partition(new UUID(2, 2), 0, List.of(1), List.of(1), 1, 0, 0));

    @TempDir
    Path dir;

    @Test
    void roundTripsAndLeavesNoTemporaryFile() throws Exception {
        Path file = dir.resolve("snapshot.1_10");
        MetadataSnapshotFile.write(file, RECORDS);

        assertThat(MetadataSnapshotFile.read(file)).isEqualTo(RECORDS);
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(file);
        }
    }

    @Test
    void rejectsAFlippedBitAndATruncation() throws Exception {
        Path file = dir.resolve("snapshot.1_10");
        MetadataSnapshotFile.write(file, RECORDS);
        byte[] bytes = Files.readAllBytes(file);

        byte[] flipped = bytes.clone();
        flipped[flipped.length - 3] ^= 1;
        Files.write(file, flipped);
        assertThatThrownBy(() -> MetadataSnapshotFile.read(file)).isInstanceOf(CorruptMetadataException.class)
                .hasMessageContaining("CRC-32C");

        Files.write(file, Arrays.copyOf(bytes, 2));
        assertThatThrownBy(() -> MetadataSnapshotFile.read(file)).isInstanceOf(CorruptMetadataException.class);
    }
}
