package io.brook.wire.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.ByteBufferWriter;
import io.brook.wire.protocol.Errors;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.junit.jupiter.api.Test;

/**
 * The answers the broker builds for KIP-951 leader hints (Produce v10+, Fetch v16+) and for the
 * ApiVersions features section (v3+, KIP-584), written by Brook and read by kafka-clients: the
 * fields land where Kafka's clients look for them. The random round trips of
 * {@link MessageRoundTripOracleTest} cover every field; these pin the shapes the broker sends.
 */
class LeaderHintsAndFeaturesOracleTest {

    private static byte[] brook(ApiMessage m, short version) {
        ByteBuffer b = ByteBuffer.allocate(m.size(version));
        m.write(new ByteBufferWriter(b), version);
        assertThat(b.hasRemaining()).isFalse();
        return b.array();
    }

    @Test
    void produceLeaderHintsFromV10() {
        UUID id = UUID.randomUUID();
        for (short v = 10; v <= 13; v++) {
            ProduceResponse r = new ProduceResponse().responses(List.of(new ProduceResponse.TopicProduceResponse()
                    .name("t").topicId(id).partitionResponses(List.of(new ProduceResponse.PartitionProduceResponse()
                            .index(3).errorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()).baseOffset(-1)
                            .currentLeader(new ProduceResponse.LeaderIdAndEpoch().leaderId(1).leaderEpoch(0))))))
                    .nodeEndpoints(List.of(new ProduceResponse.NodeEndpoint().nodeId(1).host("127.0.0.1").port(9092)));
            ProduceResponseData k = (ProduceResponseData) KafkaWire.read(ApiMessageType.PRODUCE, false, brook(r, v), v);
            ProduceResponseData.PartitionProduceResponse p = k.responses().iterator().next().partitionResponses().get(0);
            assertThat(p.errorCode()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
            assertThat(p.currentLeader().leaderId()).isEqualTo(1);
            assertThat(p.currentLeader().leaderEpoch()).isZero();
            ProduceResponseData.NodeEndpoint n = k.nodeEndpoints().find(1);
            assertThat(n.host()).isEqualTo("127.0.0.1");
            assertThat(n.port()).isEqualTo(9092);
            assertThat(n.rack()).isNull();
        }
    }

    @Test
    void fetchLeaderHintsFromV16() {
        UUID id = UUID.randomUUID();
        for (short v = 16; v <= 18; v++) {
            FetchResponse r = new FetchResponse().responses(List.of(new FetchResponse.FetchableTopicResponse()
                    .topicId(id).partitions(List.of(new FetchResponse.PartitionData().partitionIndex(0)
                            .errorCode(Errors.FENCED_LEADER_EPOCH.code()).highWatermark(-1).records(BufferRecords.EMPTY)
                            .currentLeader(new FetchResponse.LeaderIdAndEpoch().leaderId(2).leaderEpoch(5))))))
                    .nodeEndpoints(List.of(new FetchResponse.NodeEndpoint().nodeId(2).host("b2").port(9093).rack("r1")));
            FetchResponseData k = (FetchResponseData) KafkaWire.read(ApiMessageType.FETCH, false, brook(r, v), v);
            FetchResponseData.PartitionData p = k.responses().get(0).partitions().get(0);
            assertThat(k.responses().get(0).topicId().getMostSignificantBits()).isEqualTo(id.getMostSignificantBits());
            assertThat(k.responses().get(0).topicId().getLeastSignificantBits()).isEqualTo(id.getLeastSignificantBits());
            assertThat(p.errorCode()).isEqualTo(Errors.FENCED_LEADER_EPOCH.code());
            assertThat(p.currentLeader().leaderId()).isEqualTo(2);
            assertThat(p.currentLeader().leaderEpoch()).isEqualTo(5);
            FetchResponseData.NodeEndpoint n = k.nodeEndpoints().find(2);
            assertThat(n.host()).isEqualTo("b2");
            assertThat(n.port()).isEqualTo(9093);
            assertThat(n.rack()).isEqualTo("r1");
        }
    }

    @Test
    void apiVersionsFeaturesFromV3() {
        for (short v = 3; v <= 5; v++) {
            ApiVersionsResponse r = new ApiVersionsResponse().apiKeys(List.of(new ApiVersionsResponse.ApiVersion()
                    .apiKey((short) 18).minVersion((short) 0).maxVersion((short) 5)))
                    .supportedFeatures(List.of(
                            new ApiVersionsResponse.SupportedFeatureKey().name("metadata.version")
                                    .minVersion((short) 33).maxVersion((short) 33),
                            new ApiVersionsResponse.SupportedFeatureKey().name("transaction.version")
                                    .minVersion((short) 0).maxVersion((short) 2)))
                    .finalizedFeatures(List.of(new ApiVersionsResponse.FinalizedFeatureKey().name("metadata.version")
                            .minVersionLevel((short) 33).maxVersionLevel((short) 33)))
                    .finalizedFeaturesEpoch(1_700_000_000_000L);
            ApiVersionsResponseData k = (ApiVersionsResponseData) KafkaWire.read(ApiMessageType.API_VERSIONS, false,
                    brook(r, v), v);
            assertThat(k.supportedFeatures().find("metadata.version").minVersion()).isEqualTo((short) 33);
            assertThat(k.supportedFeatures().find("transaction.version").maxVersion()).isEqualTo((short) 2);
            assertThat(k.finalizedFeatures().find("metadata.version").maxVersionLevel()).isEqualTo((short) 33);
            assertThat(k.finalizedFeaturesEpoch()).isEqualTo(1_700_000_000_000L);
            assertThat(k.zkMigrationReady()).isFalse();
        }
    }
}
