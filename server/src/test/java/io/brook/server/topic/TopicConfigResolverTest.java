package io.brook.server.topic;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.config.BrokerConfig;
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
}
