package io.brook.storage;

import io.brook.storage.config.InvalidConfigException;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LogConfigTest {
    @Test
    void shouldUseKafkaDefaults() {
        LogConfig c = LogConfig.defaults();
        assertThat(c.segmentBytes()).isEqualTo(1 << 30);
        assertThat(c.segmentMs()).isEqualTo(7L * 24 * 3600 * 1000);
        assertThat(c.retentionMs()).isEqualTo(7L * 24 * 3600 * 1000);
        assertThat(c.retentionBytes()).isEqualTo(-1);
        assertThat(c.delete()).isTrue();
        assertThat(c.compact()).isFalse();
        assertThat(c.minCompactionLagMs()).isZero();
        assertThat(c.deleteRetentionMs()).isEqualTo(86_400_000L);
        assertThat(c.maxMessageBytes()).isEqualTo(1048588);
        assertThat(c.logAppendTime()).isFalse();
        assertThat(c.indexIntervalBytes()).isEqualTo(4096);
        assertThat(c.segmentIndexBytes()).isEqualTo(10 * 1024 * 1024);
        assertThat(c.flushMs()).isEqualTo(Long.MAX_VALUE);
        assertThat(c.flushMessages()).isEqualTo(Long.MAX_VALUE);
        assertThat(c.minCleanableDirtyRatio()).isEqualTo(0.5);
        assertThat(c.flushOnAck()).isTrue();
        assertThat(c.values()).containsEntry("cleanup.policy", "delete").containsEntry("compression.type", "producer");
        assertThat(c.overrides()).isEmpty();
    }

    @Test
    void shouldParseStringsAndNumbersAndKeepOverrides() {
        LogConfig c = LogConfig.defaults().with(Map.of("retention.ms", "1000", "segment.bytes", 4096,
                "cleanup.policy", "compact,delete", "message.timestamp.type", "LogAppendTime"));
        assertThat(c.retentionMs()).isEqualTo(1000);
        assertThat(c.segmentBytes()).isEqualTo(4096);
        assertThat(c.compact()).isTrue();
        assertThat(c.delete()).isTrue();
        assertThat(c.logAppendTime()).isTrue();
        assertThat(c.overrides()).containsOnlyKeys("retention.ms", "segment.bytes", "cleanup.policy",
                "message.timestamp.type");
        java.util.Map<String, Object> reset = new java.util.HashMap<>();
        reset.put("retention.ms", null);
        assertThat(c.with(reset).retentionMs()).isEqualTo(604800000L);
        assertThat(LogConfig.defaults().with(Map.of("cleanup.policy", "")).delete()).isFalse();
    }

    @Test
    void shouldRejectUnknownNamesAndBadValuesNamingTheSetting() {
        assertThatThrownBy(() -> LogConfig.defaults().with(Map.of("retention.mss", "1")))
                .isInstanceOf(InvalidConfigException.class).hasMessageContaining("retention.mss");
        assertThatThrownBy(() -> LogConfig.defaults().with(Map.of("segment.bytes", "abc")))
                .isInstanceOf(InvalidConfigException.class)
                .satisfies(e -> assertThat(((InvalidConfigException) e).name()).isEqualTo("segment.bytes"));
        assertThatThrownBy(() -> LogConfig.defaults().with(Map.of("segment.bytes", "1")))
                .isInstanceOf(InvalidConfigException.class);
        assertThatThrownBy(() -> LogConfig.defaults().with(Map.of("retention.ms", "-2")))
                .isInstanceOf(InvalidConfigException.class);
        assertThatThrownBy(() -> LogConfig.defaults().with(Map.of("min.cleanable.dirty.ratio", "1.5")))
                .isInstanceOf(InvalidConfigException.class);
        assertThatThrownBy(() -> LogConfig.defaults().with(Map.of("cleanup.policy", "forever")))
                .isInstanceOf(InvalidConfigException.class);
        assertThatThrownBy(() -> LogConfig.defaults().with(Map.of("message.timestamp.type", "Now")))
                .isInstanceOf(InvalidConfigException.class);
        assertThatThrownBy(() -> LogConfig.defaults().with(Map.of("compression.type", "brotli")))
                .isInstanceOf(InvalidConfigException.class);
        assertThatThrownBy(() -> LogConfig.defaults().with(Map.of("brook.flush.on.ack", "yes")))
                .isInstanceOf(InvalidConfigException.class);
        assertThatThrownBy(() -> LogConfig.defaults().with(Map.of("flush.messages", "0")))
                .isInstanceOf(InvalidConfigException.class);
    }

    @Test
    void shouldKeepTheAcceptedShapesAndRanges() {
        LogConfig c = LogConfig.defaults().with(Map.of("cleanup.policy", " Compact , DELETE ",
                "brook.flush.on.ack", "FALSE", "segment.bytes", "14", "retention.bytes", "-5",
                "min.cleanable.dirty.ratio", "1"));
        assertThat(c.compact()).isTrue();
        assertThat(c.delete()).isTrue();
        assertThat(c.flushOnAck()).isFalse();
        assertThat(c.segmentBytes()).isEqualTo(14);
        assertThat(c.retentionBytes()).isEqualTo(-5);
        assertThat(c.minCleanableDirtyRatio()).isEqualTo(1.0);
        assertThat(LogConfig.defaults().with(Map.of("cleanup.policy", "compact,")).delete()).isFalse();
        for (Map.Entry<String, String> bad : Map.of("segment.bytes", "3000000000", "min.cleanable.dirty.ratio", "NaN",
                "message.timestamp.type", "createtime", "max.compaction.lag.ms", "0", "min.insync.replicas", "0",
                "preallocate", "1", "cleanup.policy", "compact,,delete").entrySet()) {
            assertThatThrownBy(() -> LogConfig.defaults().with(Map.of(bad.getKey(), bad.getValue())))
                    .as(bad.toString()).isInstanceOf(InvalidConfigException.class)
                    .satisfies(e -> assertThat(((InvalidConfigException) e).name()).isEqualTo(bad.getKey()));
        }
        assertThat(LogConfig.names()).startsWith("segment.bytes", "segment.ms").contains("brook.flush.on.ack");
        assertThat(LogConfig.defaultValue("max.compaction.lag.ms")).isEqualTo(Long.toString(Long.MAX_VALUE));
    }

    @Test
    void shouldHoldRequestedSegmentSizesToKafkasMinimumButOpenSmallerStoredOnes() {
        LogConfig.checkRequested(Map.of("segment.bytes", "1048576", "retention.ms", "1"));
        assertThatThrownBy(() -> LogConfig.checkRequested(Map.of("segment.bytes", "1048575")))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("segment.bytes").hasMessageContaining("at least 1048576");
        assertThatThrownBy(() -> LogConfig.checkRequested(Map.of("segment.bytes", 14)))
                .isInstanceOf(InvalidConfigException.class);
        // the storage layer itself (stored overrides, storage tests) still takes small segments
        assertThat(LogConfig.defaults().with(Map.of("segment.bytes", 300)).segmentBytes()).isEqualTo(300);
    }
}
