package io.brook.storage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Switching a topic's fsync-on-ack ({@code brook.flush.on.ack}) off and on again. */
class FlushOnAckSwitchTest {
    @TempDir
    Path tmp;

    @Test
    void shouldNeverMoveTheHighWatermarkBackwardsWhenFsyncOnAckIsSwitchedBackOn() throws Exception {
        try (LogFixture fx = new LogFixture(tmp, Map.of(LogConfig.FLUSH_ON_ACK, false))) {
            Log log = fx.open(); // no flusher: nothing becomes durable until log.flush()
            for (int i = 0; i < 3; i++) {
                log.append(Batches.batch(i, 2, "k" + i), 0);
            }
            long seen = log.highWatermark();
            assertThat(seen).isEqualTo(6);
            assertThat(log.read(4, 1 << 20, true).records()).isNotNull();

            log.updateConfig(log.config().with(Map.of(LogConfig.FLUSH_ON_ACK, true)));
            assertThat(log.highWatermark()).isEqualTo(seen);
            assertThat(Batches.readAll(log, 0)).hasSize(6);

            // New appends wait for their fsync before readers see them.
            log.append(Batches.batch(9, 2, "new"), 0);
            assertThat(log.highWatermark()).isEqualTo(seen);
            log.flush();
            assertThat(log.highWatermark()).isEqualTo(8);

            // And off and on once more.
            log.updateConfig(log.config().with(Map.of(LogConfig.FLUSH_ON_ACK, false)));
            log.append(Batches.batch(10, 2, "more"), 0);
            assertThat(log.highWatermark()).isEqualTo(10);
            log.updateConfig(log.config().with(Map.of(LogConfig.FLUSH_ON_ACK, true)));
            assertThat(log.highWatermark()).isEqualTo(10);
        }
    }
}
