package io.brook.server.api;

import io.brook.server.config.Listener;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterView;
import io.brook.wire.message.DescribeClusterRequest;
import io.brook.wire.message.DescribeClusterResponse;
import io.brook.wire.message.DescribeClusterResponse.DescribeClusterBroker;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * DescribeCluster (key 60): on a single node this broker, which is also the controller; in
 * cluster mode every unfenced broker of the metadata image (its endpoint on the client's
 * listener, its rack) and the controller (the metadata quorum's leader).
 */
final class DescribeClusterHandler implements ApiHandler<DescribeClusterRequest> {

    /** Endpoint types (KIP-919): 1 = brokers, 2 = controllers. */
    static final byte ENDPOINT_BROKERS = 1;

    private final BrokerContext broker;

    DescribeClusterHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, DescribeClusterRequest request) {
        if (ctx.apiVersion() >= 1 && request.endpointType() != ENDPOINT_BROKERS) {
            ctx.respond(new DescribeClusterResponse().errorCode(Errors.UNSUPPORTED_ENDPOINT_TYPE.code())
                    .errorMessage("Brook answers for broker endpoints only").endpointType(request.endpointType())
                    .clusterId(broker.clusterId()));
            return;
        }
        Listener adv = broker.advertised(ctx.session().listenerName());
        List<DescribeClusterBroker> brokers = new ArrayList<>();
        if (broker.cluster() != null) {
            for (ClusterView.BrokerNode b : broker.cluster().brokers(ctx.session().listenerName())) {
                brokers.add(new DescribeClusterBroker().brokerId(b.id()).host(b.host()).port(b.port()).rack(b.rack()));
            }
        } else {
            brokers.add(new DescribeClusterBroker().brokerId(broker.nodeId()).host(adv.host()).port(adv.port()).rack(null));
        }
        DescribeClusterResponse r = new DescribeClusterResponse()
                .errorCode(Errors.NONE.code())
                .clusterId(broker.clusterId())
                .controllerId(broker.cluster() != null ? broker.cluster().controllerId() : broker.nodeId())
                .brokers(brokers);
        if (ctx.apiVersion() >= 1) {
            r.endpointType(ENDPOINT_BROKERS);
        }
        if (request.includeClusterAuthorizedOperations()) {
            r.clusterAuthorizedOperations(MetadataHandler.CLUSTER_OPERATIONS);
        }
        ctx.respond(r);
    }
}
