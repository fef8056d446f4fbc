package io.brook.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.protocol.Errors;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator epoch a partition keeps per producer (DescribeProducers shows it, and
 * {@code kafka-transactions.sh abort} sends it back): -1 until a marker of the producer is written
 * here, then the marker's; kept by snapshots and rebuilt by replay, and -1 from snapshots of the
 * first format, which did not keep it.
 */
class ProducerCoordinatorEpochTest {
    private static final long PID = 77L;

    @TempDir
    Path tmp;
    LogFixture fx;
    Log log;

    @AfterEach
    void tearDown() throws Exception {
        if (fx != null) {
            fx.close();
        }
    }

    private int coordinatorEpoch() {
        return log.activeProducers().stream().filter(p -> p.producerId() == PID).findFirst().orElseThrow()
                .coordinatorEpoch();
    }

    private void transactionCommittedAtCoordinatorEpoch(int coordinatorEpoch) {
        assertThat(log.append(Batches.producerBatch(PID, (short) 0, 0, 2, 1000, true), 0).error())
                .isEqualTo(Errors.NONE);
        assertThat(coordinatorEpoch()).isEqualTo(-1);
        assertThat(log.appendMarker(Batches.commitMarker(PID, (short) 0, 1000, coordinatorEpoch), 0, false).error())
                .isEqualTo(Errors.NONE);
    }

    @Test
    void shouldTakeTheMarkersCoordinatorEpochAndKeepItThroughACleanRestart() throws Exception {
        fx = new LogFixture(tmp, Map.of());
        log = fx.open();
        transactionCommittedAtCoordinatorEpoch(7);
        assertThat(coordinatorEpoch()).isEqualTo(7);
        log.flush();
        log = fx.reopen();
        assertThat(coordinatorEpoch()).isEqualTo(7);
    }

    @Test
    void shouldTakeTheEpochOfAMarkerInAReadOnlyBuffer() throws Exception {
        // the log cannot set the offsets of a read-only batch in place and writes its header from a copy
        fx = new LogFixture(tmp, Map.of());
        log = fx.open();
        assertThat(log.append(Batches.producerBatch(PID, (short) 0, 0, 2, 1000, true), 0).error()).isEqualTo(Errors.NONE);
        ByteBuffer readOnly = Batches.commitMarker(PID, (short) 0, 1000, 5).asReadOnlyBuffer();
        assertThat(log.appendMarker(readOnly, 0, false).error()).isEqualTo(Errors.NONE);
        assertThat(coordinatorEpoch()).isEqualTo(5);
    }

    @Test
    void shouldRebuildTheCoordinatorEpochFromTheMarkerAfterACrashWithoutSnapshots() throws Exception {
        fx = new LogFixture(tmp, Map.of());
        log = fx.open();
        transactionCommittedAtCoordinatorEpoch(3);
        log.flush();
        log = fx.crashAndReopenAfter(fx::deleteProducerSnapshots, 0);
        assertThat(coordinatorEpoch()).isEqualTo(3);
    }

    @Test
    void shouldLoadAFirstFormatSnapshotWithoutACoordinatorEpoch() throws Exception {
        // version 1: one producer, epoch 4, last timestamp 1000, no open transaction, one batch
        ByteBuffer v1 = ByteBuffer.allocate(2 + 4 + 4 + (8 + 2 + 8 + 8 + 1) + (4 + 4 + 8 + 8 + 8));
        v1.putShort((short) 1).putInt(0).putInt(1);
        v1.putLong(PID).putShort((short) 4).putLong(1000L).putLong(-1L).put((byte) 1);
        v1.putInt(0).putInt(9).putLong(0L).putLong(9L).putLong(1000L);
        CRC32C crc = new CRC32C();
        crc.update(v1.array(), 6, v1.capacity() - 6);
        v1.putInt(2, (int) crc.getValue());
        Files.createDirectories(tmp);
        ProducerStateManager.writeSnapshot(tmp, 10L, v1.array());

        ProducerStateManager state = new ProducerStateManager(tmp);
        assertThat(state.readSnapshot(10L)).isNull();
        assertThat(state.describe()).containsExactly(new ActiveProducer(PID, (short) 4, 9, 1000L, -1, -1L));

        // written again, it is the current format and keeps the epoch a marker sets
        ProducerStateEntry e = state.entry(PID);
        e.coordinatorEpoch = 2;
        ProducerStateManager.writeSnapshot(tmp, 20L, state.snapshot());
        ProducerStateManager reread = new ProducerStateManager(tmp);
        assertThat(reread.readSnapshot(20L)).isNull();
        assertThat(reread.describe()).containsExactly(new ActiveProducer(PID, (short) 4, 9, 1000L, 2, -1L));
    }
}
