package io.brook.server.topic;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.config.BrokerConfig;
import io.brook.server.config.DynamicBrokerConfig;
import io.brook.server.topic.ConfigSynonyms.Synonym;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * DescribeConfigs' synonyms as Kafka lists them: each broker key where it is set, in its own
 * units, highest precedence first, from the first entry of the config's main key on.
 */
class ConfigSynonymsTest {

    private static final byte DYNAMIC_BROKER = DynamicBrokerConfig.SOURCE_DYNAMIC_BROKER;
    private static final byte DYNAMIC_DEFAULT = DynamicBrokerConfig.SOURCE_DYNAMIC_DEFAULT_BROKER;
    private static final byte STATIC = TopicConfigResolver.SOURCE_STATIC_BROKER;
    private static final byte DEFAULT = TopicConfigResolver.SOURCE_DEFAULT;
    private static final byte TOPIC = TopicConfigResolver.SOURCE_TOPIC;

    @Test
    void aConfigWhoseMainBrokerKeyIsSetNowhereListsNoBrokerKey() {
        ConfigSynonyms s = new ConfigSynonyms(BrokerConfig.parse(Map.of("log.retention.hours", "1")),
                DynamicBrokerConfig.none());
        // log.retention.ms is unset and has no default: not log.retention.hours in milliseconds
        assertThat(s.ofTopicConfig("retention.ms", null)).isEmpty();
        assertThat(s.ofTopicConfig("segment.ms", null)).isEmpty();
        assertThat(s.ofTopicConfig("retention.ms", "1000")).containsExactly(new Synonym("retention.ms", "1000", TOPIC));
    }

    @Test
    void eachPlaceAKeyIsSetIsListedInItsOwnUnits() throws Exception {
        DynamicBrokerConfig dynamic = DynamicBrokerConfig.none();
        dynamic.replace(false, Map.of("log.retention.ms", "7000"), m -> { });
        dynamic.replace(true, Map.of("log.retention.minutes", "30"), m -> { });
        ConfigSynonyms s = new ConfigSynonyms(BrokerConfig.parse(Map.of("log.retention.ms", "5000",
                "log.cleanup.policy", "compact,delete")), dynamic);
        assertThat(s.ofTopicConfig("retention.ms", null)).containsExactly(
                new Synonym("log.retention.ms", "7000", DYNAMIC_BROKER),
                new Synonym("log.retention.minutes", "30", DYNAMIC_DEFAULT),
                new Synonym("log.retention.ms", "5000", STATIC),
                new Synonym("log.retention.hours", "168", DEFAULT));
        assertThat(s.ofTopicConfig("cleanup.policy", null)).containsExactly(
                new Synonym("log.cleanup.policy", "compact,delete", STATIC),
                new Synonym("log.cleanup.policy", "delete", DEFAULT));
        // from its own first entry on: the static log.retention.ms below it stays in the list
        assertThat(s.ofBrokerKey("log.retention.minutes")).containsExactly(
                new Synonym("log.retention.minutes", "30", DYNAMIC_DEFAULT),
                new Synonym("log.retention.ms", "5000", STATIC),
                new Synonym("log.retention.hours", "168", DEFAULT));
    }

    @Test
    void aTopicConfigNamesItsBrokerKeyWithItsDefault() {
        ConfigSynonyms s = new ConfigSynonyms(BrokerConfig.defaults(), DynamicBrokerConfig.none());
        assertThat(s.ofTopicConfig("max.compaction.lag.ms", null))
                .containsExactly(new Synonym("log.cleaner.max.compaction.lag.ms", "9223372036854775807", DEFAULT));
        assertThat(s.ofTopicConfig("min.cleanable.dirty.ratio", null))
                .containsExactly(new Synonym("log.cleaner.min.cleanable.ratio", "0.5", DEFAULT));
        // as segment.ms: log.roll.jitter.ms is set nowhere, so not log.roll.jitter.hours either
        assertThat(s.ofTopicConfig("segment.jitter.ms", null)).isEmpty();
        // no broker key at all: only the topic's own override
        assertThat(s.ofTopicConfig("remote.storage.enable", null)).isEmpty();
        assertThat(s.ofBrokerKey("message.max.bytes")).extracting(Synonym::name, Synonym::source)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("message.max.bytes", DEFAULT));
    }
}
