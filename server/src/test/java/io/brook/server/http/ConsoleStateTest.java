package io.brook.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.group.GroupsSnapshot;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ConsoleStateTest {

    @Test
    void writesTopicConfigsAndGroupMembersAsJson() {
        GroupsSnapshot groups = new GroupsSnapshot(List.of(new GroupsSnapshot.Group("g", "Stable", List.of(),
                List.of(new GroupsSnapshot.Member("m-1", "client", "/127.0.0.1", Map.of("orders", List.of(0, 2)))))));
        ConsoleState state = new ConsoleState(
                () -> Map.of("orders", Map.of("retention.ms", "1000"), "__consumer_offsets", Map.of(), "plain", Map.of()),
                () -> CompletableFuture.completedFuture(groups));
        assertThat(state.json()).isEqualTo("{\"topics\":[{\"name\":\"orders\",\"configs\":{\"retention.ms\":\"1000\"}},"
                + "{\"name\":\"plain\",\"configs\":{}}],\"groups\":[{\"group\":\"g\",\"state\":\"Stable\",\"members\":["
                + "{\"memberId\":\"m-1\",\"clientId\":\"client\",\"host\":\"/127.0.0.1\",\"assignment\":{\"orders\":[0,2]}}]}]}");
    }

    @Test
    void namesFromClientsCannotBreakOutOfTheirStrings() {
        StringBuilder out = new StringBuilder();
        ConsoleState.string(out, "a\"b\\c\n</script>\u0001");
        assertThat(out).hasToString("\"a\\\"b\\\\c\\n\\u003c/script\\u003e\\u0001\"");
    }

    @Test
    void withoutTheCoordinatorThereAreNoGroups() {
        ConsoleState state = new ConsoleState(Map::of,
                () -> CompletableFuture.failedFuture(new IllegalStateException("the group coordinator is not running")));
        assertThat(state.json()).isEqualTo("{\"topics\":[],\"groups\":[]}");
    }
}
