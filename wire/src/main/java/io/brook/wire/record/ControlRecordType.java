package io.brook.wire.record;

/**
 * The {@code type} in the key of a control record ({@code version int16, type int16}). Only
 * ABORT and COMMIT (transaction markers) appear in data partitions; the others are written by a
 * KRaft quorum into its own log and are listed so that such batches can be recognised.
 */
public enum ControlRecordType {
    ABORT(0),
    COMMIT(1),
    LEADER_CHANGE(2),
    SNAPSHOT_HEADER(3),
    SNAPSHOT_FOOTER(4),
    KRAFT_VERSION(5),
    KRAFT_VOTERS(6);

    private static final ControlRecordType[] BY_ID = values();

    private final short id;

    ControlRecordType(int id) {
        this.id = (short) id;
    }

    public short id() {
        return id;
    }

    /** The type with this id, or {@code null} if the id is unknown. */
    public static ControlRecordType forId(int id) {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }
}
