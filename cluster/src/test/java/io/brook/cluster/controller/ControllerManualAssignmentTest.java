package io.brook.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.metadata.PartitionInfo;
import io.brook.cluster.metadata.TopicInfo;
import io.brook.testkit.MutableClock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A topic created with Kafka's manual assignment ({@code kafka-topics.sh --replica-assignment}):
 * each partition on the brokers named, the first live one leading, with Kafka's refusals of an
 * empty list, an unregistered broker, a broker named twice and a partition on fenced brokers only;
 * and partitions added to a topic the same way ({@code kafka-topics.sh --alter --partitions N
 * --replica-assignment ...}).
 */
class ControllerManualAssignmentTest {

    private final ImageLog log = new ImageLog();
    private final Controller controller = new Controller(new MutableClock(0), Controller.DEFAULT_SESSION_TIMEOUT_MS,
            log, () -> new UUID(7, 1));

    @BeforeEach
    void brokers() {
        for (int id = 1; id <= 3; id++) {
            long epoch = controller.registerBroker(id, new UUID(1, id), List.of(), null).join();
            controller.heartbeat(id, epoch).join();
        }
        controller.registerBroker(4, new UUID(1, 4), List.of(), null).join(); // registered, still fenced
    }

    private TopicInfo topic(String name) {
        return log.read(image -> image.topics().get(image.topicId(name)));
    }

    @Test
    void eachPartitionGoesWhereTheAssignmentSays() {
        controller.createTopic("t", List.of(List.of(2), List.of(3), List.of(1), List.of(4, 2)),
                Map.of("retention.ms", "1000")).join();
        TopicInfo t = topic("t");
        assertThat(t.partitions()).hasSize(4);
        assertThat(t.partitions().values()).extracting(PartitionInfo::replicas)
                .containsExactly(List.of(2), List.of(3), List.of(1), List.of(4, 2));
        assertThat(t.partitions().values()).extracting(PartitionInfo::leader).containsExactly(2, 3, 1, 2);
        assertThat(t.partitions().get(3).isr()).containsExactly(2);
    }

    @Test
    void kafkasRefusalsOfABadAssignment() {
        assertRefused(List.of(List.of(1), List.of()), "The manual partition assignment includes an empty replica list.");
        assertRefused(List.of(List.of(9)),
                "The manual partition assignment includes broker 9, but no such broker is registered.");
        assertRefused(List.of(List.of(1, 1)), "The manual partition assignment includes a broker more than once: [1, 1]");
        assertRefused(List.of(List.of(1), List.of(4)), "All brokers specified in the manual partition assignment for"
                + " partition 1 are fenced or in controlled shutdown.");
        UUID none = log.read(image -> image.topicId("t"));
        assertThat(none).isNull();
    }

    @Test
    void newPartitionsGoWhereTheAssignmentSaysWithTheSameChecks() {
        controller.createTopic("t", 1, 1, Map.of()).join();
        controller.createPartitions("t", 3, List.of(List.of(3), List.of(1))).join();
        assertThat(topic("t").partitions().values()).extracting(PartitionInfo::leader).last().isEqualTo(1);
        assertThat(topic("t").partitions().get(1).replicas()).containsExactly(3);

        assertThatThrownBy(() -> controller.createPartitions("t", 4, List.of(List.of(4))).join())
                .cause().isInstanceOf(ControllerException.class).hasMessage("All brokers specified in the manual"
                        + " partition assignment for partition 3 are fenced or in controlled shutdown.");
        assertThatThrownBy(() -> controller.createPartitions("t", 5, List.of(List.of(1))).join())
                .cause().isInstanceOf(ControllerException.class)
                .hasMessage("Increasing the number of partitions by 2 but 1 assignments provided.");
        assertThat(topic("t").partitions()).hasSize(3);
    }

    private void assertRefused(List<List<Integer>> assignment, String message) {
        assertThatThrownBy(() -> controller.createTopic("t", assignment, Map.of()).join())
                .isInstanceOf(CompletionException.class).cause().isInstanceOf(ControllerException.class)
                .hasMessage(message)
                .satisfies(e -> assertThat(((ControllerException) e).error())
                        .isEqualTo(ControllerError.INVALID_REPLICA_ASSIGNMENT));
    }
}
