package io.brook.server.api.group;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.topic.Topics;
import io.brook.wire.message.OffsetDeleteRequest;
import io.brook.wire.message.OffsetDeleteRequest.OffsetDeleteRequestPartition;
import io.brook.wire.message.OffsetDeleteRequest.OffsetDeleteRequestTopic;
import io.brook.wire.message.OffsetDeleteResponse;
import io.brook.wire.message.OffsetDeleteResponse.OffsetDeleteResponsePartition;
import io.brook.wire.message.OffsetDeleteResponse.OffsetDeleteResponseTopic;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * OffsetDelete (key 47): like OffsetCommit, partitions this broker does not host are answered
 * here; the rest go to the group coordinator.
 */
public final class OffsetDeleteHandler implements ApiHandler<OffsetDeleteRequest> {

    private final BrokerContext broker;

    public OffsetDeleteHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, OffsetDeleteRequest request) {
        Topics topics = broker.topics();
        Map<String, List<OffsetDeleteResponsePartition>> unknown = new LinkedHashMap<>();
        List<OffsetDeleteRequestTopic> known = new ArrayList<>(request.topics().size());
        for (OffsetDeleteRequestTopic t : request.topics()) {
            List<OffsetDeleteRequestPartition> keep = new ArrayList<>(t.partitions().size());
            for (OffsetDeleteRequestPartition p : t.partitions()) {
                if (GroupRequests.hosts(topics, t.name(), p.partitionIndex())) {
                    keep.add(p);
                } else {
                    unknown.computeIfAbsent(t.name(), n -> new ArrayList<>()).add(new OffsetDeleteResponsePartition()
                            .partitionIndex(p.partitionIndex()).errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                }
            }
            if (!keep.isEmpty()) {
                known.add(new OffsetDeleteRequestTopic().name(t.name()).partitions(keep));
            }
        }
        if (unknown.isEmpty()) {
            ctx.respondWhenDone(GroupRequests.coordinator(broker).deleteOffsets(request, ctx.apiVersion()));
            return;
        }
        request.topics(known);
        ctx.respondWhenDone(GroupRequests.coordinator(broker).deleteOffsets(request, ctx.apiVersion()).thenApply(r -> {
            if (r.errorCode() != Errors.NONE.code()) {
                return r; // a group-level error answers for every partition
            }
            List<OffsetDeleteResponseTopic> out = new ArrayList<>(r.topics());
            for (Map.Entry<String, List<OffsetDeleteResponsePartition>> e : unknown.entrySet()) {
                out.add(new OffsetDeleteResponseTopic().name(e.getKey()).partitions(e.getValue()));
            }
            return r.topics(out);
        }));
    }
}
