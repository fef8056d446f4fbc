package io.brook.server.api.group;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.topic.TopicIds;
import io.brook.server.topic.Topics;
import io.brook.wire.message.OffsetCommitRequest;
import io.brook.wire.message.OffsetCommitRequest.OffsetCommitRequestPartition;
import io.brook.wire.message.OffsetCommitRequest.OffsetCommitRequestTopic;
import io.brook.wire.message.OffsetCommitResponse;
import io.brook.wire.message.OffsetCommitResponse.OffsetCommitResponsePartition;
import io.brook.wire.message.OffsetCommitResponse.OffsetCommitResponseTopic;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * OffsetCommit (key 8): partitions of unknown topics, or beyond a topic's partition count, get
 * UNKNOWN_TOPIC_OR_PARTITION here; the rest go to the group coordinator (which validates group,
 * member and generation) and both parts are merged into one answer.
 *
 * <p>From v10 topics are named by id only (KIP-516): ids are resolved to names first ({@link
 * TopicIds}), partitions of an id that names no topic get UNKNOWN_TOPIC_ID, and the answer names
 * each topic by the id it was asked with. Offsets are kept by topic name, as Kafka keeps them.
 */
public final class OffsetCommitHandler implements ApiHandler<OffsetCommitRequest> {

    /** The first OffsetCommit version that names topics by id. */
    static final short TOPIC_IDS_MIN_VERSION = 10;

    private final BrokerContext broker;

    public OffsetCommitHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, OffsetCommitRequest request) {
        Topics topics = broker.topics();
        boolean byId = ctx.apiVersion() >= TOPIC_IDS_MIN_VERSION;
        Map<String, UUID> ids = byId ? new HashMap<>() : null;
        if (byId) {
            for (OffsetCommitRequestTopic t : request.topics()) {
                t.name(TopicIds.nameOf(topics, t.topicId()));
                ids.put(t.name(), t.topicId());
            }
        }
        Map<String, List<OffsetCommitResponsePartition>> unknown = new LinkedHashMap<>();
        List<OffsetCommitRequestTopic> known = new ArrayList<>(request.topics().size());
        for (OffsetCommitRequestTopic t : request.topics()) {
            List<OffsetCommitRequestPartition> keep = new ArrayList<>(t.partitions().size());
            for (OffsetCommitRequestPartition p : t.partitions()) {
                if (GroupRequests.hosts(topics, t.name(), p.partitionIndex())) {
                    keep.add(p);
                } else {
                    Errors error = byId && TopicIds.isPlaceholder(t.name()) ? Errors.UNKNOWN_TOPIC_ID
                            : Errors.UNKNOWN_TOPIC_OR_PARTITION;
                    unknown.computeIfAbsent(t.name(), n -> new ArrayList<>()).add(new OffsetCommitResponsePartition()
                            .partitionIndex(p.partitionIndex()).errorCode(error.code()));
                }
            }
            if (!keep.isEmpty()) {
                known.add(new OffsetCommitRequestTopic().name(t.name()).partitions(keep));
            }
        }
        if (unknown.isEmpty()) {
            ctx.respondWhenDone(GroupRequests.coordinator(broker).commitOffsets(request, ctx.apiVersion())
                    .thenApply(r -> withIds(r, ids)));
            return;
        }
        if (known.isEmpty()) {
            ctx.respond(withIds(new OffsetCommitResponse().topics(merge(new ArrayList<>(), unknown)), ids));
            return;
        }
        request.topics(known); // the coordinator reads the request only after this point
        ctx.respondWhenDone(GroupRequests.coordinator(broker).commitOffsets(request, ctx.apiVersion())
                .thenApply(r -> withIds(r.topics(merge(r.topics(), unknown)), ids)));
    }

    /** v10+: each answered topic named by the id it was asked with. */
    private static OffsetCommitResponse withIds(OffsetCommitResponse response, Map<String, UUID> ids) {
        if (ids != null) {
            for (OffsetCommitResponseTopic t : response.topics()) {
                t.topicId(ids.getOrDefault(t.name(), TopicIds.ZERO));
            }
        }
        return response;
    }

    private static List<OffsetCommitResponseTopic> merge(List<OffsetCommitResponseTopic> answered,
            Map<String, List<OffsetCommitResponsePartition>> unknown) {
        List<OffsetCommitResponseTopic> out = new ArrayList<>(answered);
        for (Map.Entry<String, List<OffsetCommitResponsePartition>> e : unknown.entrySet()) {
            OffsetCommitResponseTopic same = null;
            for (OffsetCommitResponseTopic t : out) {
                if (t.name().equals(e.getKey())) {
                    same = t;
                    break;
                }
            }
            if (same == null) {
                out.add(new OffsetCommitResponseTopic().name(e.getKey()).partitions(new ArrayList<>(e.getValue())));
            } else {
                List<OffsetCommitResponsePartition> parts = new ArrayList<>(same.partitions());
                parts.addAll(e.getValue());
                same.partitions(parts);
            }
        }
        return out;
    }
}
