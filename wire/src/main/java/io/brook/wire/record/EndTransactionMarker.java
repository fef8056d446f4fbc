package io.brook.wire.record;

import java.nio.ByteBuffer;

/**
 * The content of a control record: its type (from the key, {@code version int16, type int16})
 * and, for COMMIT and ABORT, the transaction coordinator's epoch (from the value,
 * {@code version int16, coordinatorEpoch int32}). Later versions may append fields, so only the
 * minimum sizes are enforced.
 */
public final class EndTransactionMarker {
    private static final int KEY_SIZE = 4;
    private static final int VALUE_SIZE = 6;

    private final ControlRecordType type;
    private final int coordinatorEpoch;

    public EndTransactionMarker(ControlRecordType type, int coordinatorEpoch) {
        this.type = type;
        this.coordinatorEpoch = coordinatorEpoch;
    }

    /**
     * The type in a control record's key, or {@code null} for a type id this version does not know.
     *
     * @throws CorruptRecordException if the key is missing, shorter than 4 bytes or of a negative version
     */
    public static ControlRecordType controlType(Record record) {
        ByteBuffer key = record.key();
        if (key == null || key.remaining() < KEY_SIZE) {
            throw new CorruptRecordException("control record at offset " + record.offset() + ": key of "
                    + (key == null ? "null" : key.remaining() + " bytes") + ", need " + KEY_SIZE);
        }
        short version = key.getShort(key.position());
        if (version < 0) {
            throw new CorruptRecordException("control record at offset " + record.offset() + ": key version " + version);
        }
        return ControlRecordType.forId(key.getShort(key.position() + 2));
    }

    /**
     * Reads a COMMIT or ABORT marker.
     *
     * @throws CorruptRecordException if the record is not a well-formed transaction marker
     */
    public static EndTransactionMarker read(Record record) {
        ControlRecordType type = controlType(record);
        if (type != ControlRecordType.COMMIT && type != ControlRecordType.ABORT) {
            throw new CorruptRecordException("control record at offset " + record.offset() + " of type " + type
                    + " is not a transaction marker");
        }
        ByteBuffer value = record.value();
        if (value == null || value.remaining() < VALUE_SIZE) {
            throw new CorruptRecordException("transaction marker at offset " + record.offset() + ": value of "
                    + (value == null ? "null" : value.remaining() + " bytes") + ", need " + VALUE_SIZE);
        }
        short version = value.getShort(value.position());
        if (version < 0) {
            throw new CorruptRecordException("transaction marker at offset " + record.offset() + ": value version "
                    + version);
        }
        return new EndTransactionMarker(type, value.getInt(value.position() + 2));
    }

    public ControlRecordType type() {
        return type;
    }

    public int coordinatorEpoch() {
        return coordinatorEpoch;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EndTransactionMarker other && other.type == type && other.coordinatorEpoch == coordinatorEpoch;
    }

    @Override
    public int hashCode() {
        return type.hashCode() * 31 + coordinatorEpoch;
    }

    @Override
    public String toString() {
        return "EndTransactionMarker(" + type + ", coordinatorEpoch=" + coordinatorEpoch + ")";
    }
}
