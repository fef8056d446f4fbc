package io.brook.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.MutableClock;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code brook.max.producer.ids.per.partition} reaches every log the manager creates or reopens. */
@Timeout(60)
class ProducerIdBoundTest {
    @TempDir
    Path tmp;

    private LogManager open(int max) throws Exception {
        return LogManager.open(new LogManagerOptions(tmp).clock(new MutableClock(1_700_000_000_000L))
                .backgroundThreads(false).maxProducerIdsPerPartition(max));
    }

    @Test
    void shouldBoundTheProducersOfCreatedAndReopenedLogs() throws Exception {
        try (LogManager m = open(7)) {
            assertThat(m.getOrCreateLog("t", 0, LogConfig.defaults()).producers.maxProducers()).isEqualTo(7);
        }
        try (LogManager m = open(9)) {
            assertThat(m.getLog("t", 0).producers.maxProducers()).isEqualTo(9);
        }
        assertThat(ProducerStateManager.DEFAULT_MAX_PRODUCERS).isEqualTo(100_000);
    }
}
