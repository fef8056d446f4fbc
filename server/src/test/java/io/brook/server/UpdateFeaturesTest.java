package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.api.FeatureLevels;
import io.brook.testkit.MutableClock;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.common.errors.InvalidUpdateVersionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * UpdateFeatures through Kafka's Admin client (what kafka-features.sh calls): levels within the
 * supported range are finalized at once and show in the next ApiVersions answer under a higher
 * epoch, the rest fail with Kafka's INVALID_UPDATE_VERSION and its message, a dry run changes
 * nothing, and what was finalized is still in force after a restart.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UpdateFeaturesTest {

    private static final String SHARE = FeatureLevels.SHARE_VERSION;
    private static final String MV = FeatureLevels.METADATA_VERSION;

    @TempDir
    Path tmp;

    private static Admin admin(Brook brook) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        return Admin.create(p);
    }

    private static FeatureMetadata describe(Admin admin) throws Exception {
        return admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS);
    }

    private static void update(Admin admin, String feature, int level, FeatureUpdate.UpgradeType type, boolean dryRun)
            throws Exception {
        admin.updateFeatures(Map.of(feature, new FeatureUpdate((short) level, type)),
                new UpdateFeaturesOptions().validateOnly(dryRun)).all().get(30, TimeUnit.SECONDS);
    }

    private static String failure(Admin admin, String feature, int level, FeatureUpdate.UpgradeType type) {
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> update(admin, feature, level, type, false));
        assertThat(t).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(InvalidUpdateVersionException.class);
        return t.getCause().getMessage();
    }

    @Test
    void finalizesLevelsWithinTheSupportedRangeAtOnce() throws Exception {
        try (Brook brook = Brook.builder().port(0).dataDir(tmp.resolve("data")).start(); Admin admin = admin(brook)) {
            brook.features().setSupported(SHARE, (short) 0, (short) 2);
            long epoch = describe(admin).finalizedFeaturesEpoch().orElseThrow();

            update(admin, SHARE, 2, FeatureUpdate.UpgradeType.UPGRADE, true); // dry run
            FeatureMetadata dry = describe(admin);
            assertThat(dry.finalizedFeatures()).doesNotContainKey(SHARE);
            assertThat(dry.finalizedFeaturesEpoch()).hasValue(epoch);

            update(admin, SHARE, 2, FeatureUpdate.UpgradeType.UPGRADE, false);
            FeatureMetadata up = describe(admin);
            assertThat(up.finalizedFeatures().get(SHARE).maxVersionLevel()).isEqualTo((short) 2);
            assertThat(up.finalizedFeaturesEpoch().orElseThrow()).isGreaterThan(epoch);
            assertThat(brook.features().finalizedLevel(SHARE)).isEqualTo((short) 2);

            assertThat(failure(admin, SHARE, 1, FeatureUpdate.UpgradeType.UPGRADE)).isEqualTo(
                    "The update failed for all features since the following feature had an error: Invalid update "
                    + "version 1 for feature share.version. Can't downgrade the version of this feature without "
                    + "setting the upgrade type to either safe or unsafe downgrade.");
            update(admin, SHARE, 1, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE, false);
            assertThat(describe(admin).finalizedFeatures().get(SHARE).maxVersionLevel()).isEqualTo((short) 1);
            update(admin, SHARE, 0, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE, false); // kafka-features.sh disable
            assertThat(describe(admin).finalizedFeatures()).doesNotContainKey(SHARE);
        }
    }

    @Test
    void refusesWhatKafkasControllerRefuses() throws Exception {
        try (Brook brook = Brook.builder().port(0).dataDir(tmp.resolve("data")).start(); Admin admin = admin(brook)) {
            int node = admin.describeCluster().controller().get().id();
            String prefix = "The update failed for all features since the following feature had an error: ";
            assertThat(failure(admin, FeatureLevels.STREAMS_VERSION, 1, FeatureUpdate.UpgradeType.UPGRADE)).isEqualTo(
                    prefix + "Invalid update version 1 for feature streams.version. Local controller " + node
                    + " does not support this feature.");
            assertThat(failure(admin, MV, 34, FeatureUpdate.UpgradeType.UPGRADE)).isEqualTo(
                    prefix + "Invalid update version 34 for feature metadata.version. Local controller " + node
                    + " only supports versions 33");
            assertThat(failure(admin, MV, 32, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE))
                    .endsWith("Local controller " + node + " only supports versions 33");
            assertThat(failure(admin, "no.such.feature", 0, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE))
                    .endsWith("Invalid update version 0 for feature no.such.feature. Feature no.such.feature not found.");

            // a wider range for metadata.version: its downgrades still fail, as Kafka's that lose metadata do
            brook.features().setSupported(MV, (short) 30, (short) 33);
            assertThat(failure(admin, MV, 32, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE)).endsWith(
                    "Refusing to perform the requested downgrade because it might delete metadata information.");
            assertThat(failure(admin, MV, 32, FeatureUpdate.UpgradeType.UNSAFE_DOWNGRADE))
                    .endsWith("Unsafe metadata downgrade is not supported in this version.");
            brook.features().setSupported(SHARE, (short) 0, (short) 1);
            assertThat(failure(admin, SHARE, 1, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE))
                    .endsWith("Can't downgrade to a newer version.");

            // one bad update fails the request: the good one is not applied either
            assertThatThrownBy(() -> admin.updateFeatures(Map.of(
                    SHARE, new FeatureUpdate((short) 1, FeatureUpdate.UpgradeType.UPGRADE),
                    FeatureLevels.STREAMS_VERSION, new FeatureUpdate((short) 1, FeatureUpdate.UpgradeType.UPGRADE)),
                    new UpdateFeaturesOptions()).all().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(InvalidUpdateVersionException.class);
            assertThat(brook.features().finalizedLevel(SHARE)).isZero();
        }
    }

    /**
     * A new data directory runs transactions V2 as a new Kafka 4.x cluster does; an operator's
     * downgrade holds across restarts; a data directory that served before Brook finalized V2 by
     * default (it has no stored levels) keeps level 0, which the Brook that wrote it can read.
     */
    @Test
    void transactionsV2IsFinalizedForANewDataDirectoryOnly() throws Exception {
        Path data = tmp.resolve("data");
        String tv = FeatureLevels.TRANSACTION_VERSION;
        try (Brook brook = Brook.builder().port(0).dataDir(data).start(); Admin admin = admin(brook)) {
            assertThat(describe(admin).finalizedFeatures().get(tv).maxVersionLevel()).isEqualTo((short) 2);
            update(admin, tv, 0, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE, false); // kafka-features.sh downgrade
            assertThat(describe(admin).finalizedFeatures()).doesNotContainKey(tv);
        }
        try (Brook brook = Brook.builder().port(0).dataDir(data).start()) {
            assertThat(brook.features().finalizedLevel(tv)).isZero();
        }
        Path older = tmp.resolve("older");
        try (Brook brook = Brook.builder().port(0).dataDir(older).start()) {
            assertThat(brook.features().finalizedLevel(tv)).isEqualTo((short) 2);
        }
        java.nio.file.Files.delete(older.resolve("meta").resolve(FeatureLevels.FILE)); // as an older Brook left it
        try (Brook brook = Brook.builder().port(0).dataDir(older).start()) {
            assertThat(brook.features().finalizedLevel(tv)).isZero();
        }
    }

    /** Clients keep the features of the highest epoch they saw: a restart must not lower it, even when the clock did. */
    @Test
    void finalizedLevelsAndTheirEpochSurviveARestart() throws Exception {
        Path data = tmp.resolve("data");
        MutableClock clock = new MutableClock(System.currentTimeMillis());
        long epoch;
        try (Brook brook = Brook.builder().port(0).dataDir(data).clock(clock).start(); Admin admin = admin(brook)) {
            update(admin, FeatureLevels.GROUP_VERSION, 0, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE, false);
            clock.advance(60_000);
            update(admin, MV, 33, FeatureUpdate.UpgradeType.UPGRADE, false);
            epoch = describe(admin).finalizedFeaturesEpoch().orElseThrow();
            assertThat(brook.features().epoch()).isEqualTo(epoch).isEqualTo(clock.millis());
        }
        clock.advance(-30_000);
        try (Brook brook = Brook.builder().port(0).dataDir(data).clock(clock).start(); Admin admin = admin(brook)) {
            assertThat(describe(admin).finalizedFeaturesEpoch()).hasValue(epoch);
            assertThat(describe(admin).finalizedFeatures().get(MV).maxVersionLevel()).isEqualTo((short) 33);
        }
    }
}
