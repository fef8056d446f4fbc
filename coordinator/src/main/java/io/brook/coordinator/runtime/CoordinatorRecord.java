package io.brook.coordinator.runtime;

import java.util.Objects;

/**
 * One key/value record of a coordinator's internal topic; what the bytes mean is the business of
 * the coordinator that wrote them. A null value is a tombstone (the key is deleted once
 * compaction runs).
 *
 * @param partition the partition of the internal topic the record belongs to
 * @param key       never null; not copied, callers must not mutate it afterwards
 * @param value     null for a tombstone; not copied
 */
public record CoordinatorRecord(int partition, byte[] key, byte[] value) {
    public CoordinatorRecord {
        Objects.requireNonNull(key, "key");
        if (partition < 0) throw new IllegalArgumentException("partition < 0");
    }

    public boolean isTombstone() {
        return value == null;
    }
}
