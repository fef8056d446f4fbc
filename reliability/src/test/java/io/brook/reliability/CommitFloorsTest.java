package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class CommitFloorsTest {
    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);

    @Test
    void aCommittedOffsetBelowTheFloorOrMissingIsARegression() {
        CommitFloors floors = new CommitFloors();
        floors.raise("g", P0, 10);
        floors.raise("g", P0, 5); // a floor only rises
        floors.raise("g", P1, 3);
        var before = floors.snapshot();

        assertThat(CommitFloors.regressions(before, Map.of("g", Map.of(P0, new OffsetAndMetadata(10),
                P1, new OffsetAndMetadata(4))))).isEmpty();
        assertThat(CommitFloors.regressions(before, Map.of("g", Map.of(P0, new OffsetAndMetadata(9)))))
                .containsExactlyInAnyOrder("g t-0: committed 10 before, 9 after", "g t-1: committed 3 before, -1 after");
    }
}
