package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.ApiTable;
import io.brook.server.network.RequestContext;
import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.protocol.Errors;
import java.util.regex.Pattern;

/**
 * ApiVersions (key 18), answered from the {@link ApiTable} (every registered key with its
 * advertised range) and, from v3, the features section of {@link FeatureLevels}: the supported
 * and finalized feature levels and their epoch. While {@code transaction.version} is not
 * finalized at 2, Java clients use the classic transaction protocol rather than KIP-890's.
 *
 * <p>v5 (KIP-1242) lets a client name the cluster and node it meant to reach, so that a
 * connection misrouted by DNS or a proxy is found out before any other request: a request naming
 * only one of the two is INVALID_REQUEST, one naming another cluster id or node id gets
 * REBOOTSTRAP_REQUIRED (the Java client then bootstraps again), as Kafka 4.4 answers.
 *
 * <p>Answered on the event loop ({@link #runsOnEventLoop}).
 *
 * <p>A version newer than we serve never reaches this handler: the network layer answers it
 * (KIP-511) with a v0 body that carries UNSUPPORTED_VERSION and our ApiVersions range.
 */
final class ApiVersionsHandler implements ApiHandler<ApiVersionsRequest> {

    /** The first version that carries the cluster id and node id the client expects. */
    static final short CLUSTER_CHECK_MIN_VERSION = 5;

    /** KIP-511's rule for client_software_name and client_software_version (v3+). */
    private static final Pattern SOFTWARE = Pattern.compile("[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?");

    private final String clusterId;
    private final int nodeId;
    private final FeatureLevels features;

    ApiVersionsHandler(String clusterId, int nodeId, FeatureLevels features) {
        this.clusterId = clusterId;
        this.nodeId = nodeId;
        this.features = features;
    }

    @Override
    public void handle(RequestContext ctx, ApiVersionsRequest request) {
        short version = ctx.apiVersion();
        boolean namesCluster = version >= CLUSTER_CHECK_MIN_VERSION && request.clusterId() != null;
        boolean namesNode = version >= CLUSTER_CHECK_MIN_VERSION && request.nodeId() != -1;
        if (namesCluster != namesNode
                || version >= 3 && !(valid(request.clientSoftwareName()) && valid(request.clientSoftwareVersion()))) {
            ctx.respond(request.errorResponse(version, Errors.INVALID_REQUEST));
            return;
        }
        if (namesCluster && (!request.clusterId().equals(clusterId) || request.nodeId() != nodeId)) {
            ctx.respond(request.errorResponse(version, Errors.REBOOTSTRAP_REQUIRED));
            return;
        }
        if (version >= 3 && ctx.session() != null) {
            ctx.session().clientSoftware(request.clientSoftwareName(), request.clientSoftwareVersion());
        }
        ApiVersionsResponse table = ctx.apis().apiVersionsResponse();
        ApiVersionsResponse response = new ApiVersionsResponse().errorCode(table.errorCode()).apiKeys(table.apiKeys());
        features.addTo(response, version);
        ctx.respond(response);
    }

    /**
     * Always: the answer comes from memory (the table's list, the feature levels) and costs the
     * same for every request, so it never needs the I/O pool's two thread hand-offs.
     */
    @Override
    public boolean runsOnEventLoop(ApiVersionsRequest request) {
        return true;
    }

    private static boolean valid(String s) {
        return s != null && SOFTWARE.matcher(s).matches();
    }
}
