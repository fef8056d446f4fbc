package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.message.AlterConfigsRequest;
import io.brook.wire.message.AlterConfigsResponse;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopicConfig;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.IncrementalAlterConfigsRequest;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterConfigsResource;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterableConfig;
import io.brook.wire.message.IncrementalAlterConfigsResponse;
import io.brook.wire.protocol.Errors;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Topic configs a client may not use as a weapon: Kafka's minimums and bounded list edits. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TopicConfigLimitsTest {

    private Brook brook;
    private ProtocolClient client;

    @BeforeEach
    void start() throws Exception {
        brook = Brook.builder().start();
        client = new ProtocolClient(brook.bootstrapServers());
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        brook.close();
    }

    private short createWith(String topic, String name, String value) throws Exception {
        CreatableTopic t = new CreatableTopic().name(topic).numPartitions(1).replicationFactor((short) 1);
        if (name != null) {
            t.configs(List.of(new CreatableTopicConfig().name(name).value(value)));
        }
        CreateTopicsResponse r = client.call(new CreateTopicsRequest().topics(List.of(t)).timeoutMs(1000), (short) 5);
        return r.topics().get(0).errorCode();
    }

    private short incrementalAlter(String topic, byte op, String name, String value) throws Exception {
        IncrementalAlterConfigsResponse r = client.call(new IncrementalAlterConfigsRequest().resources(List.of(
                new AlterConfigsResource().resourceType((byte) 2).resourceName(topic).configs(List.of(
                        new AlterableConfig().name(name).configOperation(op).value(value))))), (short) 1);
        return r.responses().get(0).errorCode();
    }

    @Test
    void shouldRefuseSegmentsBelowKafkasMinimumFromEveryAdminApi() throws Exception {
        assertThat(createWith("tiny", "segment.bytes", "1024")).isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(brook.topics().get("tiny")).isNull();
        assertThat(createWith("mib", "segment.bytes", "1048576")).isEqualTo(Errors.NONE.code());

        assertThat(incrementalAlter("mib", (byte) 0, "segment.bytes", "1048575")).isEqualTo(Errors.INVALID_CONFIG.code());
        AlterConfigsResponse r = client.call(new AlterConfigsRequest().resources(List.of(
                new AlterConfigsRequest.AlterConfigsResource().resourceType((byte) 2).resourceName("mib").configs(
                        List.of(new AlterConfigsRequest.AlterableConfig().name("segment.bytes").value("14"))))), (short) 1);
        assertThat(r.responses().get(0).errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(incrementalAlter("mib", (byte) 0, "segment.ms", "0")).isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(brook.topics().log("mib", 0).config().segmentBytes()).isEqualTo(1048576);
    }

    @Test
    void shouldRefuseAnOversizedListEditBeforeSplittingIt() throws Exception {
        assertThat(createWith("lists", null, null)).isEqualTo(Errors.NONE.code());
        StringBuilder million = new StringBuilder();
        for (int i = 0; i < 1_000_000; i++) {
            million.append('p').append(i).append(',');
        }
        IncrementalAlterConfigsResponse r = client.call(new IncrementalAlterConfigsRequest().resources(List.of(
                new AlterConfigsResource().resourceType((byte) 2).resourceName("lists").configs(List.of(
                        new AlterableConfig().name("cleanup.policy").configOperation((byte) 2)
                                .value(million.toString()))))), (short) 1);
        assertThat(r.responses().get(0).errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
        // the length is checked first: the million items were never split and merged
        assertThat(r.responses().get(0).errorMessage()).contains("longer than 16384 characters");

        assertThat(incrementalAlter("lists", (byte) 2, "cleanup.policy", "compact,delete,compact")).isZero();
        assertThat(brook.topics().log("lists", 0).config().values().get("cleanup.policy")).isEqualTo("delete,compact");
        assertThat(incrementalAlter("lists", (byte) 3, "cleanup.policy", "delete")).isZero();
        assertThat(brook.topics().log("lists", 0).config().values().get("cleanup.policy")).isEqualTo("compact");
    }

    @Test
    void shouldRefuseAResourceNamedTwiceSoThatOneRequestWritesATopicOnce() throws Exception {
        assertThat(createWith("twice", null, null)).isEqualTo(Errors.NONE.code());
        long writes = brook.topics().registryWrites();
        List<AlterConfigsResource> same = new java.util.ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            same.add(new AlterConfigsResource().resourceType((byte) 2).resourceName("twice").configs(List.of(
                    new AlterableConfig().name("retention.ms").configOperation((byte) 0).value(Integer.toString(i)))));
        }
        IncrementalAlterConfigsResponse r = client.call(new IncrementalAlterConfigsRequest().resources(same), (short) 1);
        assertThat(r.responses()).hasSize(1000)
                .allSatisfy(x -> assertThat(x.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code()));
        AlterConfigsResponse a = client.call(new AlterConfigsRequest().resources(List.of(
                new AlterConfigsRequest.AlterConfigsResource().resourceType((byte) 2).resourceName("twice").configs(List.of(
                        new AlterConfigsRequest.AlterableConfig().name("retention.ms").value("1"),
                        new AlterConfigsRequest.AlterableConfig().name("retention.ms").value("2"))),
                new AlterConfigsRequest.AlterConfigsResource().resourceType((byte) 2).resourceName("lists"),
                new AlterConfigsRequest.AlterConfigsResource().resourceType((byte) 2).resourceName("lists"))), (short) 1);
        assertThat(a.responses()).allSatisfy(x -> assertThat(x.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code()));
        assertThat(brook.topics().registryWrites()).isEqualTo(writes);
    }
}
