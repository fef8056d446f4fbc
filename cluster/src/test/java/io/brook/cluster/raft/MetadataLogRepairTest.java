package io.brook.cluster.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.metadata.CorruptMetadataException;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataRecord.Topic;
import io.brook.testkit.Await;
import io.brook.testkit.FreePorts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A node's metadata log after a crash in the middle of a write: the last entry of its open log
 * segment is only partly on disk, followed by the zeros of the preallocated file (a killed
 * process between two writes of one entry, or a power loss before the entry's pages reached the
 * disk). Such an entry was never forced, so no quorum counted it; start-up drops it and keeps
 * every entry before it, rather than refusing to start.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetadataLogRepairTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int ENTRIES = 10;
    private static final int PAGE = 4096;

    @TempDir
    Path dir;

    private MetadataQuorumNode node;

    @AfterEach
    void close() throws IOException {
        if (node != null) {
            node.close();
        }
    }

    /** One voter, so that nothing but its own log can restore what it had. */
    private QuorumConfig config() {
        return new QuorumConfig(Set.of("broker", "controller"), 1, "repair-cluster",
                Map.of(1, InetSocketAddress.createUnresolved("127.0.0.1", FreePorts.next())), dir.resolve("node-1"),
                Duration.ofMillis(300), Duration.ofMillis(600), 0, Map.of());
    }

    @ParameterizedTest(name = "later pages on disk: {0}")
    @ValueSource(booleans = {false, true})
    void aTornLastEntryIsDroppedAndTheNodeStarts(boolean laterPagesOnDisk) throws Exception {
        QuorumConfig config = config();
        node = MetadataQuorumNode.start(config);
        Await.until("the single voter leads", WAIT, node::isLeaderCaughtUp);
        for (int i = 0; i < ENTRIES; i++) {
            node.append(List.of(new Topic("topic-" + i, new UUID(7, i)))).get(30, TimeUnit.SECONDS);
        }
        node.close();
        node = null;

        // after a power loss a later page of the file may have reached the disk and an earlier not
        tearLastBatch(openSegment(config.metadataDir()), laterPagesOnDisk);

        node = MetadataQuorumNode.start(config);
        Await.until("the restarted voter leads", WAIT, node::isLeaderCaughtUp);
        List<MetadataRecord> image = node.stateMachine().read(MetadataImage::toRecords);
        assertThat(image).hasSize(ENTRIES - 1)
                .doesNotContain(new Topic("topic-" + (ENTRIES - 1), new UUID(7, ENTRIES - 1)));
        node.append(List.of(new Topic("after", new UUID(8, 0)))).get(30, TimeUnit.SECONDS);
        assertThat(node.stateMachine().<Integer>read(img -> img.topics().size())).isEqualTo(ENTRIES);
    }

    /** A stopped single voter whose 40 entries fill several closed segments (2 KB each) and an open one. */
    private QuorumConfig fortyEntriesInSmallSegments() throws Exception {
        QuorumConfig config = config().withRatisProperty("raft.server.log.segment.size.max", "2KB");
        node = MetadataQuorumNode.start(config);
        Await.until("the single voter leads", WAIT, node::isLeaderCaughtUp);
        for (int i = 0; i < 40; i++) {
            node.append(List.of(new Topic("topic-" + i, new UUID(7, i)))).get(30, TimeUnit.SECONDS);
        }
        node.close();
        node = null;
        return config;
    }

    /** The closed segments ({@code log_<first>-<last>}), by first index. */
    private static List<Path> closedSegments(Path metadataDir) throws IOException {
        try (Stream<Path> files = Files.walk(metadataDir)) {
            List<Path> closed = files.filter(p -> p.getFileName().toString().matches("log_\\d+-\\d+"))
                    .sorted(Comparator.comparingLong(p -> Long.parseLong(p.getFileName().toString().split("[_-]")[1])))
                    .toList();
            assertThat(closed).as("closed log segments under %s", metadataDir).isNotEmpty();
            return closed;
        }
    }

    @Test
    void aDamagedClosedSegmentStopsTheStartWithTheFileNamed() throws Exception {
        QuorumConfig config = fortyEntriesInSmallSegments();
        Path closed = closedSegments(config.metadataDir()).get(0);
        byte[] bytes = Files.readAllBytes(closed);
        bytes[bytes.length / 2] ^= 0x5a;
        Files.write(closed, bytes);

        assertThatThrownBy(() -> node = MetadataQuorumNode.start(config)).isInstanceOf(CorruptMetadataException.class)
                .hasMessageContaining(closed.toString()).hasMessageContaining("damaged at byte");
        assertThat(Files.readAllBytes(closed)).as("the damaged segment as it was").isEqualTo(bytes);
    }

    @Test
    void aClosedSegmentWhoseRenameWasLostIsClosedAgainAndTheNodeStarts() throws Exception {
        QuorumConfig config = fortyEntriesInSmallSegments();
        // a file system that kept the next open segment's creation but lost the newest closed one's rename
        List<Path> closedSegments = closedSegments(config.metadataDir());
        Path closed = closedSegments.get(closedSegments.size() - 1);
        Path reopened = closed.resolveSibling("log_inprogress_" + closed.getFileName().toString().split("[_-]")[1]);
        Files.move(closed, reopened);

        node = MetadataQuorumNode.start(config);
        Await.until("the restarted voter leads", WAIT, node::isLeaderCaughtUp);
        assertThat(node.stateMachine().<Integer>read(img -> img.topics().size())).isEqualTo(40);
        assertThat(closed).as("closed again under its own name").exists();
        assertThat(reopened).doesNotExist();
    }

    private static Path openSegment(Path metadataDir) throws IOException {
        try (Stream<Path> files = Files.walk(metadataDir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("log_inprogress_")).findFirst()
                    .orElseThrow(() -> new AssertionError("no open log segment under " + metadataDir));
        }
    }

    /**
     * Zeroes everything from the middle of the segment's last metadata batch on (Ratis writes its
     * own entries after it, such as the commit index), leaving the file's length as it is. Entries
     * are a varint length, that many bytes of a log entry and a 4-byte checksum, after an 8-byte
     * header; zeros follow the last one. With {@code laterPagesOnDisk}, bytes that are not zeros
     * follow a page later, as pieces of later entries would.
     */
    private static void tearLastBatch(Path segment, boolean laterPagesOnDisk) throws IOException {
        byte[] bytes = Files.readAllBytes(segment);
        int pos = 8;
        int lastBatch = -1;
        int lastBatchEnd = -1;
        int end = pos;
        while (pos < bytes.length && bytes[pos] != 0) {
            int length = 0;
            int shift = 0;
            int start = pos;
            byte b;
            do {
                b = bytes[pos++];
                length |= (b & 0x7f) << shift;
                shift += 7;
            } while (b < 0);
            LogEntryProto entry = LogEntryProto.parseFrom(ByteBuffer.wrap(bytes, pos, length));
            pos += length + 4;
            if (entry.hasStateMachineLogEntry()) {
                lastBatch = start;
                lastBatchEnd = pos;
            }
            end = pos;
        }
        assertThat(lastBatch).as("a metadata batch in %s", segment).isPositive();
        int from = lastBatch + (lastBatchEnd - lastBatch) / 2;
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(end - from), from);
            if (ch.size() < end + 2 * PAGE) {
                ch.write(ByteBuffer.allocate(2 * PAGE), end);
            }
            if (laterPagesOnDisk) {
                byte[] later = new byte[100];
                Arrays.fill(later, (byte) 0x5a);
                ch.write(ByteBuffer.wrap(later), end + PAGE);
            }
        }
    }
}
