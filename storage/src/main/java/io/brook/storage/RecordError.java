package io.brook.storage;

/**
 * One record of a refused batch and why it was refused: Produce's {@code record_errors} entry
 * (KIP-467), which tells a client which of its records were at fault, so that it can fail those
 * and retry the rest.
 *
 * @param batchIndex the record's position in its batch, from 0
 * @param message    why, or null: then the client shows the partition's error message instead
 */
public record RecordError(int batchIndex, String message) {
    /** As Kafka prints a record error in its partition-level message. */
    @Override
    public String toString() {
        return "RecordError(batchIndex=" + batchIndex + ", message=" + (message == null ? "null" : "'" + message + "'")
                + ")";
    }
}
