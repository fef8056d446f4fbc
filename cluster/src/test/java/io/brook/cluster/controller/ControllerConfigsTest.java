package io.brook.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cluster.metadata.ConfigResource;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataRecord.Configs;
import io.brook.testkit.MutableClock;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** A topic's config change is one decision: one batch holding one {@code Configs} record. */
class ControllerConfigsTest {

    private final ImageLog log = new ImageLog();
    private final Controller controller = new Controller(new MutableClock(0), Controller.DEFAULT_SESSION_TIMEOUT_MS,
            log, () -> new UUID(7, 1));

    private Map<String, String> configs(String topic) {
        return log.read(image -> new TreeMap<>(image.configs(new ConfigResource(MetadataRecord.RESOURCE_TOPIC, topic))));
    }

    @Test
    void replacingATopicsConfigsWritesEveryChangedKeyInOneRecord() {
        long epoch = controller.registerBroker(1, new UUID(1, 1), List.of(), null).join();
        controller.heartbeat(1, epoch).join();
        controller.createTopic("t", 1, 1, Map.of("retention.ms", "1000", "segment.bytes", "4096")).join();
        int before = log.batches.size();

        controller.replaceTopicConfigs("t", Map.of("retention.ms", "2000", "segment.bytes", "4096",
                "cleanup.policy", "compact")).join();
        controller.replaceTopicConfigs("t", Map.of("cleanup.policy", "compact")).join();
        controller.replaceTopicConfigs("t", Map.of("cleanup.policy", "compact")).join();

        assertThat(log.batches.subList(before, log.batches.size())).containsExactly(
                List.of(Configs.of(MetadataRecord.RESOURCE_TOPIC, "t",
                        Map.of("retention.ms", "2000", "cleanup.policy", "compact"))),
                List.of(Configs.of(MetadataRecord.RESOURCE_TOPIC, "t", nulls("retention.ms", "segment.bytes"))));
        assertThat(configs("t")).containsExactlyEntriesOf(Map.of("cleanup.policy", "compact"));
    }

    @Test
    void twoChangesComputedFromTheSameBaseDoNotUndoEachOther() {
        long epoch = controller.registerBroker(1, new UUID(1, 1), List.of(), null).join();
        controller.heartbeat(1, epoch).join();
        controller.createTopic("t", 1, 1, Map.of("retention.ms", "1000")).join();
        // two nodes read the same overrides and each adds a key of its own
        Map<String, String> base = configs("t");
        Map<String, String> first = new TreeMap<>(base);
        first.put("segment.bytes", "4096");
        Map<String, String> second = new TreeMap<>(base);
        second.put("cleanup.policy", "compact");

        controller.replaceTopicConfigs("t", base, first).join();
        try {
            controller.replaceTopicConfigs("t", base, second).join();
            throw new AssertionError("a change computed from a stale base was applied: " + configs("t"));
        } catch (CompletionException e) {
            assertThat(((ControllerException) e.getCause()).error()).isEqualTo(ControllerError.INVALID_UPDATE_VERSION);
        }
        assertThat(configs("t")).containsExactlyInAnyOrderEntriesOf(Map.of("retention.ms", "1000", "segment.bytes", "4096"));

        // computed again from the newer base, it applies and keeps the first change
        Map<String, String> again = new TreeMap<>(configs("t"));
        again.put("cleanup.policy", "compact");
        controller.replaceTopicConfigs("t", configs("t"), again).join();
        assertThat(configs("t")).containsExactlyInAnyOrderEntriesOf(
                Map.of("retention.ms", "1000", "segment.bytes", "4096", "cleanup.policy", "compact"));
    }

    @Test
    void anUnknownTopicIsRefused() {
        try {
            controller.replaceTopicConfigs("missing", Map.of("retention.ms", "1")).join();
        } catch (CompletionException e) {
            assertThat(((ControllerException) e.getCause()).error()).isEqualTo(ControllerError.UNKNOWN_TOPIC_OR_PARTITION);
            return;
        }
        throw new AssertionError("expected a refusal");
    }

    private static Map<String, String> nulls(String... keys) {
        Map<String, String> m = new TreeMap<>();
        for (String k : keys) {
            m.put(k, null);
        }
        return m;
    }
}
