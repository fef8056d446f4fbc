package io.brook.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.metadata.BrokerInfo;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class PartitionPlacerTest {

    private static BrokerInfo broker(int id, String rack) {
        return new BrokerInfo(id, new UUID(0, id), 1, List.of(), rack, false);
    }

    @Test
    void spreadsLeadersEvenlyOverTheBrokers() {
        List<BrokerInfo> brokers = List.of(broker(1, null), broker(2, null), broker(3, null));

        List<List<Integer>> placed = PartitionPlacer.place(0, 12, 1, brokers, 0);

        Map<Integer, Integer> leaders = new HashMap<>();
        placed.forEach(r -> leaders.merge(r.get(0), 1, Integer::sum));
        assertThat(leaders).containsOnly(Map.entry(1, 4), Map.entry(2, 4), Map.entry(3, 4));
    }

    @Test
    void putsTheReplicasOfAPartitionOnDistinctRacks() {
        List<BrokerInfo> brokers = List.of(broker(1, "a"), broker(2, "a"), broker(3, "b"), broker(4, "b"),
                broker(5, "c"), broker(6, "c"));
        Map<Integer, String> rackOf = new HashMap<>();
        brokers.forEach(b -> rackOf.put(b.id(), b.rack()));

        List<List<Integer>> placed = PartitionPlacer.place(0, 30, 3, brokers, 7);

        Map<Integer, Integer> leaders = new HashMap<>();
        for (List<Integer> replicas : placed) {
            Set<String> racks = new HashSet<>();
            replicas.forEach(r -> racks.add(rackOf.get(r)));
            assertThat(racks).as("racks of %s", replicas).hasSize(3);
            assertThat(new HashSet<>(replicas)).hasSize(3);
            leaders.merge(replicas.get(0), 1, Integer::sum);
        }
        assertThat(leaders.values()).containsOnly(5);
    }

    @Test
    void consecutiveLeadersSitOnDifferentRacks() {
        List<BrokerInfo> brokers = List.of(broker(1, "a"), broker(2, "a"), broker(3, "b"), broker(4, "b"));

        List<List<Integer>> placed = PartitionPlacer.place(0, 4, 1, brokers, 0);

        assertThat(placed).containsExactly(List.of(1), List.of(3), List.of(2), List.of(4));
    }

    @Test
    void usesEveryBrokerOnceEveryRackHasAReplica() {
        List<BrokerInfo> brokers = List.of(broker(1, "a"), broker(2, "a"), broker(3, "b"));

        for (List<Integer> replicas : PartitionPlacer.place(0, 6, 3, brokers, 0)) {
            assertThat(replicas).containsExactlyInAnyOrder(1, 2, 3);
        }
    }

    @Test
    void refusesAReplicationFactorAboveTheLiveBrokers() {
        assertThatThrownBy(() -> PartitionPlacer.place(0, 1, 3, List.of(broker(1, null), broker(2, null)), 0))
                .isInstanceOf(ControllerException.class)
                .hasMessageContaining("replication factor 3 is larger than the 2 live brokers")
                .extracting(e -> ((ControllerException) e).error()).isEqualTo(ControllerError.INVALID_REPLICATION_FACTOR);
        assertThatThrownBy(() -> PartitionPlacer.place(0, 1, 0, List.of(broker(1, null)), 0))
                .isInstanceOf(ControllerException.class);
    }
}
