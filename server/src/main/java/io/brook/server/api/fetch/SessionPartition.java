package io.brook.server.api.fetch;

import io.brook.server.topic.TopicPartition;
import io.brook.wire.message.FetchRequest.FetchPartition;
import io.brook.wire.message.FetchResponse.PartitionData;
import io.brook.wire.protocol.Errors;
import java.util.UUID;

/**
 * One partition of a fetch: what the client asked for (offset, byte limit, leader epoch) and,
 * once it belongs to a {@link FetchSession}, what the client was last told about it (high
 * watermark, log start offset), so that an incremental answer can leave it out while nothing of
 * that changed and no records arrived.
 *
 * <p>A full fetch builds one per requested partition; when it creates a session those same
 * objects become the session's, so creating a session copies nothing. Guarded by the session's
 * monitor once in a session; confined to its request before.
 */
final class SessionPartition {

    /** "Never told": a partition added to a session is answered at least once. */
    static final long UNKNOWN = -1;

    /** The key of a partition in a session: by topic id for sessions of v13+, by name before. */
    record Key(Object topic, int partition) {
    }

    final String topic;
    final UUID topicId;
    final int partition;
    /** The partition's key in its long-poll waiters: created once, not per request. */
    final TopicPartition topicPartition;
    long fetchOffset;
    int partitionMaxBytes;
    int currentLeaderEpoch;
    long sentHighWatermark = UNKNOWN;
    long sentLogStartOffset = UNKNOWN;

    SessionPartition(String topic, UUID topicId, FetchPartition requested) {
        this.topic = topic;
        this.topicId = topicId;
        this.partition = requested.partition();
        this.topicPartition = new TopicPartition(topic, partition);
        update(requested);
    }

    static Key key(boolean byId, String topic, UUID topicId, int partition) {
        return new Key(byId ? topicId : topic, partition);
    }

    Key key(boolean byId) {
        return key(byId, topic, topicId, partition);
    }

    /** The client's parameters of a later request that names this partition again. */
    void update(FetchPartition requested) {
        fetchOffset = requested.fetchOffset();
        partitionMaxBytes = requested.partitionMaxBytes();
        currentLeaderEpoch = requested.currentLeaderEpoch();
    }

    /**
     * Whether an incremental answer must carry this partition: it has records, an error, or a
     * high watermark or log start offset other than the client was last told. Changes nothing.
     */
    boolean mustAnswer(int recordBytes, Errors error, long highWatermark, long logStartOffset) {
        return recordBytes > 0 || error != Errors.NONE || highWatermark != sentHighWatermark
                || logStartOffset != sentLogStartOffset;
    }

    /**
     * Remembers what an answer told the client. After an error the high watermark is forgotten,
     * so that the partition is answered again once the error is gone.
     */
    void answered(PartitionData sent) {
        sentHighWatermark = sent.errorCode() != Errors.NONE.code() ? UNKNOWN : sent.highWatermark();
        sentLogStartOffset = sent.logStartOffset();
    }
}
