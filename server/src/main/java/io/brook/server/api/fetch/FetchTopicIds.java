package io.brook.server.api.fetch;

import io.brook.server.topic.Topic;
import io.brook.server.topic.TopicIds;
import io.brook.server.topic.Topics;
import io.brook.wire.message.FetchRequest.FetchTopic;
import io.brook.wire.protocol.Errors;
import java.util.List;
import java.util.UUID;

/**
 * Topic ids in Fetch: from v13 (KIP-516) a request names its topics by id only, and the answer
 * names them the same way. The handler resolves the ids to names once, before anything else
 * ({@link #resolveNames}), and from then on reads by name as for older versions; each read
 * checks that the name still belongs to the requested id ({@link #check}), so a topic deleted
 * during a long poll, or under a fetch session, is answered as Kafka answers it.
 *
 * <p>Fetch v14–v18 add nothing else a single node must act on: v14 may answer
 * OFFSET_MOVED_TO_TIERED_STORAGE (never, without tiered storage), v15 replaces the replica id by
 * a replica state (KIP-903) and v17 adds a replica directory id (KIP-853), both from followers
 * (see {@link FetchHandler} for a follower's fetch), v16 adds the node endpoints of KIP-951
 * leader hints, v18 a follower's high watermark (KIP-1166). Consumers send -1 replica ids.
 */
final class FetchTopicIds {

    /** The first Fetch version that names topics by id. */
    static final short FIRST_VERSION = 13;

    private FetchTopicIds() {
    }

    /** Gives each topic entry the name of the topic its id names (a placeholder when none). */
    static void resolveNames(Topics topics, List<FetchTopic> requested) {
        for (FetchTopic t : requested) {
            t.topic(TopicIds.nameOf(topics, t.topicId()));
        }
    }

    /**
     * Whether a partition named by {@code requestedId}, whose id resolved to {@code resolvedName}
     * (when the request arrived, or when the partition joined its session), may be read from
     * {@code byName}, the topic registered under that name now. As Kafka answers: an id that
     * named no topic is UNKNOWN_TOPIC_ID; once resolved, the partition is read by name, so a
     * topic deleted since is UNKNOWN_TOPIC_OR_PARTITION, and one created again under the name
     * since (another id) INCONSISTENT_TOPIC_ID. The Java client answers all three with a
     * metadata refresh, and moves to the new id.
     */
    static Errors check(String resolvedName, Topic byName, UUID requestedId) {
        if (TopicIds.isPlaceholder(resolvedName)) {
            return Errors.UNKNOWN_TOPIC_ID;
        }
        if (byName == null) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        return byName.id().equals(requestedId) ? Errors.NONE : Errors.INCONSISTENT_TOPIC_ID;
    }
}
