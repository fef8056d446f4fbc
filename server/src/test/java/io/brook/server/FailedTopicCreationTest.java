package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.SegmentChannels;
import io.brook.wire.message.CreatePartitionsRequest;
import io.brook.wire.message.CreatePartitionsResponse;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A topic creation or growth that fails midway (here the sixth partition's segment file cannot be
 * opened, as when the process has no file descriptors left) holds nothing afterwards: the logs it
 * had made are closed and deleted, the topic is not registered (or keeps its partition count), and
 * the broker starts again. Before, the logs made so far stayed open, their directories stayed
 * behind, and the next start opened them all and could fail for want of the very descriptors they
 * took.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FailedTopicCreationTest {

    @TempDir
    Path dir;

    /** Fails every open below {@code dir} of a segment file of the partition directory {@code failing}. */
    private void failOpensOf(String failing) {
        SegmentChannels.intercept(dir, (file, ch) -> {
            if (file.getParent().getFileName().toString().equals(failing)) {
                ch.close();
                throw new IOException("Too many open files");
            }
            return ch;
        });
    }

    @AfterEach
    void stopFailing() {
        SegmentChannels.stopIntercepting(dir);
    }

    private List<String> directoriesOf(String topic) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(topic + "-")).toList();
        }
    }

    private static CreateTopicsResponse create(ProtocolClient c, String topic, int partitions) throws Exception {
        return c.call(new CreateTopicsRequest().timeoutMs(10_000).topics(List.of(
                new CreatableTopic().name(topic).numPartitions(partitions).replicationFactor((short) 1))), (short) 7);
    }

    @Test
    void aCreationThatFailsMidwayLeavesNoLogsAndTheBrokerStartsAgain() throws Exception {
        failOpensOf("doomed-5");
        try (Brook brook = Brook.builder().dataDir(dir).start(); ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            assertThat(create(c, "doomed", 8).topics().get(0).errorCode()).isNotZero();
            assertThat(brook.topics().get("doomed")).isNull();
            assertThat(brook.topics().allLogs()).noneMatch(log -> log.topic().equals("doomed"));
            assertThat(directoriesOf("doomed")).isEmpty();

            stopFailing();
            assertThat(create(c, "doomed", 8).topics().get(0).errorCode()).isZero();
            assertThat(directoriesOf("doomed")).hasSize(8);
        }
        try (Brook brook = Brook.builder().dataDir(dir).start()) {
            assertThat(brook.topics().get("doomed").partitions()).isEqualTo(8);
        }
    }

    @Test
    void aGrowthThatFailsMidwayKeepsThePartitionCountAndLeavesNoNewLogs() throws Exception {
        try (Brook brook = Brook.builder().dataDir(dir).start(); ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            assertThat(create(c, "growing", 2).topics().get(0).errorCode()).isZero();
            failOpensOf("growing-5");
            CreatePartitionsResponse r = c.call(new CreatePartitionsRequest().timeoutMs(10_000).topics(List.of(
                    new CreatePartitionsRequest.CreatePartitionsTopic().name("growing").count(8).assignments(null))), (short) 3);
            assertThat(r.results().get(0).errorCode()).isNotZero();
            assertThat(brook.topics().get("growing").partitions()).isEqualTo(2);
            assertThat(brook.topics().allLogs()).filteredOn(log -> log.topic().equals("growing")).hasSize(2);
            assertThat(directoriesOf("growing")).containsExactlyInAnyOrder("growing-0", "growing-1");
        }
        stopFailing();
        try (Brook brook = Brook.builder().dataDir(dir).start()) {
            assertThat(brook.topics().get("growing").partitions()).isEqualTo(2);
        }
    }
}
