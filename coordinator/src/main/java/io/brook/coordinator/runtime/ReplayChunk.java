package io.brook.coordinator.runtime;

import java.util.List;
import java.util.Objects;

/**
 * What one {@link CoordinatorLog#read} returned: the records of one partition from the offset asked
 * for, in offset order, and where the next read starts.
 *
 * @param records    the records read (control batches and keyless records left out); may be empty
 *                   even when {@code end} is false, when a read found only records it skips
 * @param nextOffset the offset the next read of the partition starts at
 * @param end        true when the partition has nothing more below its end as of this read
 */
public record ReplayChunk(List<CoordinatorRecord> records, long nextOffset, boolean end) {
    public ReplayChunk {
        Objects.requireNonNull(records, "records");
    }

    /** Nothing (more) to read from {@code offset}. */
    public static ReplayChunk end(long offset) {
        return new ReplayChunk(List.of(), offset, true);
    }
}
