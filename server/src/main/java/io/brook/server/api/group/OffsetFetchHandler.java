package io.brook.server.api.group;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * OffsetFetch (key 9): a group's committed offsets. Handed to the group coordinator; see {@link
 * GroupRequests}.
 */
public final class OffsetFetchHandler implements ApiHandler<OffsetFetchRequest> {

    private final BrokerContext broker;

    public OffsetFetchHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, OffsetFetchRequest request) {
        GroupRequests.reply(ctx, GroupRequests.coordinator(broker).fetchOffsets(request, ctx.apiVersion()));
    }

    @Override
    public ApiMessage errorResponse(OffsetFetchRequest request, short version, Errors error) {
        if (version >= 8) {
            List<OffsetFetchResponse.OffsetFetchResponseGroup> groups = new ArrayList<>();
            for (OffsetFetchRequest.OffsetFetchRequestGroup g : request.groups()) {
                groups.add(new OffsetFetchResponse.OffsetFetchResponseGroup().groupId(g.groupId())
                        .errorCode(error.code()));
            }
            return new OffsetFetchResponse().groups(groups);
        }
        // v0-1 have no top-level error code: the error goes to every partition asked for
        List<OffsetFetchResponse.OffsetFetchResponseTopic> topics = new ArrayList<>();
        if (request.topics() != null) {
            for (OffsetFetchRequest.OffsetFetchRequestTopic t : request.topics()) {
                List<OffsetFetchResponse.OffsetFetchResponsePartition> parts = new ArrayList<>();
                for (int p : t.partitionIndexes()) {
                    parts.add(new OffsetFetchResponse.OffsetFetchResponsePartition().partitionIndex(p)
                            .committedOffset(-1).committedLeaderEpoch(-1).metadata("").errorCode(error.code()));
                }
                topics.add(new OffsetFetchResponse.OffsetFetchResponseTopic().name(t.name()).partitions(parts));
            }
        }
        return new OffsetFetchResponse().topics(topics).errorCode(error.code());
    }
}
