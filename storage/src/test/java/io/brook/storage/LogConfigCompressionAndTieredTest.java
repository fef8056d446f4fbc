package io.brook.storage;

import io.brook.storage.config.InvalidConfigException;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The topic configs of Kafka 3.8 to 4.4 that Brook stores without acting on, or acts on in part:
 * compression levels (KIP-390), {@code max.decompressed.message.bytes}, the tiered storage keys
 * and the share groups' dead-letter flag. Defaults and ranges are Kafka 4.4's.
 */
class LogConfigCompressionAndTieredTest {

    @Test
    void shouldKnowKafkasNamesWithKafkasDefaults() {
        Map<String, String> expected = Map.ofEntries(
                Map.entry("compression.gzip.level", "-1"),
                Map.entry("compression.lz4.level", "9"),
                Map.entry("compression.zstd.level", "3"),
                Map.entry("max.decompressed.message.bytes", "2147483639"),
                Map.entry("errors.deadletterqueue.group.enable", "false"),
                Map.entry("remote.storage.enable", "false"),
                Map.entry("local.retention.ms", "-2"),
                Map.entry("local.retention.bytes", "-2"),
                Map.entry("remote.log.copy.disable", "false"),
                Map.entry("remote.log.delete.on.disable", "false"),
                Map.entry("remote.copy.lag.ms", "0"),
                Map.entry("remote.copy.lag.bytes", "-1"));
        for (Map.Entry<String, String> e : expected.entrySet()) {
            assertThat(LogConfig.defaultValue(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
        }
        // Kafka 4.4's 37 topic configs, and Brook's brook.flush.on.ack
        assertThat(LogConfig.names()).hasSize(38).containsAll(expected.keySet());
        LogConfig c = LogConfig.defaults();
        assertThat(c.gzipLevel()).isEqualTo(-1);
        assertThat(c.lz4Level()).isEqualTo(9);
        assertThat(c.zstdLevel()).isEqualTo(3);
        assertThat(c.maxDecompressedMessageBytes()).isEqualTo(Integer.MAX_VALUE - 8);
    }

    @Test
    void shouldAcceptCompressionLevelsInKafkasRanges() {
        LogConfig c = LogConfig.defaults().with(Map.of("compression.gzip.level", "9", "compression.lz4.level", "17",
                "compression.zstd.level", "-131072"));
        assertThat(c.gzipLevel()).isEqualTo(9);
        assertThat(c.lz4Level()).isEqualTo(17);
        assertThat(c.zstdLevel()).isEqualTo(-131072);
        assertThat(LogConfig.defaults().with(Map.of("compression.gzip.level", "1")).gzipLevel()).isEqualTo(1);
        assertThat(LogConfig.defaults().with(Map.of("compression.gzip.level", "-1")).gzipLevel()).isEqualTo(-1);
        assertThat(LogConfig.defaults().with(Map.of("compression.lz4.level", "1")).lz4Level()).isEqualTo(1);
        assertThat(LogConfig.defaults().with(Map.of("compression.zstd.level", "22")).zstdLevel()).isEqualTo(22);
        // a level for a codec other than the topic's is accepted, as in Kafka
        assertThat(LogConfig.defaults().with(Map.of("compression.type", "gzip", "compression.zstd.level", "10"))
                .zstdLevel()).isEqualTo(10);
    }

    @Test
    void shouldRefuseCompressionLevelsOutOfRangeNamingTheSetting() {
        rejects("compression.gzip.level", "0", "must be between 1 and 9 or equal to -1");
        rejects("compression.gzip.level", "10", "must be between 1 and 9 or equal to -1");
        rejects("compression.gzip.level", "-2", "must be between 1 and 9 or equal to -1");
        rejects("compression.gzip.level", "abc", "not a valid int");
        rejects("compression.lz4.level", "0", "must be between 1 and 17");
        rejects("compression.lz4.level", "18", "must be between 1 and 17");
        rejects("compression.zstd.level", "23", "must be between -131072 and 22");
        rejects("compression.zstd.level", "-131073", "must be between -131072 and 22");
        rejects("compression.zstd.level", "3.5", "not a valid int");
    }

    @Test
    void shouldBoundMaxDecompressedMessageBytesAsKafka() {
        assertThat(LogConfig.defaults().with(Map.of("max.decompressed.message.bytes", "1"))
                .maxDecompressedMessageBytes()).isEqualTo(1);
        assertThat(LogConfig.defaults().with(Map.of("max.decompressed.message.bytes", "2147483639"))
                .maxDecompressedMessageBytes()).isEqualTo(2147483639);
        rejects("max.decompressed.message.bytes", "0", "must be between 1 and 2147483639");
        rejects("max.decompressed.message.bytes", "2147483640", "must be between 1 and 2147483639");
    }

    @Test
    void shouldAcceptTieredStorageKeysInRangeWithoutComparingLocalAndTotalRetention() {
        Map<String, String> tiered = Map.of("remote.storage.enable", "false", "local.retention.ms", "1000",
                "retention.ms", "500", "local.retention.bytes", "100", "retention.bytes", "50",
                "remote.log.copy.disable", "true", "remote.log.delete.on.disable", "true",
                "remote.copy.lag.ms", "-1", "remote.copy.lag.bytes", "10000");
        assertThat(LogConfig.defaults().with(tiered).overrides()).containsAllEntriesOf(tiered);
        assertThatCode(() -> LogConfig.checkRequested(tiered)).doesNotThrowAnyException();
        rejects("local.retention.ms", "-3", "must be at least -2");
        rejects("local.retention.bytes", "-3", "must be at least -2");
        rejects("remote.copy.lag.ms", "-2", "must be at least -1");
        rejects("remote.copy.lag.bytes", "-2", "must be at least -1");
        rejects("remote.log.copy.disable", "yes", "expected true or false");
        rejects("remote.log.delete.on.disable", "1", "expected true or false");
        rejects("errors.deadletterqueue.group.enable", "on", "expected true or false");
        assertThat(LogConfig.defaults().with(Map.of("errors.deadletterqueue.group.enable", "TRUE")).overrides())
                .containsEntry("errors.deadletterqueue.group.enable", "TRUE");
    }

    @Test
    void shouldRefuseTurningTieredStorageOnWithKafkasMessage() {
        assertThatThrownBy(() -> LogConfig.checkRequested(Map.of("remote.storage.enable", "true")))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("Tiered Storage functionality is disabled in the broker."
                        + " Topic cannot be configured with remote log storage.")
                .satisfies(e -> assertThat(((InvalidConfigException) e).name()).isEqualTo("remote.storage.enable"));
        assertThatThrownBy(() -> LogConfig.checkRequested(Map.of("remote.storage.enable", " TRUE ",
                "remote.log.copy.disable", "true"))).hasMessage(LogConfig.TIERED_STORAGE_DISABLED);
        assertThatCode(() -> LogConfig.checkRequested(Map.of("remote.storage.enable", "false")))
                .doesNotThrowAnyException();
    }

    private static void rejects(String name, String value, String reason) {
        assertThatThrownBy(() -> LogConfig.defaults().with(Map.of(name, value)))
                .as(name + "=" + value)
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining(name)
                .hasMessageContaining(reason)
                .satisfies(e -> assertThat(((InvalidConfigException) e).name()).isEqualTo(name));
    }
}
