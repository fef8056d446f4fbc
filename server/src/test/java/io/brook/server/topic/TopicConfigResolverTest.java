package io.brook.server.topic;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.config.BrokerConfig;
import io.brook.server.config.DynamicBrokerConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicConfigResolverTest {

    private static Map<String, TopicConfigResolver.Described> byName(List<TopicConfigResolver.Described> list) {
        Map<String, TopicConfigResolver.Described> m = new HashMap<>();
        for (TopicConfigResolver.Described d : list) {
            m.put(d.name(), d);
        }
        return m;
    }

    @Test
    void shouldTakeDefaultsFromBrokerKeysAndReportTheSource() {
        TopicConfigResolver configs = new TopicConfigResolver(BrokerConfig.parse(Map.of(
                "log.retention.hours", "1", "log.cleaner.delete.retention.ms", "1000", "message.max.bytes", "5000")));
        Map<String, TopicConfigResolver.Described> d = byName(configs.describe(Map.of("retention.ms", "5")));
        assertThat(d.get("retention.ms").value()).isEqualTo("5");
        assertThat(d.get("retention.ms").source()).isEqualTo(TopicConfigResolver.SOURCE_TOPIC);
        assertThat(d.get("retention.ms").brokerSynonym()).isEqualTo("log.retention.hours");
        assertThat(d.get("retention.ms").brokerValue()).isEqualTo("3600000");
        assertThat(d.get("delete.retention.ms").value()).isEqualTo("1000");
        assertThat(d.get("delete.retention.ms").source()).isEqualTo(TopicConfigResolver.SOURCE_STATIC_BROKER);
        assertThat(d.get("max.message.bytes").value()).isEqualTo("5000");
        assertThat(d.get("segment.bytes").source()).isEqualTo(TopicConfigResolver.SOURCE_DEFAULT);
        assertThat(configs.effective(Map.of()).retentionMs()).isEqualTo(3_600_000L);
        assertThat(configs.effective(Map.of()).maxMessageBytes()).isEqualTo(5000);
    }

    @Test
    void shouldExplainInvalidOverrides() {
        TopicConfigResolver configs = new TopicConfigResolver(BrokerConfig.defaults());
        assertThat(configs.invalid(Map.of("retention.ms", "soon"))).contains("retention.ms");
        assertThat(configs.invalid(Map.of("no.such.config", "1"))).contains("no.such.config");
        assertThat(configs.invalid(Map.of("cleanup.policy", "compact,delete"))).isNull();
    }

    @Test
    void shouldMapFsyncOnAckToTheStorageSetting() {
        TopicConfigResolver configs = new TopicConfigResolver(BrokerConfig.parse(Map.of("brook.fsync.on.ack", "false")));
        assertThat(configs.effective(Map.of()).flushOnAck()).isFalse();
        assertThat(new TopicConfigResolver(BrokerConfig.defaults()).effective(Map.of()).flushOnAck()).isTrue();
    }

    @Test
    void shouldTakeTheNewerTopicConfigsDefaultsFromKafkasBrokerKeys() {
        TopicConfigResolver configs = new TopicConfigResolver(BrokerConfig.parse(Map.of(
                "compression.zstd.level", "7", "log.local.retention.ms", "60000", "max.decompressed.message.bytes",
                "1000000")));
        Map<String, TopicConfigResolver.Described> d = byName(configs.describe(Map.of("compression.lz4.level", "3")));
        assertThat(d.get("compression.zstd.level").value()).isEqualTo("7");
        assertThat(d.get("compression.zstd.level").source()).isEqualTo(TopicConfigResolver.SOURCE_STATIC_BROKER);
        assertThat(d.get("compression.zstd.level").brokerSynonym()).isEqualTo("compression.zstd.level");
        assertThat(d.get("local.retention.ms").value()).isEqualTo("60000");
        assertThat(d.get("local.retention.ms").brokerSynonym()).isEqualTo("log.local.retention.ms");
        assertThat(d.get("local.retention.bytes").brokerSynonym()).isEqualTo("log.local.retention.bytes");
        assertThat(d.get("remote.copy.lag.ms").brokerSynonym()).isEqualTo("log.remote.copy.lag.ms");
        assertThat(d.get("remote.copy.lag.bytes").brokerSynonym()).isEqualTo("log.remote.copy.lag.bytes");
        assertThat(d.get("compression.lz4.level").source()).isEqualTo(TopicConfigResolver.SOURCE_TOPIC);
        assertThat(d.get("compression.gzip.level").source()).isEqualTo(TopicConfigResolver.SOURCE_DEFAULT);
        assertThat(d.get("remote.storage.enable").brokerSynonym()).isNull();
        assertThat(configs.effective(Map.of()).zstdLevel()).isEqualTo(7);
        assertThat(configs.effective(Map.of()).maxDecompressedMessageBytes()).isEqualTo(1_000_000);
        assertThat(TopicConfigResolver.type("compression.zstd.level")).isEqualTo(TopicConfigResolver.TYPE_INT);
        assertThat(TopicConfigResolver.type("remote.storage.enable")).isEqualTo(TopicConfigResolver.TYPE_BOOLEAN);
        assertThat(TopicConfigResolver.type("local.retention.bytes")).isEqualTo(TopicConfigResolver.TYPE_LONG);
        assertThat(TopicConfigResolver.type("cleanup.policy")).isEqualTo(TopicConfigResolver.TYPE_LIST);
    }

    @Test
    void shouldRefuseTieredStorageAfterCheckingEveryValue() {
        TopicConfigResolver configs = new TopicConfigResolver(BrokerConfig.defaults());
        assertThat(configs.invalid(Map.of("remote.storage.enable", "true"))).isEqualTo(
                "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.");
        assertThat(configs.invalid(Map.of("remote.storage.enable", "true", "compression.zstd.level", "99")))
                .contains("compression.zstd.level");
        assertThat(configs.invalid(Map.of("remote.storage.enable", "false", "local.retention.ms", "1000",
                "retention.ms", "10"))).isNull();
        assertThat(configs.invalid(Map.of("compression.gzip.level", "0"))).contains("compression.gzip.level");
        assertThat(configs.invalidDynamic(Map.of("compression.lz4.level", "18"))).contains("compression.lz4.level");
        assertThat(configs.invalidDynamic(Map.of("compression.lz4.level", "12"))).isNull();
    }

    @Test
    void shouldTakeTheCleanerJitterPreallocateAndUncleanDefaultsFromKafkasBrokerKeys() throws Exception {
        // a Kafka server.properties that tunes compaction broker-wide: the topics follow it
        DynamicBrokerConfig dynamic = DynamicBrokerConfig.none();
        TopicConfigResolver configs = new TopicConfigResolver(BrokerConfig.parse(Map.of(
                "log.cleaner.min.cleanable.ratio", "0.1", "log.cleaner.max.compaction.lag.ms", "60000",
                "log.roll.jitter.hours", "2", "log.preallocate", "true", "unclean.leader.election.enable", "true")),
                dynamic);
        assertThat(BrokerConfig.parse(Map.of("log.cleaner.min.cleanable.ratio", "0.1")).unknownKeys()).isEmpty();
        Map<String, TopicConfigResolver.Described> d = byName(configs.describe(Map.of()));
        assertThat(d.get("min.cleanable.dirty.ratio").value()).isEqualTo("0.1");
        assertThat(d.get("min.cleanable.dirty.ratio").source()).isEqualTo(TopicConfigResolver.SOURCE_STATIC_BROKER);
        assertThat(d.get("max.compaction.lag.ms").value()).isEqualTo("60000");
        assertThat(d.get("segment.jitter.ms").value()).isEqualTo("7200000");
        assertThat(d.get("segment.jitter.ms").brokerSynonym()).isEqualTo("log.roll.jitter.hours");
        assertThat(d.get("preallocate").value()).isEqualTo("true");
        assertThat(d.get("unclean.leader.election.enable").value()).isEqualTo("true");
        assertThat(configs.effective(Map.of()).minCleanableDirtyRatio()).isEqualTo(0.1);
        assertThat(configs.effective(Map.of()).maxCompactionLagMs()).isEqualTo(60_000L);
        assertThat(configs.effective(Map.of()).segmentJitterMs()).isEqualTo(7_200_000L);

        // and at run time, as Kafka's dynamic broker configs
        Map<String, String> changed = Map.of("log.cleaner.min.cleanable.ratio", "0.3", "log.roll.jitter.ms", "5000");
        assertThat(configs.invalidDynamic(changed)).isNull();
        dynamic.replace(false, changed, configs::reconfigure);
        assertThat(configs.effective(Map.of()).minCleanableDirtyRatio()).isEqualTo(0.3);
        assertThat(configs.effective(Map.of()).segmentJitterMs()).isEqualTo(5000L);
        assertThat(DynamicBrokerConfig.invalid("log.cleaner.min.cleanable.ratio", "1.5")).contains("between");
    }
}
