package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.topic.TopicRegistry;
import io.brook.testkit.Await;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataRequest.MetadataRequestTopic;
import io.brook.wire.message.MetadataResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BrookTest {

    @TempDir
    Path tmp;

    @Test
    void shouldDeleteTheTemporaryDataDirectoryItCreated() {
        Path dir;
        try (Brook brook = Brook.builder().start()) {
            dir = brook.dataDir();
            assertThat(dir.resolve("meta/meta.properties")).exists();
        }
        assertThat(dir).doesNotExist();
    }

    @Test
    void shouldKeepAGivenDataDirectoryAndItsIdentityAcrossRestarts() throws Exception {
        Path dir = tmp.resolve("data");
        String clusterId;
        java.util.UUID topicId;
        try (Brook brook = Brook.builder().dataDir(dir).start();
                ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            clusterId = brook.clusterId();
            MetadataResponse r = c.call(new MetadataRequest().topics(List.of(new MetadataRequestTopic().name("kept"))),
                    (short) 12);
            topicId = r.topics().get(0).topicId();
        }
        assertThat(dir).exists();
        try (Brook brook = Brook.builder().dataDir(dir).start();
                ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            assertThat(brook.clusterId()).isEqualTo(clusterId);
            MetadataResponse r = c.call(new MetadataRequest().topics(null), (short) 12);
            assertThat(r.clusterId()).isEqualTo(clusterId);
            assertThat(r.topics()).singleElement().satisfies(t -> {
                assertThat(t.name()).isEqualTo("kept");
                assertThat(t.topicId()).isEqualTo(topicId);
            });
        }
    }

    @Test
    void shouldRefuseASecondBrokerOnTheSameDataDirectory() {
        Path dir = tmp.resolve("shared");
        try (Brook first = Brook.builder().dataDir(dir).start()) {
            assertThatThrownBy(() -> Brook.builder().dataDir(dir).start())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("in use by another Brook broker");
            assertThat(first.port()).isPositive();
        }
        // released on close
        try (Brook again = Brook.builder().dataDir(dir).start()) {
            assertThat(again.port()).isPositive();
        }
    }

    @Test
    void shouldRunSeveralBrokersInOneJvm() {
        try (Brook a = Brook.builder().start(); Brook b = Brook.builder().start()) {
            assertThat(a.port()).isNotEqualTo(b.port());
            assertThat(a.clusterId()).isNotEqualTo(b.clusterId());
        }
    }

    @Test
    void shouldRefuseADataDirectoryOfAnotherNode() {
        Path dir = tmp.resolve("node");
        try (Brook first = Brook.builder().dataDir(dir).config("node.id", "1").start()) {
            assertThat(first.port()).isPositive();
        }
        assertThatThrownBy(() -> Brook.builder().dataDir(dir).config("broker.id", "2").start())
                .hasMessageContaining("node.id 1").hasMessageContaining("node.id 2");
    }

    @Test
    void shouldRejectInvalidConfigurationAtStart() {
        assertThatThrownBy(() -> Brook.builder().config("num.partitions", "-3").start())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("num.partitions");
    }

    @Test
    void shouldRefuseAPortInUse() {
        Path dir = tmp.resolve("port-in-use");
        try (Brook a = Brook.builder().start()) {
            assertThatThrownBy(() -> Brook.builder().dataDir(dir).port(a.port()).start())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("Cannot listen");
        }
        // the failed start let go of the data directory and of the logs it had opened meanwhile
        try (Brook b = Brook.builder().dataDir(dir).start()) {
            assertThat(b.createTopic("after-failed-start", 1)).isTrue();
        }
    }

    @Test
    void shouldDetectADamagedTopicRegistry() throws Exception {
        Path dir = tmp.resolve("damaged");
        try (Brook brook = Brook.builder().dataDir(dir).start();
                ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            c.call(new MetadataRequest().topics(List.of(new MetadataRequestTopic().name("x"))), (short) 12);
        }
        Path file = dir.resolve("meta/topics");
        byte[] bytes = Files.readAllBytes(file);
        bytes[12] ^= 0x55;
        Files.write(file, bytes);
        int port;
        try (Brook probe = Brook.builder().start()) {
            port = probe.port();
        }
        assertThatThrownBy(() -> Brook.builder().dataDir(dir).port(port).start()).hasMessageContaining("checksum");
        // the listener bound while the registry was read is closed again
        try (Brook other = Brook.builder().port(port).start()) {
            assertThat(other.port()).isEqualTo(port);
        }
    }

    @Test
    void shouldWriteTheCleanShutdownMarkerOnClose() throws Exception {
        Path dir = tmp.resolve("clean");
        try (Brook brook = Brook.builder().dataDir(dir).start();
                ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            c.call(new MetadataRequest().topics(List.of(new MetadataRequestTopic().name("x"))), (short) 12);
            assertThat(dir.resolve(io.brook.storage.LogManager.CLEAN_SHUTDOWN_FILE)).doesNotExist();
        }
        assertThat(dir.resolve(io.brook.storage.LogManager.CLEAN_SHUTDOWN_FILE)).exists();
        assertThat(dir.resolve("x-0")).isDirectory();
    }

    @Test
    void shouldAnswerAWaitingFetchWhenClosing() throws Exception {
        Brook brook = Brook.builder().start();
        try (ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            c.call(new MetadataRequest().topics(List.of(new MetadataRequestTopic().name("idle"))), (short) 12);
            int id = c.send(new io.brook.wire.message.FetchRequest().maxWaitMs(60_000).minBytes(1).maxBytes(1000)
                    .sessionEpoch(-1).topics(List.of(new io.brook.wire.message.FetchRequest.FetchTopic().topic("idle")
                            .partitions(List.of(new io.brook.wire.message.FetchRequest.FetchPartition().partition(0)
                                    .fetchOffset(0).partitionMaxBytes(1000))))), (short) 12);
            Await.until("fetch parked", () -> brook.fetchWaiters().waiting() == 1);
            Thread closer = new Thread(brook::close);
            closer.start();
            io.brook.wire.message.FetchResponse r = c.receive(io.brook.wire.protocol.ApiKey.FETCH, (short) 12, id);
            assertThat(r.responses().get(0).partitions().get(0).errorCode()).isZero();
            closer.join(30_000);
            assertThat(closer.isAlive()).isFalse();
        } finally {
            brook.close();
        }
    }

    @Test
    void shouldDeleteLogsTheRegistryDoesNotKnowSoARecreatedTopicStartsEmpty() throws Exception {
        Path dir = tmp.resolve("orphans");
        try (Brook brook = Brook.builder().dataDir(dir).start();
                ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            c.call(new MetadataRequest().topics(List.of(new MetadataRequestTopic().name("ghost"))), (short) 12);
            io.brook.wire.message.ProduceResponse r = c.call(new io.brook.wire.message.ProduceRequest().acks((short) -1)
                    .timeoutMs(5000).topicData(List.of(new io.brook.wire.message.ProduceRequest.TopicProduceData()
                            .name("ghost").partitionData(List.of(new io.brook.wire.message.ProduceRequest
                                    .PartitionProduceData().index(0).records(io.brook.wire.protocol.BufferRecords.wrap(
                                            new io.brook.wire.record.RecordBatchBuilder(
                                                    io.brook.wire.record.Compression.NONE)
                                                    .append(1L, null, new byte[] {1}).build())))))), (short) 9);
            assertThat(r.responses().get(0).partitionResponses().get(0).errorCode()).isZero();
        }
        // a crash after the registry forgot the topic but before its logs were removed
        assertThat(TopicRegistry.open(dir.resolve("meta"), java.util.UUID::randomUUID).delete("ghost")).isTrue();
        assertThat(dir.resolve("ghost-0")).isDirectory();
        try (Brook brook = Brook.builder().dataDir(dir).start();
                ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            assertThat(dir.resolve("ghost-0")).doesNotExist();
            c.call(new MetadataRequest().topics(List.of(new MetadataRequestTopic().name("ghost"))), (short) 12);
            assertThat(brook.topics().log("ghost", 0).logEndOffset()).isZero();
        }
    }
}
