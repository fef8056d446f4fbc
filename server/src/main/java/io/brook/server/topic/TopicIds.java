package io.brook.server.topic;

import io.brook.wire.protocol.Errors;
import java.util.UUID;

/**
 * Topics named by id (KIP-516), as Fetch v13+, Produce v13+, OffsetCommit v10+ and OffsetFetch
 * v10+ name them: those requests carry no topic names at all.
 *
 * <p>Handlers resolve each id to its topic's name when the request arrives and work by name from
 * there, as they do for older versions. An id that names no topic (the zero id included, which a
 * client sends when it does not know the id yet) resolves to a placeholder name that no topic can
 * have, so that two unknown ids stay two entries; such partitions are answered UNKNOWN_TOPIC_ID,
 * which makes the Java client refresh its metadata. A topic deleted and recreated under the same
 * name has a new id, so a client holding the old one is told UNKNOWN_TOPIC_ID too.
 */
public final class TopicIds {

    /** "No id": what clients send for a topic whose id they do not know. Never a topic's id. */
    public static final UUID ZERO = new UUID(0, 0);

    /** Starts every placeholder name; '<' and ' ' are not allowed in topic names. */
    private static final String PLACEHOLDER_PREFIX = "<unknown topic id ";

    private TopicIds() {
    }

    /** The name of the topic with this id, or a placeholder name no topic can have. */
    public static String nameOf(Topics topics, UUID id) {
        Topic t = id == null ? null : topics.get(id);
        return t != null ? t.name() : PLACEHOLDER_PREFIX + id + ">";
    }

    /** Whether {@code name} came from {@link #nameOf} for an id that names no topic. */
    public static boolean isPlaceholder(String name) {
        return name != null && name.startsWith(PLACEHOLDER_PREFIX);
    }

    /**
     * Whether {@code byName}, the topic now registered under the name that {@code id} resolved
     * to, is still the topic with that id: NONE when it is; UNKNOWN_TOPIC_ID when the id names no
     * topic (any more); INCONSISTENT_TOPIC_ID when the id still exists but the name now belongs to
     * another topic (a read that raced with a delete and a re-create: the log found by name may not
     * be the requested topic's, which is the case Kafka answers with this error).
     */
    public static Errors check(Topics topics, Topic byName, UUID id) {
        if (byName != null && byName.id().equals(id)) {
            return Errors.NONE;
        }
        return id == null || topics.get(id) == null ? Errors.UNKNOWN_TOPIC_ID : Errors.INCONSISTENT_TOPIC_ID;
    }
}
