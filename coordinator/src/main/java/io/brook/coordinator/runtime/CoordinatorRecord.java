package io.brook.coordinator.runtime;

import java.util.Objects;

/**
 * One record of a coordinator's internal topic; what the bytes mean is the business of the
 * coordinator that wrote them. A null value is a tombstone (the key is deleted once compaction
 * runs).
 *
 * <p>Most records are plain ({@code producerId} -1). A record written inside a transaction (a
 * transactional offset commit) carries its producer id and epoch, and the end of that transaction
 * in the partition is a {@linkplain #isMarker() marker}: Kafka's COMMIT or ABORT control record,
 * with an empty key and no value. The records of one {@link CoordinatorLog#append} are either all
 * plain, or all transactional of one producer, or one marker.
 *
 * @param partition     the partition of the internal topic the record belongs to
 * @param key           never null (empty for a marker); not copied, callers must not mutate it afterwards
 * @param value         null for a tombstone and a marker; not copied
 * @param producerId    the producer of the transaction the record belongs to, or -1
 * @param producerEpoch its epoch, or -1
 * @param marker        COMMIT or ABORT for a marker, null for a record with a key
 */
public record CoordinatorRecord(int partition, byte[] key, byte[] value, long producerId, short producerEpoch,
                                Marker marker) {

    /** The end of a transaction in a partition of the internal topic. */
    public enum Marker { COMMIT, ABORT }

    private static final byte[] NO_KEY = new byte[0];

    public CoordinatorRecord {
        Objects.requireNonNull(key, "key");
        if (partition < 0) throw new IllegalArgumentException("partition < 0");
        if (marker != null && (producerId < 0 || value != null)) {
            throw new IllegalArgumentException("a marker has a producer id and no value");
        }
    }

    /** A plain record. */
    public CoordinatorRecord(int partition, byte[] key, byte[] value) {
        this(partition, key, value, -1L, (short) -1, null);
    }

    /** A record written inside the transaction of {@code producerId}. */
    public static CoordinatorRecord transactional(int partition, long producerId, short producerEpoch, byte[] key,
                                                  byte[] value) {
        if (producerId < 0) throw new IllegalArgumentException("producerId < 0");
        return new CoordinatorRecord(partition, key, value, producerId, producerEpoch, null);
    }

    /** The COMMIT or ABORT marker of the transaction of {@code producerId} in {@code partition}. */
    public static CoordinatorRecord marker(int partition, long producerId, short producerEpoch, boolean commit) {
        return new CoordinatorRecord(partition, NO_KEY, null, producerId, producerEpoch,
                commit ? Marker.COMMIT : Marker.ABORT);
    }

    public boolean isTombstone() {
        return value == null && marker == null;
    }

    /** Whether this is the COMMIT or ABORT of a transaction rather than a keyed record. */
    public boolean isMarker() {
        return marker != null;
    }

    /** Whether the record belongs to a transaction (a marker does too). */
    public boolean isTransactional() {
        return producerId >= 0;
    }
}
