package io.brook.coordinator.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The {@code __transaction_state} record layout, byte by byte as Kafka's TransactionLogKey/Value v0. */
class TxnLogRecordsTest {

    @Test
    void keyIsVersionZeroAndTheIdAsAShortString() {
        byte[] k = TxnLogRecords.key("tx");
        assertThat(k).containsExactly(0, 0, 0, 2, 't', 'x');
        assertThat(TxnLogRecords.readKey(k)).isEqualTo("tx");
        assertThat(TxnLogRecords.readKey(new byte[] {0, 1, 0, 0})).isNull();
    }

    @Test
    void valueHasKafkasVersionZeroLayout() {
        TxnSnapshot s = new TxnSnapshot(42L, (short) 3, (short) -1, 60_000, TxnState.EMPTY, TxnSnapshot.NONE, 5L, 9L)
                .withPartitions(Map.of("ab", Set.of(1, 2)), 100L);
        byte[] v = TxnLogRecords.value(s);
        ByteBuffer b = ByteBuffer.wrap(v);
        assertThat(b.getShort()).isZero();
        assertThat(b.getLong()).isEqualTo(42L);
        assertThat(b.getShort()).isEqualTo((short) 3);
        assertThat(b.getInt()).isEqualTo(60_000);
        assertThat(b.get()).isEqualTo((byte) 1); // Ongoing
        assertThat(b.getInt()).isEqualTo(1);
        assertThat(b.getShort()).isEqualTo((short) 2);
        byte[] name = new byte[2];
        b.get(name);
        assertThat(new String(name, StandardCharsets.UTF_8)).isEqualTo("ab");
        assertThat(b.getInt()).isEqualTo(2);
        assertThat(b.getInt()).isEqualTo(1);
        assertThat(b.getInt()).isEqualTo(2);
        assertThat(b.getLong()).isEqualTo(100L); // last update
        assertThat(b.getLong()).isEqualTo(100L); // start
        assertThat(b.hasRemaining()).isFalse();
        TxnSnapshot back = TxnLogRecords.readValue(v);
        assertThat(back.producerId()).isEqualTo(42L);
        assertThat(back.state()).isEqualTo(TxnState.ONGOING);
        assertThat(back.partitions().get("ab")).containsExactly(1, 2);
        assertThat(back.startMs()).isEqualTo(100L);
    }

    @Test
    void truncatedOrHostileValuesAreRejected() {
        byte[] v = TxnLogRecords.value(new TxnSnapshot(1L, (short) 0, (short) -1, 1, TxnState.EMPTY, TxnSnapshot.NONE, -1L, 0L));
        byte[] cut = java.util.Arrays.copyOf(v, v.length - 3);
        assertThatThrownBy(() -> TxnLogRecords.readValue(cut)).isInstanceOf(IllegalArgumentException.class);
        ByteBuffer hostile = ByteBuffer.wrap(v.clone());
        hostile.putInt(2 + 8 + 2 + 4 + 1, Integer.MAX_VALUE);
        assertThatThrownBy(() -> TxnLogRecords.readValue(hostile.array())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void partitioningIsKafkasHashOfTheTransactionalId() {
        TxnCoordinatorConfig c = TxnCoordinatorConfig.defaults();
        assertThat(c.partitions()).isEqualTo(50);
        assertThat(c.partitionFor("my-txn")).isEqualTo(Math.abs("my-txn".hashCode()) % 50);
        assertThat(c.partitionFor("polygenelubricants")).isZero(); // hashCode is Integer.MIN_VALUE
    }
}
