package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The read-back's judgement, on records made up here rather than read from a broker. */
class ReadBackTest {
    private final AckLedger ledger = new AckLedger(2, 2);
    private final Map<Integer, Map<Integer, Long>> state = new HashMap<>();

    private void read(ReadBack check, int partition, long offset, int slot, long seq) {
        check.accept(partition, offset, AckLedger.key(slot, seq), state.computeIfAbsent(partition, p -> new HashMap<>()));
    }

    @Test
    void everyAcknowledgedRecordOnceInPlaceIsOk() {
        ledger.acked(0, 0, 0);
        ledger.acked(0, 2, 1);
        ledger.acked(1, 1, 0);
        ReadBack check = new ReadBack(ledger);
        read(check, 0, 0, 0, 0);
        read(check, 0, 1, 0, 2);
        read(check, 1, 0, 1, 1);
        read(check, 1, 1, 1, 3); // written, never acknowledged: fine
        check.accept(1, 2, null, state.get(1));
        ReadBack.Verification v = check.result();
        assertThat(v.ok()).as(v.summary()).isTrue();
        assertThat(v.records()).isEqualTo(5);
        assertThat(v.foreign()).isEqualTo(1);
    }

    @Test
    void lossDuplicatesMovesAndReorderingAreEachCounted() {
        ledger.acked(0, 0, 0);
        ledger.acked(0, 2, 1);
        ledger.acked(0, 4, 2);
        ledger.acked(0, 6, 3);
        ReadBack check = new ReadBack(ledger);
        read(check, 0, 0, 0, 2); // acknowledged at 1: moved, and before 0:0
        read(check, 0, 1, 0, 0); // acknowledged at 0: moved, and out of order
        read(check, 0, 2, 0, 4);
        read(check, 0, 3, 0, 4); // a duplicate, not where it was acknowledged
        // 0:6 is missing
        ReadBack.Verification v = check.result();
        assertThat(v.ok()).isFalse();
        assertThat(v.missing()).isEqualTo(1);
        assertThat(v.duplicatedAcked()).isEqualTo(1);
        assertThat(v.offsetMismatches()).isEqualTo(3);
        assertThat(v.orderViolations()).isEqualTo(1);
        assertThat(v.examples()).isNotEmpty();
    }

    @Test
    void keysRoundTrip() {
        assertThat(AckLedger.parseKey(AckLedger.key(3, 123456789L))).containsExactly(3, 123456789L);
        assertThat(AckLedger.parseKey("nope".getBytes())).isNull();
    }
}
