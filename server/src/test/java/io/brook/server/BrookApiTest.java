package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.network.ApiTable;
import io.brook.server.api.FeatureLevels;
import io.brook.server.network.RequestContext;
import io.brook.wire.message.ApiMessages;
import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.message.ApiVersionsResponse.ApiVersion;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataRequest.MetadataRequestTopic;
import io.brook.wire.message.MetadataResponse;
import io.brook.wire.message.MetadataResponse.MetadataResponseTopic;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ByteBufferWriter;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.RequestHeader;
import io.brook.wire.protocol.ResponseHeader;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** ApiVersions and Metadata over raw sockets against an embedded broker. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BrookApiTest {

    private Brook brook;

    @BeforeEach
    void start() {
        brook = Brook.builder().port(0).config("num.partitions", "2").start();
    }

    @AfterEach
    void stop() {
        brook.close();
    }

    private ProtocolClient client() throws Exception {
        return new ProtocolClient(brook.bootstrapServers());
    }

    @Test
    void shouldAdvertiseExactlyTheRegisteredApisWithTheirRanges() throws Exception {
        try (ProtocolClient c = client()) {
            for (short v = 0; v <= 5; v++) {
                ApiVersionsRequest req = new ApiVersionsRequest();
                if (v >= 3) {
                    req.clientSoftwareName("brook-test").clientSoftwareVersion("1.0");
                }
                ApiVersionsResponse r = c.call(req, v);
                assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
                List<ApiVersion> keys = r.apiKeys();
                ApiTable table = brook.apis();
                assertThat(keys).hasSize(table.entries().size());
                for (ApiTable.Entry<?> e : table.entries()) {
                    assertThat(keys).anySatisfy(k -> {
                        assertThat(k.apiKey()).isEqualTo(e.key().id());
                        assertThat(k.minVersion()).isEqualTo(e.advertisedMin());
                        assertThat(k.maxVersion()).isEqualTo(e.advertisedMax());
                    });
                    // within what the codec reads and writes
                    assertThat(e.acceptFrom()).isGreaterThanOrEqualTo(e.key().oldestVersion());
                    assertThat(e.advertisedMax()).isLessThanOrEqualTo(e.key().latestVersion());
                }
            }
        }
    }

    /**
     * The table reads each key's bodies with the generated reader of that key's request class
     * (ApiMessages), unchecked: a handler registered under the wrong key would fail each request.
     */
    @Test
    void shouldRegisterEachHandlerUnderTheKeyOfTheRequestItHandles() {
        for (ApiTable.Entry<?> e : brook.apis().entries()) {
            Class<?> read = ApiMessages.newRequest(e.key()).getClass();
            List<Class<?>> handled = new ArrayList<>();
            for (Method m : e.handler().getClass().getMethods()) {
                if (m.getName().equals("handle") && !m.isBridge() && m.getParameterCount() == 2
                        && m.getParameterTypes()[0] == RequestContext.class) {
                    handled.add(m.getParameterTypes()[1]);
                }
            }
            assertThat(handled).as("%s's handler %s", e.key(), e.handler().getClass().getSimpleName())
                    .singleElement().isEqualTo(read);
        }
    }

    @Test
    void shouldAnswerTooNewApiVersionsWithUnsupportedVersionInAV0Body() throws Exception {
        try (ProtocolClient c = client()) {
            // v9 with a body we do not understand: header v2, then junk
            RequestHeader h = new RequestHeader(ApiKey.API_VERSIONS, (short) 9, 77, "future-client");
            ByteBuffer b = ByteBuffer.allocate(h.size((short) 2) + 5);
            h.write(new ByteBufferWriter(b), (short) 2);
            b.put(new byte[] {1, 2, 3, 4, 5});
            c.raw().sendFrame(b.flip());
            ByteBuffer frame = c.raw().readFrame();
            assertThat(ResponseHeader.read(frame, (short) 0).correlationId()).isEqualTo(77);
            ApiVersionsResponse r = ApiVersionsResponse.read(frame, (short) 0);
            assertThat(frame.hasRemaining()).isFalse();
            assertThat(r.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
            assertThat(r.apiKeys()).singleElement().satisfies(k -> {
                assertThat(k.apiKey()).isEqualTo(ApiKey.API_VERSIONS.id());
                assertThat(k.minVersion()).isEqualTo((short) 0);
                assertThat(k.maxVersion()).isEqualTo((short) 5);
            });
            // the connection stays usable: the client retries at our maximum
            ApiVersionsResponse retry = c.call(new ApiVersionsRequest().clientSoftwareName("brook-test").clientSoftwareVersion("1.0"), (short) 4);
            assertThat(retry.errorCode()).isEqualTo(Errors.NONE.code());
        }
    }

    /** KIP-1242: a v5 request may name the cluster and node it meant to reach. */
    @Test
    void shouldCheckTheClusterAndNodeAnApiVersionsV5RequestNames() throws Exception {
        try (ProtocolClient c = client()) {
            short v5 = 5;
            ApiVersionsResponse right = c.call(software().clusterId(brook.clusterId()).nodeId(1), v5);
            assertThat(right.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(right.apiKeys()).isNotEmpty();
            assertThat(((ApiVersionsResponse) c.call(software(), v5)).errorCode()).isEqualTo(Errors.NONE.code());

            ApiVersionsResponse otherCluster = c.call(software().clusterId("someOtherClusterId0000").nodeId(1), v5);
            assertThat(otherCluster.errorCode()).isEqualTo(Errors.REBOOTSTRAP_REQUIRED.code());
            assertThat(otherCluster.apiKeys()).isEmpty();
            ApiVersionsResponse otherNode = c.call(software().clusterId(brook.clusterId()).nodeId(2), v5);
            assertThat(otherNode.errorCode()).isEqualTo(Errors.REBOOTSTRAP_REQUIRED.code());

            // one without the other is a malformed request
            assertThat(((ApiVersionsResponse) c.call(software().nodeId(1), v5)).errorCode())
                    .isEqualTo(Errors.INVALID_REQUEST.code());
            assertThat(((ApiVersionsResponse) c.call(software().clusterId(brook.clusterId()), v5)).errorCode())
                    .isEqualTo(Errors.INVALID_REQUEST.code());
        }
    }

    /**
     * The features section (v3+, KIP-584): metadata.version finalized at Kafka 4.4's level and
     * every other feature supported at level 0 only, listed from v4 (Kafka hides features whose
     * minimum is 0 from older requests, KAFKA-17492); a feature finalized later shows on the next
     * request, with a higher epoch.
     */
    @Test
    void shouldListFeatureLevelsFromV3() throws Exception {
        try (ProtocolClient c = client()) {
            // transactions V2: finalized at 2 on a new data directory, as Kafka 4.x formats a new cluster
            assertThat(brook.features().finalizedLevel(FeatureLevels.TRANSACTION_VERSION)).isEqualTo((short) 2);
            ApiVersionsResponse v2 = c.call(new ApiVersionsRequest(), (short) 2);
            assertThat(v2.supportedFeatures()).isEmpty();
            assertThat(v2.finalizedFeaturesEpoch()).isEqualTo(-1L);

            ApiVersionsResponse v3 = c.call(software(), (short) 3);
            assertThat(v3.supportedFeatures()).singleElement().satisfies(f -> {
                assertThat(f.name()).isEqualTo("metadata.version");
                assertThat(f.minVersion()).isEqualTo((short) 33);
                assertThat(f.maxVersion()).isEqualTo((short) 33);
            });
            assertThat(v3.finalizedFeatures()).first().satisfies(f -> {
                assertThat(f.name()).isEqualTo("metadata.version");
                assertThat(f.minVersionLevel()).isEqualTo((short) 33);
                assertThat(f.maxVersionLevel()).isEqualTo((short) 33);
            });
            assertThat(v3.finalizedFeatures()).extracting(ApiVersionsResponse.FinalizedFeatureKey::name)
                    .containsExactly("metadata.version", "transaction.version", "group.version");
            long epoch = v3.finalizedFeaturesEpoch();
            assertThat(epoch).isGreaterThanOrEqualTo(0L);

            ApiVersionsResponse v4 = c.call(software(), (short) 4);
            assertThat(v4.supportedFeatures()).extracting(ApiVersionsResponse.SupportedFeatureKey::name).containsExactly(
                    "metadata.version", "kraft.version", "transaction.version", "group.version",
                    "eligible.leader.replicas.version", "share.version", "streams.version");
            assertThat(v4.supportedFeatures())
                    .filteredOn(f -> !f.name().equals("metadata.version") && !f.name().equals("transaction.version")
                            && !f.name().equals("group.version"))
                    .allSatisfy(f -> assertThat(f.maxVersion()).isZero());
            // KIP-848 consumer groups supported and on
            assertThat(v4.supportedFeatures()).anySatisfy(f -> {
                assertThat(f.name()).isEqualTo("group.version");
                assertThat(f.maxVersion()).isEqualTo((short) 1);
            });
            // transactions V2 (KIP-890) supported and finalized at 2
            assertThat(v4.supportedFeatures()).anySatisfy(f -> {
                assertThat(f.name()).isEqualTo("transaction.version");
                assertThat(f.minVersion()).isZero();
                assertThat(f.maxVersion()).isEqualTo((short) 2);
            });
            assertThat(v4.finalizedFeatures()).anySatisfy(f -> {
                assertThat(f.name()).isEqualTo("transaction.version");
                assertThat(f.minVersionLevel()).isEqualTo((short) 2);
                assertThat(f.maxVersionLevel()).isEqualTo((short) 2);
            });
            assertThat(v4.finalizedFeatures()).hasSize(3);

            brook.features().setFinalized(FeatureLevels.TRANSACTION_VERSION, (short) 0);
            ApiVersionsResponse later = c.call(software(), (short) 5);
            assertThat(later.finalizedFeaturesEpoch()).isGreaterThan(epoch);
            assertThat(later.finalizedFeatures()).extracting(ApiVersionsResponse.FinalizedFeatureKey::name)
                    .containsExactly("metadata.version", "group.version");
            assertThat(later.supportedFeatures()).anySatisfy(f -> {
                assertThat(f.name()).isEqualTo("transaction.version");
                assertThat(f.maxVersion()).isEqualTo((short) 2);
            });
        }
    }

    private static ApiVersionsRequest software() {
        return new ApiVersionsRequest().clientSoftwareName("brook-test").clientSoftwareVersion("1.0");
    }

    @Test
    void shouldDescribeThisBrokerAsControllerWithStableClusterId() throws Exception {
        try (ProtocolClient c = client()) {
            MetadataResponse r = c.call(new MetadataRequest().topics(List.of()), (short) 12);
            assertThat(r.brokers()).singleElement().satisfies(b -> {
                assertThat(b.nodeId()).isEqualTo(1);
                assertThat(b.host()).isEqualTo("127.0.0.1");
                assertThat(b.port()).isEqualTo(brook.port());
            });
            assertThat(r.controllerId()).isEqualTo(1);
            assertThat(r.clusterId()).isEqualTo(brook.clusterId()).hasSize(22).matches("[A-Za-z0-9_-]{22}");
            assertThat(r.topics()).isEmpty();
        }
    }

    @Test
    void shouldAutoCreateRequestedTopicWithDefaultPartitions() throws Exception {
        try (ProtocolClient c = client()) {
            MetadataResponse r = c.call(new MetadataRequest().topics(List.of(new MetadataRequestTopic().name("orders")))
                    .allowAutoTopicCreation(true), (short) 12);
            MetadataResponseTopic t = r.topics().get(0);
            assertThat(t.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(t.name()).isEqualTo("orders");
            assertThat(t.topicId()).isNotEqualTo(new UUID(0, 0));
            assertThat(t.partitions()).hasSize(2).allSatisfy(p -> {
                assertThat(p.leaderId()).isEqualTo(1);
                assertThat(p.leaderEpoch()).isZero();
                assertThat(p.replicaNodes()).containsExactly(1);
                assertThat(p.isrNodes()).containsExactly(1);
            });
            // the id is stable
            MetadataResponse again = c.call(new MetadataRequest().topics(null), (short) 12);
            assertThat(again.topics()).singleElement().satisfies(x -> assertThat(x.topicId()).isEqualTo(t.topicId()));
        }
    }

    @Test
    void shouldNotAutoCreateWhenRequestOrBrokerForbidsIt() throws Exception {
        try (ProtocolClient c = client()) {
            MetadataResponse r = c.call(new MetadataRequest().topics(List.of(new MetadataRequestTopic().name("nope")))
                    .allowAutoTopicCreation(false), (short) 12);
            assertThat(r.topics().get(0).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            MetadataResponse all = c.call(new MetadataRequest().topics(null), (short) 12);
            assertThat(all.topics()).isEmpty();
        }
        try (Brook other = Brook.builder().config("auto.create.topics.enable", "false").start();
                ProtocolClient c = new ProtocolClient(other.bootstrapServers())) {
            MetadataResponse r = c.call(new MetadataRequest().topics(List.of(new MetadataRequestTopic().name("nope"))),
                    (short) 4);
            assertThat(r.topics().get(0).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        }
    }

    @Test
    void shouldRejectInvalidTopicNames() throws Exception {
        try (ProtocolClient c = client()) {
            MetadataResponse r = c.call(new MetadataRequest().topics(List.of(
                    new MetadataRequestTopic().name("bad name!"), new MetadataRequestTopic().name(".."))), (short) 1);
            assertThat(r.topics()).extracting(MetadataResponseTopic::errorCode)
                    .containsExactly(Errors.INVALID_TOPIC_EXCEPTION.code(), Errors.INVALID_TOPIC_EXCEPTION.code());
        }
    }

    @Test
    void shouldAnswerEveryVersionFromZeroToThirteen() throws Exception {
        try (ProtocolClient c = client()) {
            for (short v = 0; v <= 13; v++) {
                MetadataRequest req = new MetadataRequest().topics(List.of(new MetadataRequestTopic().name("t" + v)));
                MetadataResponse r = c.call(req, v);
                assertThat(r.topics()).singleElement().satisfies(t -> assertThat(t.errorCode()).isZero());
            }
        }
    }

    @Test
    void shouldKeepServingAfterProtocolAbuseOnOtherConnections() throws Exception {
        try (RawClient junk = new RawClient(new java.net.InetSocketAddress("127.0.0.1", brook.port()))) {
            junk.sendRaw(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff});
            assertThat(junk.closedByBroker()).isTrue();
        }
        try (ProtocolClient c = client()) {
            // valid header, garbage body: array length far beyond the frame
            RequestHeader h = new RequestHeader(ApiKey.METADATA, (short) 1, 5, "x");
            ByteBuffer b = ByteBuffer.allocate(h.size((short) 1) + 4);
            h.write(new ByteBufferWriter(b), (short) 1);
            b.putInt(1_000_000);
            c.raw().sendFrame(b.flip());
            assertThat(c.raw().closedByBroker()).isTrue();
        }
        try (ProtocolClient c = client()) {
            assertThat(((ApiVersionsResponse) c.call(new ApiVersionsRequest().clientSoftwareName("brook-test")
                    .clientSoftwareVersion("1.0"), (short) 3)).errorCode()).isZero();
        }
    }

    @Test
    void shouldRejectApiVersionsWithAnInvalidClientSoftwareName() throws Exception {
        try (ProtocolClient c = client()) {
            ApiVersionsResponse r = c.call(new ApiVersionsRequest().clientSoftwareName("bad name!")
                    .clientSoftwareVersion("1.0"), (short) 3);
            assertThat(r.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
            ApiVersionsResponse ok = c.call(new ApiVersionsRequest().clientSoftwareName("apache-kafka-java")
                    .clientSoftwareVersion("4.1.0"), (short) 3);
            assertThat(ok.errorCode()).isZero();
        }
    }
}
