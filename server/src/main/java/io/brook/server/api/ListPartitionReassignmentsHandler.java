package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.wire.message.ListPartitionReassignmentsRequest;
import io.brook.wire.message.ListPartitionReassignmentsResponse;
import io.brook.wire.protocol.Errors;
import java.util.List;

/**
 * ListPartitionReassignments (key 46, {@code kafka-reassign-partitions.sh --list}): a single node
 * has no other broker to move a replica to, so no reassignment is ever under way; the answer lists
 * none, for all topics or the ones named (Kafka leaves out topics without an ongoing reassignment,
 * unknown ones included).
 */
final class ListPartitionReassignmentsHandler implements ApiHandler<ListPartitionReassignmentsRequest> {

    @Override
    public void handle(RequestContext ctx, ListPartitionReassignmentsRequest request) {
        ctx.respond(new ListPartitionReassignmentsResponse().errorCode(Errors.NONE.code()).errorMessage(null)
                .topics(List.of()));
    }
}
