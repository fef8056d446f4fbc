package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.topic.Topic;
import io.brook.wire.message.ElectLeadersRequest;
import io.brook.wire.message.ElectLeadersRequest.TopicPartitions;
import io.brook.wire.message.ElectLeadersResponse;
import io.brook.wire.message.ElectLeadersResponse.PartitionResult;
import io.brook.wire.message.ElectLeadersResponse.ReplicaElectionResult;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * ElectLeaders (key 43, {@code kafka-leader-election.sh}): on a single node every partition's one
 * replica is its leader and its preferred replica, so no election is ever needed. As Kafka's
 * controller answers: each partition named gets ELECTION_NOT_NEEDED (UNKNOWN_TOPIC_OR_PARTITION
 * when it does not exist); a request for all partitions (null) lists every topic with no
 * partition (those that need no election are left out); an unknown election type is an
 * INVALID_REQUEST.
 */
final class ElectLeadersHandler implements ApiHandler<ElectLeadersRequest> {

    /** Election types (KIP-460): 0 preferred, 1 unclean. */
    private static final byte PREFERRED = 0;
    private static final byte UNCLEAN = 1;

    private final BrokerContext broker;

    ElectLeadersHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, ElectLeadersRequest request) {
        short version = ctx.apiVersion();
        if (version >= 1 && request.electionType() != PREFERRED && request.electionType() != UNCLEAN) {
            ctx.respond(request.errorResponse(version, Errors.INVALID_REQUEST));
            return;
        }
        List<ReplicaElectionResult> results = new ArrayList<>();
        if (request.topicPartitions() == null) {
            for (Topic t : broker.topics().all()) {
                results.add(new ReplicaElectionResult().topic(t.name()).partitionResult(new ArrayList<>()));
            }
        } else {
            for (TopicPartitions tp : request.topicPartitions()) {
                Topic t = broker.topics().get(tp.topic());
                List<PartitionResult> partitions = new ArrayList<>();
                for (int p : tp.partitions()) {
                    PartitionResult r = new PartitionResult().partitionId(p);
                    if (t == null) {
                        r.errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).errorMessage("No such topic as " + tp.topic());
                    } else if (p < 0 || p >= t.partitions()) {
                        r.errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                                .errorMessage("No such partition as " + tp.topic() + "-" + p);
                    } else {
                        r.errorCode(Errors.ELECTION_NOT_NEEDED.code()).errorMessage(null);
                    }
                    partitions.add(r);
                }
                results.add(new ReplicaElectionResult().topic(tp.topic()).partitionResult(partitions));
            }
        }
        ctx.respond(new ElectLeadersResponse().errorCode(Errors.NONE.code()).replicaElectionResults(results));
    }
}
