package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.SupportedVersionRange;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKey;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The features section of ApiVersions (KIP-584) as kafka-clients reads it: through
 * {@code Admin.describeFeatures()}, and byte for byte through kafka-clients' own
 * {@link ApiVersionsResponseData} at every version that carries it. What holds for any broker
 * is checked against any; Brook's own levels (see the server's {@code FeatureLevels}) only
 * against the embedded Brook.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FeaturesCompatTest {

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    @Test
    void adminDescribesTheFeatures() throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        try (Admin admin = Admin.create(p)) {
            FeatureMetadata f = admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS);
            assertThat(f.finalizedFeaturesEpoch()).hasValueSatisfying(e -> assertThat(e).isNotNegative());
            assertThat(f.finalizedFeatures()).containsKey("metadata.version");
            assertThat(f.supportedFeatures()).containsKeys("metadata.version", "kraft.version", "transaction.version",
                    "group.version");
            for (Map.Entry<String, FinalizedVersionRange> e : f.finalizedFeatures().entrySet()) {
                SupportedVersionRange supported = f.supportedFeatures().get(e.getKey());
                assertThat(supported).as("supported range of finalized %s", e.getKey()).isNotNull();
                assertThat(e.getValue().maxVersionLevel()).isBetween(supported.minVersion(), supported.maxVersion());
            }
            if (cluster.embedded()) {
                assertThat(f.finalizedFeatures()).containsOnlyKeys("metadata.version", "transaction.version", "group.version");
                // KIP-848 consumer groups on, as on a new Kafka 4 cluster (docs/consumer-protocol.md)
                assertThat(f.finalizedFeatures().get("group.version").maxVersionLevel()).isEqualTo((short) 1);
                assertThat(f.finalizedFeatures().get("metadata.version").maxVersionLevel()).isEqualTo((short) 33);
                // transactions V2 (KIP-890) supported, and finalized on a new data directory (docs/transactions.md)
                assertThat(f.supportedFeatures().get("transaction.version").maxVersion()).isEqualTo((short) 2);
                assertThat(f.finalizedFeatures().get("transaction.version").maxVersionLevel()).isEqualTo((short) 2);
            }
        }
    }

    /**
     * Brook's answers parsed by kafka-clients at v3-v5: features whose minimum level is 0 are
     * left out below v4 (KAFKA-17492), finalized features are the same at every version, each
     * finalized at one level.
     */
    @Test
    void kafkaClientsReadTheFeaturesSectionAtEveryVersion() throws Exception {
        try (RawKafkaRequests raw = new RawKafkaRequests(cluster.bootstrapServers())) {
            Map<String, Short> finalizedAtV3 = null;
            for (short v = 3; v <= 5; v++) {
                ApiVersionsResponseData r = ((ApiVersionsResponse) raw.call(new ApiVersionsRequest.Builder().build(v))).data();
                assertThat(r.errorCode()).isZero();
                assertThat(r.finalizedFeaturesEpoch()).isNotNegative();
                Map<String, Short> finalized = new TreeMap<>();
                for (FinalizedFeatureKey k : r.finalizedFeatures()) {
                    assertThat(k.minVersionLevel()).isEqualTo(k.maxVersionLevel());
                    assertThat(k.maxVersionLevel()).isPositive();
                    finalized.put(k.name(), k.maxVersionLevel());
                }
                assertThat(finalized).containsKey("metadata.version");
                if (finalizedAtV3 == null) {
                    finalizedAtV3 = finalized;
                } else {
                    assertThat(finalized).isEqualTo(finalizedAtV3);
                }
                if (v < 4) {
                    assertThat(r.supportedFeatures()).allSatisfy(k -> assertThat(k.minVersion()).isPositive());
                } else {
                    assertThat(r.supportedFeatures().stream().map(SupportedFeatureKey::name))
                            .contains("metadata.version", "kraft.version", "transaction.version", "group.version");
                }
                if (cluster.embedded()) {
                    assertThat(r.supportedFeatures().stream().map(SupportedFeatureKey::name)).hasSize(v < 4 ? 1 : 7);
                    assertThat(r.zkMigrationReady()).isFalse();
                }
            }
        }
    }
}
