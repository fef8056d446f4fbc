package io.brook.storage;

/**
 * Told of every group-commit round that made data durable: how long it took (the forces of the
 * active segment's data, of the indexes of segments rolled since the last round and, for a new
 * log, of its directory entry) and how many offsets it made durable at once (the round's batch).
 * Called on the flusher thread right after the round; return quickly, never
 * block and never allocate per call (it runs once per force, which is the hot path of acks=all).
 */
@FunctionalInterface
public interface FlushObserver {

    /** Observes nothing. */
    FlushObserver NONE = (nanos, offsets) -> { };

    void forced(long nanos, long offsets);
}
