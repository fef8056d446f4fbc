package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.protocol.Errors;

/**
 * OffsetFetch between the wire and {@link GroupOffsets}: the topics a request asks for, and the
 * answer in the shape of its version (v0-7 one group with topics at the top, v8+ a list of
 * groups), including the error answer of a request that cannot be served. Stateless.
 */
final class OffsetFetchResponses {

    private OffsetFetchResponses() {
    }

    /** The topics and partitions a v0-7 request asks for; null for all of the group's. */
    static Map<String, List<Integer>> topics(OffsetFetchRequest request) {
        if (request.topics() == null) return null;
        Map<String, List<Integer>> topics = new LinkedHashMap<>();
        for (OffsetFetchRequest.OffsetFetchRequestTopic t : request.topics()) {
            topics.computeIfAbsent(t.name(), n -> new ArrayList<>()).addAll(t.partitionIndexes());
        }
        return topics;
    }

    /** The topics and partitions one group of a v8+ request asks for; null for all of the group's. */
    static Map<String, List<Integer>> topics(OffsetFetchRequest.OffsetFetchRequestGroup group) {
        if (group.topics() == null) return null;
        Map<String, List<Integer>> topics = new LinkedHashMap<>();
        for (OffsetFetchRequest.OffsetFetchRequestTopics t : group.topics()) {
            topics.computeIfAbsent(t.name(), n -> new ArrayList<>()).addAll(t.partitionIndexes());
        }
        return topics;
    }

    /** The v0-7 answer. */
    static OffsetFetchResponse single(FetchResult r) {
        Map<String, OffsetFetchResponse.OffsetFetchResponseTopic> out = new LinkedHashMap<>();
        for (FetchedPartition p : r.partitions()) {
            out.computeIfAbsent(p.topic(), n -> new OffsetFetchResponse.OffsetFetchResponseTopic().name(n))
                    .partitions().add(new OffsetFetchResponse.OffsetFetchResponsePartition()
                            .partitionIndex(p.partition()).committedOffset(p.offset())
                            .committedLeaderEpoch(p.leaderEpoch()).metadata(p.metadata()).errorCode(p.error().code()));
        }
        return new OffsetFetchResponse().topics(new ArrayList<>(out.values())).errorCode(r.error().code());
    }

    /** One group of the v8+ answer. */
    static OffsetFetchResponse.OffsetFetchResponseGroup group(String groupId, FetchResult r) {
        Map<String, OffsetFetchResponse.OffsetFetchResponseTopics> out = new LinkedHashMap<>();
        for (FetchedPartition p : r.partitions()) {
            out.computeIfAbsent(p.topic(), n -> new OffsetFetchResponse.OffsetFetchResponseTopics().name(n))
                    .partitions().add(new OffsetFetchResponse.OffsetFetchResponsePartitions()
                            .partitionIndex(p.partition()).committedOffset(p.offset())
                            .committedLeaderEpoch(p.leaderEpoch()).metadata(p.metadata()).errorCode(p.error().code()));
        }
        return new OffsetFetchResponse.OffsetFetchResponseGroup().groupId(groupId)
                .topics(new ArrayList<>(out.values())).errorCode(r.error().code());
    }

    /** One group of the v8+ answer that carries only {@code error}. */
    static OffsetFetchResponse.OffsetFetchResponseGroup group(String groupId, Errors error) {
        return new OffsetFetchResponse.OffsetFetchResponseGroup().groupId(groupId).errorCode(error.code());
    }

    /** The answer to a request that cannot be served, with {@code e} where its version has room for it. */
    static OffsetFetchResponse error(OffsetFetchRequest request, short version, Errors e) {
        if (version < 2) {
            // no error of its own before v2: each partition asked for carries it (as Kafka's error response)
            List<OffsetFetchResponse.OffsetFetchResponseTopic> topics = new ArrayList<>();
            for (OffsetFetchRequest.OffsetFetchRequestTopic t : request.topics()) {
                OffsetFetchResponse.OffsetFetchResponseTopic topic = new OffsetFetchResponse.OffsetFetchResponseTopic().name(t.name());
                for (int p : t.partitionIndexes()) {
                    topic.partitions().add(new OffsetFetchResponse.OffsetFetchResponsePartition().partitionIndex(p)
                            .committedOffset(-1).committedLeaderEpoch(-1).metadata("").errorCode(e.code()));
                }
                topics.add(topic);
            }
            return new OffsetFetchResponse().topics(topics).errorCode(e.code());
        }
        if (version < 8) return new OffsetFetchResponse().errorCode(e.code());
        List<OffsetFetchResponse.OffsetFetchResponseGroup> groups = new ArrayList<>();
        for (OffsetFetchRequest.OffsetFetchRequestGroup g : request.groups()) groups.add(group(g.groupId(), e));
        return new OffsetFetchResponse().groups(groups);
    }
}
