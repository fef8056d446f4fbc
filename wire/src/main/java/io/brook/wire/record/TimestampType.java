package io.brook.wire.record;

/** Attribute bit 3 of a batch: who set the timestamps. */
public enum TimestampType {
    /** Record timestamps were set by the producer. */
    CREATE_TIME,
    /**
     * The broker set the time when it appended the batch; it is stored as the batch's
     * maxTimestamp and applies to every record of the batch.
     */
    LOG_APPEND_TIME
}
