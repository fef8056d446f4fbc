package io.brook.storage;

/**
 * Told when a log's high watermark moves up, so that waiting fetches can be completed by the
 * event rather than by polling. Called on the flusher thread (fsync on ack) or on the appending
 * thread (fsync on ack off), outside the log's locks: return quickly and never block.
 */
@FunctionalInterface
public interface HighWatermarkListener {
    void highWatermarkAdvanced(Log log, long highWatermark);
}
