package io.brook.server.api.group;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * OffsetCommit (key 8): partitions of unknown topics, or beyond a topic's partition count, get
 * UNKNOWN_TOPIC_OR_PARTITION here; the rest go to the group coordinator (which validates group,
 * member and generation) and both parts are merged into one answer.
 */
public final class OffsetCommitHandler implements ApiHandler<OffsetCommitRequest> {

    private final BrokerContext broker;

    public OffsetCommitHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, OffsetCommitRequest request) {
        Topics topics = broker.topics();
        Map<String, List<OffsetCommitResponsePartition>> unknown = new LinkedHashMap<>();
        List<OffsetCommitRequestTopic> known = new ArrayList<>(request.topics().size());
        for (OffsetCommitRequestTopic t : request.topics()) {
            List<OffsetCommitRequestPartition> keep = new ArrayList<>(t.partitions().size());
            for (OffsetCommitRequestPartition p : t.partitions()) {
                if (GroupRequests.hosts(topics, t.name(), p.partitionIndex())) {
                    keep.add(p);
                } else {
                    unknown.computeIfAbsent(t.name(), n -> new ArrayList<>()).add(new OffsetCommitResponsePartition()
                            .partitionIndex(p.partitionIndex()).errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                }
            }
            if (!keep.isEmpty()) {
                known.add(new OffsetCommitRequestTopic().name(t.name()).partitions(keep));
            }
        }
        if (unknown.isEmpty()) {
            GroupRequests.reply(ctx, GroupRequests.coordinator(broker).commitOffsets(request, ctx.apiVersion()));
            return;
        }
        if (known.isEmpty()) {
            ctx.respond(new OffsetCommitResponse().topics(merge(new ArrayList<>(), unknown)));
            return;
        }
        request.topics(known); // the coordinator reads the request only after this point
        GroupRequests.reply(ctx, GroupRequests.coordinator(broker).commitOffsets(request, ctx.apiVersion())
                .thenApply(r -> r.topics(merge(r.topics(), unknown))));
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
