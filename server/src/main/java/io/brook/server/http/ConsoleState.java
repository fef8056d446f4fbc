package io.brook.server.http;

import io.brook.coordinator.group.GroupsSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * What the console shows besides metrics, as JSON at {@code /console.json}: each topic's configs
 * that differ from the defaults (those set on the topic, as DescribeConfigs reports them with
 * source TOPIC_CONFIG) and each consumer group's members (member id, client id, host and the
 * partitions their assignment gives them, as DescribeGroups shows them).
 *
 * <pre>
 * {"topics":[{"name":"t","configs":{"retention.ms":"1000"}}],
 *  "groups":[{"group":"g","state":"Stable","members":[{"memberId":"m","clientId":"c","host":"/127.0.0.1",
 *    "assignment":{"t":[0,1]}}]}]}
 * </pre>
 *
 * Internal topics are left out, as the console's topic table leaves them out. The groups come from a
 * snapshot the coordinator takes on its own thread; when it does not come within
 * {@link #WAIT_MS} (or the coordinator is not running) the answer has no groups. Blocks: call it
 * off the event loops. The JSON is written here: the server has no JSON library, and this is a
 * handful of strings, numbers and nesting.
 */
public final class ConsoleState {

    static final long WAIT_MS = 2_000;

    private final Supplier<Map<String, Map<String, String>>> topicConfigs;
    private final Supplier<CompletableFuture<GroupsSnapshot>> groups;

    /**
     * {@code topicConfigs}: every topic's name and the configs set on it; {@code groups}: a
     * snapshot of the group coordinator, taken on its thread.
     */
    public ConsoleState(Supplier<Map<String, Map<String, String>>> topicConfigs,
            Supplier<CompletableFuture<GroupsSnapshot>> groups) {
        this.topicConfigs = topicConfigs;
        this.groups = groups;
    }

    /** The state as JSON (see the class comment). */
    public String json() {
        StringBuilder out = new StringBuilder(1024).append("{\"topics\":[");
        int i = 0;
        for (Map.Entry<String, Map<String, String>> t : new TreeMap<>(topicConfigs.get()).entrySet()) {
            if (t.getKey().startsWith("__")) {
                continue;
            }
            out.append(i++ == 0 ? "{" : ",{").append("\"name\":");
            string(out, t.getKey());
            out.append(",\"configs\":{");
            int n = 0;
            for (Map.Entry<String, String> e : new TreeMap<>(t.getValue()).entrySet()) {
                out.append(n++ == 0 ? "" : ",");
                string(out, e.getKey());
                out.append(':');
                string(out, e.getValue());
            }
            out.append("}}");
        }
        out.append("],\"groups\":[");
        GroupsSnapshot snapshot = snapshot();
        List<GroupsSnapshot.Group> gs = new ArrayList<>(snapshot.groups());
        gs.sort((a, b) -> a.groupId().compareTo(b.groupId()));
        for (int j = 0; j < gs.size(); j++) {
            GroupsSnapshot.Group g = gs.get(j);
            out.append(j == 0 ? "{" : ",{").append("\"group\":");
            string(out, g.groupId());
            out.append(",\"state\":");
            string(out, g.state());
            out.append(",\"members\":[");
            for (int k = 0; k < g.members().size(); k++) {
                GroupsSnapshot.Member m = g.members().get(k);
                out.append(k == 0 ? "{" : ",{").append("\"memberId\":");
                string(out, m.memberId());
                out.append(",\"clientId\":");
                string(out, m.clientId());
                out.append(",\"host\":");
                string(out, m.host());
                out.append(",\"assignment\":{");
                int n = 0;
                for (Map.Entry<String, List<Integer>> e : m.assignment().entrySet()) {
                    out.append(n++ == 0 ? "" : ",");
                    string(out, e.getKey());
                    out.append(":[");
                    for (int p = 0; p < e.getValue().size(); p++) {
                        out.append(p == 0 ? "" : ",").append(e.getValue().get(p).intValue());
                    }
                    out.append(']');
                }
                out.append("}}");
            }
            out.append("]}");
        }
        return out.append("]}").toString();
    }

    private GroupsSnapshot snapshot() {
        try {
            return groups.get().get(WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new GroupsSnapshot(List.of());
        } catch (ExecutionException | TimeoutException e) {
            return new GroupsSnapshot(List.of());
        }
    }

    /** {@code s} as a JSON string (null as null), escaped so that no broker-supplied name can break out. */
    static void string(StringBuilder out, String s) {
        if (s == null) {
            out.append("null");
            return;
        }
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
