package io.brook.server.topic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DistinctPartitionsTest {

    record Part(int index, String value) {
    }

    record TopicEntry(String name, List<Part> parts) {
    }

    private static List<TopicEntry> distinct(List<TopicEntry> topics) {
        return DistinctPartitions.lastOfEach(topics, TopicEntry::name, TopicEntry::parts, Part::index,
                (t, parts) -> new TopicEntry(t.name(), parts));
    }

    @Test
    void shouldReturnTheSameListWhenNoPartitionRepeats() {
        List<TopicEntry> small = List.of(new TopicEntry("a", List.of(new Part(0, "x"), new Part(1, "y"))),
                new TopicEntry("b", List.of(new Part(0, "z"))));
        assertThat(distinct(small)).isSameAs(small);
        List<Part> many = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            many.add(new Part(i, "v" + i));
        }
        List<TopicEntry> large = List.of(new TopicEntry("a", many), new TopicEntry("b", many));
        assertThat(distinct(large)).isSameAs(large);
    }

    @Test
    void shouldKeepTheLastEntryOfEachPartitionInFirstSeenOrder() {
        List<TopicEntry> topics = List.of(
                new TopicEntry("a", List.of(new Part(1, "a1"), new Part(0, "a0"), new Part(1, "a1-again"))),
                new TopicEntry("b", List.of(new Part(0, "b0"))),
                new TopicEntry("a", List.of(new Part(0, "a0-last"), new Part(2, "a2"))));
        assertThat(distinct(topics)).containsExactly(
                new TopicEntry("a", List.of(new Part(1, "a1-again"), new Part(0, "a0-last"), new Part(2, "a2"))),
                new TopicEntry("b", List.of(new Part(0, "b0"))));
    }

    @Test
    void shouldFindARepeatAmongManyPartitions() {
        List<Part> many = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            many.add(new Part(i % 50_000, "v" + i));
        }
        List<TopicEntry> out = distinct(List.of(new TopicEntry("a", many)));
        assertThat(out).hasSize(1);
        assertThat(out.get(0).parts()).hasSize(50_000);
        assertThat(out.get(0).parts().get(7)).isEqualTo(new Part(7, "v50007"));
    }
}
