package io.brook.server.api;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The order in which Kafka lists a topic's configs in DescribeConfigs. Kafka builds the list from
 * a Scala hash map of every topic config, so its order is fixed by the set of names a Kafka
 * version defines; this is Kafka 4.4's (a describe of a new topic, all keys), and a describe of a
 * few keys lists them in the same relative order. Clients that compare the lists (kafkajs's and
 * platformatic's own tests do) see Kafka's lists from Brook; Brook's own keys come last.
 */
final class TopicConfigOrder {

    private static final List<String> KAFKA_4_4 = List.of("compression.type", "errors.deadletterqueue.group.enable",
            "remote.copy.lag.bytes", "remote.log.delete.on.disable", "leader.replication.throttled.replicas",
            "remote.storage.enable", "min.insync.replicas", "segment.jitter.ms", "remote.log.copy.disable",
            "local.retention.ms", "cleanup.policy", "flush.ms", "follower.replication.throttled.replicas",
            "compression.lz4.level", "segment.bytes", "retention.ms", "compression.gzip.level", "remote.copy.lag.ms",
            "flush.messages", "compression.zstd.level", "max.compaction.lag.ms", "file.delete.delay.ms",
            "max.message.bytes", "min.compaction.lag.ms", "message.timestamp.type", "local.retention.bytes",
            "preallocate", "index.interval.bytes", "min.cleanable.dirty.ratio", "unclean.leader.election.enable",
            "retention.bytes", "delete.retention.ms", "message.timestamp.after.max.ms", "max.decompressed.message.bytes",
            "message.timestamp.before.max.ms", "segment.ms", "segment.index.bytes");

    private static final Map<String, Integer> RANK = new HashMap<>();

    static {
        for (int i = 0; i < KAFKA_4_4.size(); i++) {
            RANK.put(KAFKA_4_4.get(i), i);
        }
    }

    /** Kafka's order for the names it knows, then the others in the order they came (a stable sort). */
    static <T> Comparator<T> comparing(Function<T, String> name) {
        return Comparator.comparingInt(t -> RANK.getOrDefault(name.apply(t), KAFKA_4_4.size()));
    }

    private TopicConfigOrder() {
    }
}
