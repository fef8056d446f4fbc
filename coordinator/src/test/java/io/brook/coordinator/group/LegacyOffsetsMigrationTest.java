package io.brook.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.InMemoryCoordinatorLog;
import io.brook.testkit.MutableClock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@code __consumer_offsets} written by an earlier Brook (its own record layout) loads, and is
 * moved to Kafka's layout at start-up: what is in force is written again under Kafka's keys and
 * the old keys get tombstones, so that compaction leaves only Kafka's records and a later start
 * has nothing left to move.
 */
@Timeout(10)
class LegacyOffsetsMigrationTest {

    @Test
    void loadsBrooksEarlierLayoutAndMovesItToKafkas() {
        InMemoryCoordinatorLog log = new InMemoryCoordinatorLog();
        CoordinatorRecords.MemberValue member = new CoordinatorRecords.MemberValue("m-1", null, "client", "/10.0.0.1",
                30_000, 10_000, List.of(new Protocol("range", GroupHarness.subscription("t"))), new byte[] {1, 2, 3});
        log.append(0, List.of(
                legacyOffset("g", "t", 0, 5),
                legacyOffset("g", "t", 1, 6),
                new CoordinatorRecord(0, LegacyCoordinatorRecords.offsetKey("g", "t", 1), null),
                new CoordinatorRecord(0, LegacyCoordinatorRecords.groupKey("g2"), LegacyCoordinatorRecords.groupValue(
                        new CoordinatorRecords.GroupValue("consumer", 3, "range", "m-1", 77L, List.of(member)))),
                legacyOffset("g2", "t", 0, 9))).join();

        GroupHarness h = new GroupHarness(GroupHarness.config(), log, new MutableClock(1_000_000));
        h.run(); // the migration's write, queued on the coordinator's thread
        assertThat(h.coordinator.replaySkipped()).isZero();
        assertThat(h.committed("g", "t", 0)).isEqualTo(5);
        assertThat(h.committed("g", "t", 1)).isEqualTo(-1);
        assertThat(h.committed("g2", "t", 0)).isEqualTo(9);
        assertThat(h.group("g2").generation).isEqualTo(3);
        assertThat(h.group("g2").members).containsKey("m-1");

        List<CoordinatorRecord> all = records(log);
        List<CoordinatorRecord> written = all.subList(5, all.size());
        // per live old key: Kafka's record, then the old key's tombstone
        assertThat(written).hasSize(6);
        assertThat(CoordinatorRecords.readKey(written.get(0).key())).isEqualTo(new CoordinatorRecords.OffsetKey("g", "t", 0));
        assertThat(CoordinatorRecords.readOffsetValue(written.get(0).value()).offset()).isEqualTo(5);
        assertThat(written.get(1).key()).isEqualTo(LegacyCoordinatorRecords.offsetKey("g", "t", 0));
        assertThat(written.get(1).isTombstone()).isTrue();

        // compaction keeps the last record of each key and drops tombstones: only Kafka's layout is left
        InMemoryCoordinatorLog compacted = new InMemoryCoordinatorLog();
        compacted.append(0, compact(all)).join();
        for (CoordinatorRecord r : records(compacted)) {
            assertThat(CoordinatorRecords.readKey(r.key())).isNotInstanceOf(CoordinatorRecords.Legacy.class);
        }
        h.coordinator.close();
        GroupHarness after = new GroupHarness(GroupHarness.config(), compacted, new MutableClock(1_000_000));
        after.run();
        assertThat(after.committed("g", "t", 0)).isEqualTo(5);
        assertThat(after.committed("g2", "t", 0)).isEqualTo(9);
        assertThat(after.group("g2").generation).isEqualTo(3);
        assertThat(records(compacted)).hasSize(compacted.size()).hasSize(3); // nothing more to move
    }

    /**
     * A restart before compaction replays the old records, the moved ones and the tombstones that
     * retired the old keys: the tombstones must not delete what now lives under Kafka's keys.
     */
    @Test
    void keepsWhatWasMovedWhenTheLogIsReadAgainBeforeCompaction() {
        InMemoryCoordinatorLog log = new InMemoryCoordinatorLog();
        CoordinatorRecords.MemberValue member = new CoordinatorRecords.MemberValue("m-1", null, "client", "/10.0.0.1",
                30_000, 10_000, List.of(new Protocol("range", GroupHarness.subscription("t"))), new byte[] {1, 2, 3});
        log.append(0, List.of(
                legacyOffset("g", "t", 0, 5),
                legacyOffset("g", "t", 0, 7),
                legacyOffset("g", "t", 1, 6),
                new CoordinatorRecord(0, LegacyCoordinatorRecords.offsetKey("g", "t", 1), null),
                new CoordinatorRecord(0, LegacyCoordinatorRecords.groupKey("g2"), LegacyCoordinatorRecords.groupValue(
                        new CoordinatorRecords.GroupValue("consumer", 3, "range", "m-1", 77L, List.of(member)))))).join();
        GroupHarness first = new GroupHarness(GroupHarness.config(), log, new MutableClock(1_000_000));
        first.run();
        first.coordinator.close();
        int written = records(log).size();

        GroupHarness again = new GroupHarness(GroupHarness.config(), log, new MutableClock(1_000_000));
        again.run();
        assertThat(again.committed("g", "t", 0)).isEqualTo(7);
        assertThat(again.committed("g", "t", 1)).isEqualTo(-1);
        assertThat(again.group("g2").generation).isEqualTo(3);
        assertThat(records(log)).hasSize(written); // nothing left to move
    }

    private static CoordinatorRecord legacyOffset(String group, String topic, int partition, long offset) {
        return new CoordinatorRecord(0, LegacyCoordinatorRecords.offsetKey(group, topic, partition),
                LegacyCoordinatorRecords.offsetValue(new CoordinatorRecords.OffsetValue(offset, -1, "", 1000L)));
    }

    private static List<CoordinatorRecord> records(InMemoryCoordinatorLog log) {
        List<CoordinatorRecord> out = new ArrayList<>();
        for (int p = 0; p < GroupHarness.config().offsetsTopicPartitions(); p++) {
            log.replay(p, 1 << 20, out::add);
        }
        return out;
    }

    private static List<CoordinatorRecord> compact(List<CoordinatorRecord> all) {
        Map<String, CoordinatorRecord> last = new LinkedHashMap<>();
        for (CoordinatorRecord r : all) {
            String k = Arrays.toString(r.key());
            last.remove(k);
            last.put(k, r);
        }
        List<CoordinatorRecord> out = new ArrayList<>();
        for (CoordinatorRecord r : last.values()) {
            if (!r.isTombstone()) {
                out.add(r);
            }
        }
        return out;
    }
}
