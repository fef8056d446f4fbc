package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The server-side assignors of KIP-848 consumer groups, under Kafka's names: {@code uniform} (the
 * default) spreads the partitions evenly over the members and keeps each partition where the
 * previous target had it whenever that stays balanced; {@code range} gives each member a
 * contiguous range of each topic it subscribes to, as the classic range assignor does. Both are
 * deterministic: the same members, subscriptions and topics give the same target.
 */
final class ServerAssignors {

    static final String UNIFORM = "uniform";
    static final String RANGE = "range";
    static final List<String> NAMES = List.of(UNIFORM, RANGE);

    private ServerAssignors() {
    }

    /** One member as an assignor sees it: its id, its instance id (or null), the topic ids it subscribes to. */
    record Subscriber(String memberId, String instanceId, Set<UUID> topics) {
        String sortKey() {
            return instanceId != null ? instanceId : memberId;
        }
    }

    /**
     * The target assignment: member id → topic id → partitions, every member present (possibly
     * with nothing).
     *
     * @param partitions topic id → partition count, for every topic some member subscribes to
     * @param previous   the previous target (stickiness for {@code uniform})
     */
    static Map<String, Map<UUID, Set<Integer>>> assign(String assignor, List<Subscriber> members, Map<UUID, Integer> partitions,
                                                       Map<String, Map<UUID, Set<Integer>>> previous) {
        return RANGE.equals(assignor) ? range(members, partitions) : uniform(members, partitions, previous);
    }

    private static Map<String, Map<UUID, Set<Integer>>> range(List<Subscriber> members, Map<UUID, Integer> partitions) {
        Map<String, Map<UUID, Set<Integer>>> out = emptyTarget(members);
        for (Map.Entry<UUID, Integer> topic : new TreeMap<>(partitions).entrySet()) {
            List<Subscriber> subscribed = new ArrayList<>();
            for (Subscriber s : members) {
                if (s.topics().contains(topic.getKey())) subscribed.add(s);
            }
            if (subscribed.isEmpty()) continue;
            subscribed.sort(Comparator.comparing(Subscriber::sortKey));
            int n = topic.getValue();
            int each = n / subscribed.size();
            int extra = n % subscribed.size();
            int next = 0;
            for (int i = 0; i < subscribed.size(); i++) {
                int count = each + (i < extra ? 1 : 0);
                for (int k = 0; k < count; k++) add(out, subscribed.get(i).memberId(), topic.getKey(), next++);
            }
        }
        return out;
    }

    private static Map<String, Map<UUID, Set<Integer>>> uniform(List<Subscriber> members, Map<UUID, Integer> partitions,
                                                                Map<String, Map<UUID, Set<Integer>>> previous) {
        Map<String, Map<UUID, Set<Integer>>> out = emptyTarget(members);
        if (members.isEmpty()) return out;
        List<Subscriber> sorted = new ArrayList<>(members);
        sorted.sort(Comparator.comparing(Subscriber::memberId));
        Map<String, Integer> counts = new HashMap<>();
        for (Subscriber s : sorted) counts.put(s.memberId(), 0);
        // 1. keep what the previous target gave each member, as long as it still subscribes
        Map<UUID, Map<Integer, String>> holder = new HashMap<>();
        for (Subscriber s : sorted) {
            Map<UUID, Set<Integer>> had = previous.getOrDefault(s.memberId(), Map.of());
            for (Map.Entry<UUID, Set<Integer>> t : had.entrySet()) {
                Integer n = partitions.get(t.getKey());
                if (n == null || !s.topics().contains(t.getKey())) continue;
                for (int p : t.getValue()) {
                    if (p >= n || holder.computeIfAbsent(t.getKey(), k -> new HashMap<>()).putIfAbsent(p, s.memberId()) != null) continue;
                    counts.merge(s.memberId(), 1, Integer::sum);
                }
            }
        }
        // 2. each partition nobody holds goes to the least loaded member that subscribes to its topic
        for (Map.Entry<UUID, Integer> topic : new TreeMap<>(partitions).entrySet()) {
            Map<Integer, String> held = holder.computeIfAbsent(topic.getKey(), k -> new HashMap<>());
            for (int p = 0; p < topic.getValue(); p++) {
                if (held.containsKey(p)) continue;
                String least = leastLoaded(sorted, topic.getKey(), counts);
                if (least == null) break; // nobody subscribes to this topic
                held.put(p, least);
                counts.merge(least, 1, Integer::sum);
            }
        }
        // 3. move partitions from members with two or more than another eligible member, until even
        boolean moved = true;
        for (int round = 0; moved && round < 64; round++) {
            moved = false;
            for (Map.Entry<UUID, Map<Integer, String>> t : new TreeMap<>(holder).entrySet()) {
                for (Map.Entry<Integer, String> p : new TreeMap<>(t.getValue()).entrySet()) {
                    String from = p.getValue();
                    String to = leastLoaded(sorted, t.getKey(), counts);
                    if (to != null && counts.get(from) - counts.get(to) >= 2) {
                        t.getValue().put(p.getKey(), to);
                        counts.merge(from, -1, Integer::sum);
                        counts.merge(to, 1, Integer::sum);
                        moved = true;
                    }
                }
            }
        }
        holder.forEach((topic, held) -> held.forEach((p, member) -> add(out, member, topic, p)));
        return out;
    }

    private static String leastLoaded(List<Subscriber> sorted, UUID topic, Map<String, Integer> counts) {
        String best = null;
        int min = Integer.MAX_VALUE;
        for (Subscriber s : sorted) {
            if (!s.topics().contains(topic)) continue;
            int c = counts.get(s.memberId());
            if (c < min) {
                min = c;
                best = s.memberId();
            }
        }
        return best;
    }

    private static Map<String, Map<UUID, Set<Integer>>> emptyTarget(List<Subscriber> members) {
        Map<String, Map<UUID, Set<Integer>>> out = new HashMap<>();
        for (Subscriber s : members) out.put(s.memberId(), new TreeMap<>());
        return out;
    }

    private static void add(Map<String, Map<UUID, Set<Integer>>> out, String member, UUID topic, int partition) {
        out.get(member).computeIfAbsent(topic, t -> new TreeSet<>()).add(partition);
    }
}
