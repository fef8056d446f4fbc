package io.brook.coordinator.txn;

import java.util.EnumSet;
import java.util.Set;

/**
 * The states of a transactional id, with Kafka's ids (the {@code TransactionStatus} byte of the
 * transaction log) and names (what DescribeTransactions and ListTransactions show).
 *
 * <pre>
 *   Empty ──add partitions──▶ Ongoing ──EndTxn(commit)──▶ PrepareCommit ──markers──▶ CompleteCommit
 *     ▲                        │  │                                                     │
 *     │                        │  └──EndTxn(abort), time-out──▶ PrepareAbort ──markers──▶ CompleteAbort
 *     │                        └──InitProducerId, time-out──▶ PrepareEpochFence ──▶ PrepareAbort
 *     └────────────── InitProducerId (from Empty or a Complete state) ◀────────────────────┘
 *   Empty, CompleteCommit, CompleteAbort ──transactional.id.expiration.ms──▶ Dead (tombstone)
 * </pre>
 *
 * <p>PrepareEpochFence is never written to the log: it marks, in memory, a transaction whose epoch
 * was bumped to fence its producer and whose abort (written as PrepareAbort) is in flight.
 */
public enum TxnState {
    EMPTY(0, "Empty"),
    ONGOING(1, "Ongoing"),
    PREPARE_COMMIT(2, "PrepareCommit"),
    PREPARE_ABORT(3, "PrepareAbort"),
    COMPLETE_COMMIT(4, "CompleteCommit"),
    COMPLETE_ABORT(5, "CompleteAbort"),
    DEAD(6, "Dead"),
    PREPARE_EPOCH_FENCE(7, "PrepareEpochFence");

    private final byte id;
    private final String label;

    TxnState(int id, String label) {
        this.id = (byte) id;
        this.label = label;
    }

    /** The {@code TransactionStatus} byte of Kafka's transaction log value. */
    public byte id() {
        return id;
    }

    /** Kafka's name of the state. */
    public String label() {
        return label;
    }

    /** The state with this log id. */
    public static TxnState fromId(byte id) {
        for (TxnState s : values()) {
            if (s.id == id) return s;
        }
        throw new IllegalArgumentException("unknown transaction state " + id);
    }

    /** The state with this name, matched without regard to case, or null. */
    public static TxnState fromLabel(String label) {
        for (TxnState s : values()) {
            if (s.label.equalsIgnoreCase(label)) return s;
        }
        return null;
    }

    /** The states a transaction may come from into this one (Kafka's valid previous states). */
    Set<TxnState> validPrevious() {
        return switch (this) {
            case EMPTY -> EnumSet.of(EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case ONGOING -> EnumSet.of(ONGOING, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case PREPARE_COMMIT -> EnumSet.of(ONGOING);
            case PREPARE_ABORT -> EnumSet.of(ONGOING, PREPARE_EPOCH_FENCE);
            case COMPLETE_COMMIT -> EnumSet.of(PREPARE_COMMIT);
            case COMPLETE_ABORT -> EnumSet.of(PREPARE_ABORT);
            case DEAD -> EnumSet.of(EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case PREPARE_EPOCH_FENCE -> EnumSet.of(ONGOING);
        };
    }

    /** Whether a transaction may move from {@code from} to this state. */
    public boolean canFollow(TxnState from) {
        return validPrevious().contains(from);
    }

    /** Whether the transaction in this state is finished (no open partitions). */
    boolean isComplete() {
        return this == EMPTY || this == COMPLETE_COMMIT || this == COMPLETE_ABORT;
    }
}
