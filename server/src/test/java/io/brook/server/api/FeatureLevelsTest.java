package io.brook.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.MutableClock;
import io.brook.wire.message.ApiVersionsResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FeatureLevelsTest {

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);

    @Test
    void defaultsAreWhatBrookImplementsToday() {
        FeatureLevels f = FeatureLevels.brookDefaults(clock);
        assertThat(f.finalizedLevel(FeatureLevels.METADATA_VERSION)).isEqualTo((short) 33);
        // transactions V2 (KIP-890) supported, finalized by an operator (kafka-features.sh upgrade)
        assertThat(f.levels(FeatureLevels.TRANSACTION_VERSION)).isEqualTo(new FeatureLevels.Levels((short) 0, (short) 2, (short) 0));
        // KIP-848 consumer groups supported and on, as in Kafka 4.x
        assertThat(f.levels(FeatureLevels.GROUP_VERSION)).isEqualTo(new FeatureLevels.Levels((short) 0, (short) 1, (short) 1));
        for (String name : new String[] {FeatureLevels.KRAFT_VERSION,
                FeatureLevels.ELIGIBLE_LEADER_REPLICAS_VERSION, FeatureLevels.SHARE_VERSION,
                FeatureLevels.STREAMS_VERSION}) {
            assertThat(f.levels(name)).isEqualTo(new FeatureLevels.Levels((short) 0, (short) 0, (short) 0));
        }
        assertThat(f.finalizedLevel("no.such.feature")).isZero();
        assertThat(f.epoch()).isEqualTo(clock.millis());
    }

    @Test
    void aFeatureIsFinalizedOnlyWithinWhatIsSupported() {
        FeatureLevels f = FeatureLevels.brookDefaults(clock);
        assertThatThrownBy(() -> f.setFinalized(FeatureLevels.STREAMS_VERSION, (short) 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> f.setFinalized("no.such.feature", (short) 1))
                .isInstanceOf(IllegalArgumentException.class);
        f.setSupported(FeatureLevels.STREAMS_VERSION, (short) 0, (short) 1);
        f.setFinalized(FeatureLevels.STREAMS_VERSION, (short) 1);
        assertThat(f.finalizedLevel(FeatureLevels.STREAMS_VERSION)).isEqualTo((short) 1);
        // the supported range may not be narrowed below the finalized level
        f.setFinalized(FeatureLevels.TRANSACTION_VERSION, (short) 2);
        assertThatThrownBy(() -> f.setSupported(FeatureLevels.TRANSACTION_VERSION, (short) 0, (short) 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Java clients keep the features of the answer with the highest epoch, so every change must raise it. */
    @Test
    void everyChangeRaisesTheEpochEvenWithinOneMillisecond() {
        FeatureLevels f = FeatureLevels.brookDefaults(clock);
        long first = f.epoch();
        f.setSupported(FeatureLevels.STREAMS_VERSION, (short) 0, (short) 1);
        f.setFinalized(FeatureLevels.STREAMS_VERSION, (short) 1);
        assertThat(f.epoch()).isEqualTo(first + 2);
        clock.advance(5_000);
        f.setFinalized(FeatureLevels.STREAMS_VERSION, (short) 0);
        assertThat(f.epoch()).isEqualTo(clock.millis());
    }

    @Test
    void answersShowFinalizedFeaturesAboveZeroAndHideMinimumZeroBelowV4() {
        FeatureLevels f = FeatureLevels.brookDefaults(clock);
        f.setSupported(FeatureLevels.TRANSACTION_VERSION, (short) 0, (short) 2);
        f.setFinalized(FeatureLevels.TRANSACTION_VERSION, (short) 2);
        ApiVersionsResponse v3 = new ApiVersionsResponse();
        f.addTo(v3, (short) 3);
        assertThat(v3.supportedFeatures()).extracting(ApiVersionsResponse.SupportedFeatureKey::name)
                .containsExactly(FeatureLevels.METADATA_VERSION);
        assertThat(v3.finalizedFeatures()).extracting(ApiVersionsResponse.FinalizedFeatureKey::name)
                .containsExactly(FeatureLevels.METADATA_VERSION, FeatureLevels.TRANSACTION_VERSION, FeatureLevels.GROUP_VERSION);
        assertThat(v3.finalizedFeaturesEpoch()).isEqualTo(f.epoch());
        ApiVersionsResponse v4 = new ApiVersionsResponse();
        f.addTo(v4, (short) 4);
        assertThat(v4.supportedFeatures()).hasSize(7);
    }

    @Test
    void levelsAnOperatorFinalizedAreReadBackAtTheNextStart(@TempDir Path dir) throws Exception {
        Path file = dir.resolve(FeatureLevels.FILE);
        FeatureLevels f = FeatureLevels.brookDefaults(clock);
        f.setSupported(FeatureLevels.SHARE_VERSION, (short) 0, (short) 1);
        f.persistIn(file, false);
        assertThat(file).doesNotExist();
        f.finalizeLevels(Map.of(FeatureLevels.SHARE_VERSION, (short) 1));
        long epoch = f.epoch();
        assertThat(epoch).isGreaterThan(clock.millis() - 1);

        clock.advance(-60_000); // a clock that went back must not lower the epoch
        FeatureLevels again = FeatureLevels.brookDefaults(clock);
        again.setSupported(FeatureLevels.SHARE_VERSION, (short) 0, (short) 1);
        again.persistIn(file, false);
        assertThat(again.finalizedLevel(FeatureLevels.SHARE_VERSION)).isEqualTo((short) 1);
        assertThat(again.epoch()).isEqualTo(epoch);
        // only what an operator set is kept: the other features take this Brook's defaults
        assertThat(Files.readString(file)).contains("level.share.version=1").doesNotContain("metadata.version");

        // a Brook that does not support the stored level refuses to start on it
        FeatureLevels older = FeatureLevels.brookDefaults(clock);
        assertThatThrownBy(() -> older.persistIn(file, false)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("share.version at level 1");
    }

    @Test
    void aNewDataDirectoryIsFinalizedAtTransactionsV2AndStoresIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve(FeatureLevels.FILE);
        FeatureLevels older = FeatureLevels.brookDefaults(clock);
        older.persistIn(file, false);
        assertThat(older.finalizedLevel(FeatureLevels.TRANSACTION_VERSION)).isZero();
        assertThat(file).doesNotExist();

        FeatureLevels fresh = FeatureLevels.brookDefaults(clock);
        fresh.persistIn(file, true);
        assertThat(fresh.finalizedLevel(FeatureLevels.TRANSACTION_VERSION)).isEqualTo((short) 2);
        assertThat(Files.readString(file)).contains("level.transaction.version=2");
        FeatureLevels again = FeatureLevels.brookDefaults(clock);
        again.persistIn(file, false);
        assertThat(again.finalizedLevel(FeatureLevels.TRANSACTION_VERSION)).isEqualTo((short) 2);
    }

    @Test
    void aLevelOutsideTheSupportedRangeIsNotFinalized() {
        FeatureLevels f = FeatureLevels.brookDefaults(clock);
        long epoch = f.epoch();
        assertThatThrownBy(() -> f.finalizeLevels(Map.of(FeatureLevels.STREAMS_VERSION, (short) 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> f.finalizeLevels(Map.of(FeatureLevels.METADATA_VERSION, (short) 0)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(f.epoch()).isEqualTo(epoch);
    }
}
