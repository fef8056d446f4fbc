package io.brook.coordinator.group;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/**
 * Reads the topic list out of a consumer's JoinGroup protocol metadata (the ConsumerProtocol
 * "subscription", protocol type {@code consumer}). Every version (0-3) starts the same way and is
 * never flexible:
 * <pre>
 *   +---------------+-------------+---------------------------------------------+-----
 *   | int16 version | int32 count | topic: int16 length + UTF-8 bytes ... count | (user data, owned partitions, ...)
 *   +---------------+-------------+---------------------------------------------+-----
 * </pre>
 * Only the topics are needed (OffsetDelete, offset expiry), so the rest is not read.
 */
final class ConsumerSubscription {

    static final String CONSUMER_PROTOCOL_TYPE = "consumer";

    private ConsumerSubscription() {
    }

    /** @return the subscribed topics, or null when the bytes are not a readable subscription */
    static Set<String> topics(byte[] metadata) {
        if (metadata == null) return null;
        ByteBuffer b = ByteBuffer.wrap(metadata);
        if (b.remaining() < 6) return null;
        short version = b.getShort();
        if (version < 0) return null;
        int count = b.getInt();
        if (count < 0 || (long) count * 2 > b.remaining()) return null;
        Set<String> topics = new HashSet<>();
        for (int i = 0; i < count; i++) {
            if (b.remaining() < 2) return null;
            short len = b.getShort();
            if (len < 0 || len > b.remaining()) return null;
            byte[] name = new byte[len];
            b.get(name);
            topics.add(new String(name, StandardCharsets.UTF_8));
        }
        return topics;
    }
}
