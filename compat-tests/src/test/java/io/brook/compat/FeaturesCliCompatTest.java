package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.compat.CliToolsCompatTest.Run;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code kafka-features.sh} (describe, upgrade, downgrade, disable, each also with
 * {@code --dry-run}) against Brook, run as {@link CliToolsCompatTest} runs Kafka's tools. What
 * holds for any broker is checked against any; Brook's own levels (metadata.version 33 alone,
 * the other features at 0, see the server's {@code FeatureLevels}) and what changes them only
 * against the embedded Brook, which keeps no state other tests share.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class FeaturesCliCompatTest {

    private static final String FEATURES = org.apache.kafka.tools.FeatureCommand.class.getName();
    private static final Pattern EPOCH = Pattern.compile("Feature: metadata\\.version .* Epoch: (\\d+)");

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    private static Run features(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", cluster.bootstrapServers()));
        all.addAll(List.of(args));
        Run r = CliToolsCompatTest.tool(FEATURES, all.toArray(String[]::new));
        // describe pads its columns with spaces: one space apart, the lines compare simply
        return new Run(r.exit(), r.output().replaceAll("[ \t]+", " "));
    }

    private static long epoch(Run describe) {
        Matcher m = EPOCH.matcher(describe.output());
        assertThat(m.find()).as(describe.output()).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    void describeListsEveryFeatureWithItsLevels() throws Exception {
        Run r = features("describe");
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).contains("Feature: metadata.version SupportedMinVersion: ")
                .contains("Feature: transaction.version SupportedMinVersion: ")
                .contains("Feature: group.version SupportedMinVersion: ");
        if (cluster.embedded()) {
            assertThat(r.output()).contains("Feature: metadata.version SupportedMinVersion: 4.4-IV2 "
                    + "SupportedMaxVersion: 4.4-IV2 FinalizedVersionLevel: 4.4-IV2 Epoch: ")
                    .contains("Feature: share.version SupportedMinVersion: 0 SupportedMaxVersion: 0 "
                    + "FinalizedVersionLevel: 0 Epoch: ");
        }
    }

    @Test
    void anUnsupportedLevelIsRefusedWithTheBrokersReason() throws Exception {
        Run r = features("upgrade", "--feature", "group.version=9");
        assertThat(r.exit()).as(r.output()).isNotZero();
        assertThat(r.output()).contains("Could not upgrade group.version to 9. The update failed for all features "
                + "since the following feature had an error: Invalid update version 9 for feature group.version.")
                .contains("1 out of 1 operation(s) failed.");
        Run dry = features("upgrade", "--feature", "group.version=9", "--dry-run");
        assertThat(dry.exit()).as(dry.output()).isNotZero();
        assertThat(dry.output()).contains("Can not upgrade group.version to 9.");
    }

    @Test
    void upgradeDowngradeAndDisableAsKafkaAnswersThem() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(cluster.embedded(), "changes levels: the embedded Brook only");
        long before = epoch(features("describe"));

        Run dry = features("upgrade", "--feature", "metadata.version=33", "--dry-run");
        assertThat(dry.exit()).as(dry.output()).isZero();
        assertThat(dry.output()).contains("metadata.version can be upgraded to 33.");
        assertThat(epoch(features("describe"))).as("a dry run changes nothing").isEqualTo(before);

        Run up = features("upgrade", "--feature", "metadata.version=33");
        assertThat(up.exit()).as(up.output()).isZero();
        assertThat(up.output()).contains("metadata.version was upgraded to 33.");
        long after = epoch(features("describe"));
        assertThat(after).isGreaterThan(before);

        Run down = features("downgrade", "--feature", "metadata.version=32");
        assertThat(down.exit()).as(down.output()).isNotZero();
        assertThat(down.output()).contains("Could not downgrade metadata.version to 32.")
                .contains("only supports versions 33");
        Run wrongWay = features("upgrade", "--feature", "transaction.version=1", "--dry-run");
        assertThat(wrongWay.output()).contains("Can not upgrade transaction.version to 1.");

        Run disable = features("disable", "--feature", "share.version");
        assertThat(disable.exit()).as(disable.output()).isZero();
        assertThat(disable.output()).contains("share.version was disabled.");
        Run disableMv = features("disable", "--feature", "metadata.version", "--dry-run");
        assertThat(disableMv.exit()).as(disableMv.output()).isNotZero();
        assertThat(disableMv.output()).contains("Can not disable metadata.version.");
        assertThat(epoch(features("describe"))).isGreaterThan(after);
    }
}
