package io.brook.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.MutableClock;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The nodes' data directory ids (KIP-853) as the controller records them. */
class ControllerDirectoryTest {

    private final ImageLog log = new ImageLog();
    private final Controller controller = new Controller(new MutableClock(1_000_000),
            Controller.DEFAULT_SESSION_TIMEOUT_MS, log, () -> new UUID(7, 1));

    private Map<Integer, UUID> directories() {
        return log.read(image -> Map.copyOf(image.directories()));
    }

    @Test
    void recordsANodesDirectoryIdOnceAndAChangedOneAgain() {
        controller.recordDirectory(4, new UUID(1, 2)).join();
        long after = log.lastAppliedIndex();

        controller.recordDirectory(4, new UUID(1, 2)).join();
        assertThat(log.lastAppliedIndex()).as("nothing written for the same id").isEqualTo(after);

        controller.recordDirectory(4, new UUID(3, 4)).join();
        assertThat(directories()).containsExactlyEntriesOf(Map.of(4, new UUID(3, 4)));
    }

    @Test
    void refusesTheZeroId() {
        assertThatThrownBy(() -> controller.recordDirectory(4, new UUID(0, 0)).join())
                .hasCauseInstanceOf(ControllerException.class);
        assertThat(directories()).isEmpty();
    }
}
