package io.brook.server.api.group;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.topic.Topic;
import io.brook.server.topic.TopicIds;
import io.brook.server.topic.Topics;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.message.OffsetFetchResponse.OffsetFetchResponseGroup;
import io.brook.wire.message.OffsetFetchResponse.OffsetFetchResponsePartitions;
import io.brook.wire.message.OffsetFetchResponse.OffsetFetchResponseTopics;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * OffsetFetch (key 9): a group's committed offsets. Handed to the group coordinator; see {@link
 * GroupRequests}.
 *
 * <p>From v10 topics are named by id only (KIP-516). Ids are resolved to names before the
 * coordinator sees the request (offsets are kept by name); partitions of an id that names no
 * topic are answered UNKNOWN_TOPIC_ID, and the answer names each topic by id. When a group's
 * offsets are asked for all topics, offsets of topics that no longer exist are left out: there is
 * no id to name them by (Kafka leaves them out too).
 */
public final class OffsetFetchHandler implements ApiHandler<OffsetFetchRequest> {

    /** The first OffsetFetch version that names topics by id. */
    static final short TOPIC_IDS_MIN_VERSION = 10;

    private final BrokerContext broker;

    public OffsetFetchHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, OffsetFetchRequest request) {
        if (ctx.apiVersion() < TOPIC_IDS_MIN_VERSION) {
            ctx.respondWhenDone(GroupRequests.coordinator(broker).fetchOffsets(request, ctx.apiVersion()));
            return;
        }
        Topics topics = broker.topics();
        Map<String, UUID> unknownIds = new HashMap<>();
        for (OffsetFetchRequest.OffsetFetchRequestGroup g : request.groups()) {
            if (g.topics() == null) {
                continue;
            }
            for (OffsetFetchRequest.OffsetFetchRequestTopics t : g.topics()) {
                t.name(TopicIds.nameOf(topics, t.topicId()));
                if (TopicIds.isPlaceholder(t.name())) {
                    unknownIds.put(t.name(), t.topicId());
                }
            }
        }
        ctx.respondWhenDone(GroupRequests.coordinator(broker).fetchOffsets(request, ctx.apiVersion())
                .thenApply(r -> withIds(r, topics, unknownIds)));
    }

    private static OffsetFetchResponse withIds(OffsetFetchResponse response, Topics topics,
            Map<String, UUID> unknownIds) {
        for (OffsetFetchResponseGroup g : response.groups()) {
            List<OffsetFetchResponseTopics> named = new ArrayList<>(g.topics().size());
            for (OffsetFetchResponseTopics t : g.topics()) {
                UUID unknown = unknownIds.get(t.name());
                if (unknown != null) {
                    for (OffsetFetchResponsePartitions p : t.partitions()) {
                        p.committedOffset(-1).committedLeaderEpoch(-1).metadata("")
                                .errorCode(Errors.UNKNOWN_TOPIC_ID.code());
                    }
                    named.add(t.topicId(unknown));
                    continue;
                }
                Topic topic = topics.get(t.name());
                if (topic != null) {
                    named.add(t.topicId(topic.id()));
                }
            }
            g.topics(named);
        }
        return response;
    }
}
