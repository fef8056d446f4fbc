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
    void valueVersionOneHasKafkasFlexibleLayoutWithTheTaggedFieldsOfTransactionsV2() {
        TxnSnapshot s = new TxnSnapshot(42L, (short) 3, (short) -1, 60_000, TxnState.PREPARE_COMMIT, TxnSnapshot.NONE, 5L,
                9L, 41L, 77L, (short) 2).withPartitions(Map.of("ab", Set.of(1, 2)), (short) 2, 100L)
                .prepared(TxnState.PREPARE_COMMIT, (short) 2, 77L, 100L);
        byte[] v = TxnLogRecords.value(s, TxnLogRecords.VALUE_VERSION_FLEXIBLE);
        ByteBuffer b = ByteBuffer.wrap(v);
        assertThat(b.getShort()).isEqualTo((short) 1);
        assertThat(b.getLong()).isEqualTo(42L);
        assertThat(b.getShort()).isEqualTo((short) 4); // bumped by the prepare
        assertThat(b.getInt()).isEqualTo(60_000);
        assertThat(b.get()).isEqualTo((byte) 2); // PrepareCommit
        assertThat(b.get()).isEqualTo((byte) 2); // one topic, compact count + 1
        assertThat(b.get()).isEqualTo((byte) 3); // "ab", compact length + 1
        assertThat(b.get()).isEqualTo((byte) 'a');
        assertThat(b.get()).isEqualTo((byte) 'b');
        assertThat(b.get()).isEqualTo((byte) 3); // two partition ids
        assertThat(b.getInt()).isEqualTo(1);
        assertThat(b.getInt()).isEqualTo(2);
        assertThat(b.get()).isZero(); // no tagged fields in the topic entry
        assertThat(b.getLong()).isEqualTo(100L); // last update
        assertThat(b.getLong()).isEqualTo(100L); // start
        assertThat(b.get()).isEqualTo((byte) 3); // three tagged fields, by tag
        assertThat(b.get()).isZero(); // previous_producer_id
        assertThat(b.get()).isEqualTo((byte) 8);
        assertThat(b.getLong()).isEqualTo(41L);
        assertThat(b.get()).isEqualTo((byte) 1); // next_producer_id
        assertThat(b.get()).isEqualTo((byte) 8);
        assertThat(b.getLong()).isEqualTo(77L);
        assertThat(b.get()).isEqualTo((byte) 2); // client_transaction_version
        assertThat(b.get()).isEqualTo((byte) 2);
        assertThat(b.getShort()).isEqualTo((short) 2);
        assertThat(b.hasRemaining()).isFalse();
        TxnSnapshot back = TxnLogRecords.readValue(v);
        assertThat(back).isEqualTo(new TxnSnapshot(42L, (short) 4, (short) -1, 60_000, TxnState.PREPARE_COMMIT,
                s.partitions(), 100L, 100L, 41L, 77L, (short) 2));
    }

    @Test
    void anEmptyIdHasNullPartitionsAndNoTaggedFieldsAtTheirDefaults() {
        TxnSnapshot s = new TxnSnapshot(1L, (short) 0, (short) -1, 1000, TxnState.EMPTY, TxnSnapshot.NONE, -1L, 7L);
        byte[] v = TxnLogRecords.value(s, TxnLogRecords.VALUE_VERSION_FLEXIBLE);
        assertThat(v).hasSize(2 + 8 + 2 + 4 + 1 + 1 + 8 + 8 + 1);
        assertThat(v[2 + 8 + 2 + 4 + 1]).isZero(); // null array
        assertThat(v[v.length - 1]).isZero(); // no tagged fields
        assertThat(TxnLogRecords.readValue(v)).isEqualTo(s);
        byte[] cut = java.util.Arrays.copyOf(v, v.length - 1);
        assertThatThrownBy(() -> TxnLogRecords.readValue(cut)).isInstanceOf(IllegalArgumentException.class);
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
