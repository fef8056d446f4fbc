package io.brook.server.node;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.txn.TxnMarkers;
import io.brook.server.topic.TopicNames;
import io.brook.server.topic.Topics;
import io.brook.storage.AppendResult;
import io.brook.storage.Log;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.ControlRecordType;
import io.brook.wire.record.RecordBatchBuilder;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the markers that end a transaction into this node's partitions (what Kafka's
 * WriteTxnMarkers does between brokers): a COMMIT or ABORT control batch (transactional, the
 * producer's id and epoch, coordinator epoch 0) appended to each data partition, which closes the
 * producer's open transaction there, moves the last stable offset and, for an abort, records the
 * aborted range in the transaction index; for {@code __consumer_offsets} partitions, the same
 * marker written by the group coordinator, which thereby commits or drops the producer's
 * transactional offsets (a partition still loading fails the write, which is then retried).
 *
 * <p>The returned future completes once every marker is durable (as an {@code acks=all} produce).
 * A partition whose topic was deleted counts as done; a marker the log refuses because the
 * producer moved to a newer epoch in that partition counts as done too (that newer epoch's own
 * marker ends what is open there). Any other refusal fails the future, and the coordinator writes
 * the markers again; a second marker for a partition where the transaction is already closed is
 * harmless (it closes nothing and aborts no range).
 *
 * <p>Threading: called from the transaction coordinator's thread or a request handler; appends
 * take the log's own lock; completions arrive on the flusher thread.
 */
public final class PartitionMarkers implements TxnMarkers {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionMarkers.class);

    /**
     * The epoch in the markers of Brook's own transaction coordinator. Kafka's is the leader epoch
     * of the coordinator's {@code __transaction_state} partition, 0 on a cluster that has not
     * moved it; Brook's coordinator does not move it, so its markers carry 0.
     */
    public static final int COORDINATOR_EPOCH = 0;

    private final Topics topics;
    private final GroupCoordinator groups;
    private final Clock clock;

    public PartitionMarkers(Topics topics, GroupCoordinator groups, Clock clock) {
        this.topics = topics;
        this.groups = groups;
        this.clock = clock;
    }

    @Override
    public CompletableFuture<Void> write(long producerId, short producerEpoch, boolean commit, boolean transactionsV2,
            Map<String, SortedSet<Integer>> partitions) {
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        for (Map.Entry<String, SortedSet<Integer>> t : partitions.entrySet()) {
            if (TopicNames.CONSUMER_OFFSETS.equals(t.getKey())) {
                if (groups != null) {
                    waits.add(groups.completeTransaction(producerId, producerEpoch, commit, t.getValue()));
                }
                continue;
            }
            for (int p : t.getValue()) {
                Errors e = writeOne(t.getKey(), p, producerId, producerEpoch, commit, transactionsV2,
                        COORDINATOR_EPOCH, waits);
                if (e == Errors.INVALID_PRODUCER_EPOCH) {
                    LOG.warn("{}-{}: marker of producer {} epoch {} is older than the partition's epoch: skipped",
                            t.getKey(), p, producerId, producerEpoch);
                    continue;
                }
                if (e != Errors.NONE) {
                    return CompletableFuture.failedFuture(new IllegalStateException("marker for " + t.getKey() + "-" + p
                            + " refused: " + e));
                }
            }
        }
        return CompletableFuture.allOf(waits.toArray(new CompletableFuture<?>[0]));
    }

    /**
     * Appends one marker to one data partition; adds its durability to {@code waits}.
     * {@code transactionsV2}: the marker ends a transactions-V2 transaction, so its epoch must be
     * above the epoch of the producer's transaction open there ({@link Log#appendMarker}).
     * {@code coordinatorEpoch} goes into the marker, and DescribeProducers shows it afterwards.
     *
     * @return NONE when written (or nothing to write), else the log's refusal: INVALID_PRODUCER_EPOCH
     *         for an epoch older than the producer's in that partition, as Kafka answers it
     */
    public Errors writeOne(String topic, int partition, long producerId, short producerEpoch, boolean commit,
            boolean transactionsV2, int coordinatorEpoch, List<CompletableFuture<Void>> waits) {
        Log log = topics.log(topic, partition);
        if (log == null) {
            return Errors.NONE; // the topic is gone: nothing left to close
        }
        ByteBuffer marker = RecordBatchBuilder.endTransactionMarker(0L, 0, producerId, producerEpoch,
                commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT, coordinatorEpoch, clock.millis());
        AppendResult r = log.appendMarker(marker, 0, transactionsV2);
        if (r.error() != Errors.NONE) {
            return r.error();
        }
        waits.add(log.whenDurable(r.lastOffset() + 1));
        return Errors.NONE;
    }
}
