package io.brook.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConsumerAssignmentTest {

    /** The layout the Java consumer writes (ConsumerProtocol assignment v0: no user data). */
    private static byte[] assignment(String topic, int... partitions) {
        byte[] name = topic.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(2 + 4 + 2 + name.length + 4 + 4 * partitions.length + 4);
        b.putShort((short) 0).putInt(1).putShort((short) name.length).put(name).putInt(partitions.length);
        for (int p : partitions) {
            b.putInt(p);
        }
        b.putInt(-1); // null user data
        return b.array();
    }

    @Test
    void readsThePartitionsByTopic() {
        assertThat(ConsumerAssignment.partitions(assignment("orders", 0, 2))).isEqualTo(Map.of("orders", List.of(0, 2)));
        assertThat(ConsumerAssignment.partitions(new byte[0])).isEmpty();
    }

    @Test
    void bytesThatAreNotAnAssignmentReadAsNull() {
        byte[] ok = assignment("orders", 0, 1, 2);
        for (int cut = 1; cut < ok.length - 4 - 4; cut++) { // short of the last partition
            assertThat(ConsumerAssignment.partitions(java.util.Arrays.copyOf(ok, cut))).as("cut at %d", cut).isNull();
        }
        assertThat(ConsumerAssignment.partitions(new byte[] {0, 0, -1, -1, -1, -1})).isNull();
    }
}
