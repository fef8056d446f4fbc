package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.topic.Topics;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataRequest.MetadataRequestTopic;
import io.brook.wire.message.MetadataResponse;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The topics one request creates cost one write (and fsync) of the topic registry, not one per
 * topic, and one request creates a bounded number of partitions. Counted, not timed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TopicCreationBatchTest {

    private static MetadataRequest metadataNaming(List<String> names) {
        List<MetadataRequestTopic> topics = new ArrayList<>();
        for (String n : names) {
            topics.add(new MetadataRequestTopic().name(n));
        }
        return new MetadataRequest().topics(topics).allowAutoTopicCreation(true);
    }

    private static List<String> names(String prefix, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(prefix + i);
        }
        return out;
    }

    @Test
    void shouldWriteTheRegistryOncePerRequestWhateverTheNumberOfTopics() throws Exception {
        try (Brook b = Brook.builder().start(); ProtocolClient c = new ProtocolClient(b.bootstrapServers())) {
            long before = b.topics().registryWrites();
            MetadataResponse m = c.call(metadataNaming(names("auto-", 200)), (short) 9);
            assertThat(m.topics()).hasSize(200).allSatisfy(t -> assertThat(t.errorCode()).isZero());
            assertThat(b.topics().all()).hasSize(200);
            assertThat(b.topics().registryWrites()).isEqualTo(before + 1);

            List<CreatableTopic> create = new ArrayList<>();
            for (String n : names("made-", 100)) {
                create.add(new CreatableTopic().name(n).numPartitions(1).replicationFactor((short) 1));
            }
            CreateTopicsResponse r = c.call(new CreateTopicsRequest().topics(create).timeoutMs(1000), (short) 7);
            assertThat(r.topics()).hasSize(100).allSatisfy(t -> assertThat(t.errorCode()).isZero());
            assertThat(b.topics().registryWrites()).isEqualTo(before + 2);

            // asking again creates nothing and writes nothing
            c.call(metadataNaming(names("auto-", 200)), (short) 9);
            assertThat(b.topics().registryWrites()).isEqualTo(before + 2);
        }
    }

    @Test
    void shouldRefuseACreateTopicsOfMoreThanTenThousandPartitionsAsKafkasControllerDoes() throws Exception {
        try (Brook b = Brook.builder().start(); ProtocolClient c = new ProtocolClient(b.bootstrapServers())) {
            CreateTopicsResponse r = c.call(new CreateTopicsRequest().topics(List.of(
                    new CreatableTopic().name("big-a").numPartitions(6000).replicationFactor((short) 1),
                    new CreatableTopic().name("big-b").numPartitions(4001).replicationFactor((short) 1)))
                    .timeoutMs(1000), (short) 7);
            assertThat(r.topics()).allSatisfy(t -> assertThat(t.errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code()));
            assertThat(b.topics().all()).isEmpty();
            assertThat(Topics.MAX_PARTITIONS_PER_REQUEST).isEqualTo(10_000);
        }
    }
}
