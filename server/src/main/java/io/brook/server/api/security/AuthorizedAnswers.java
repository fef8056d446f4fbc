package io.brook.server.api.security;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.security.Acl;
import io.brook.server.security.Authorizer;
import io.brook.wire.message.DescribeClusterRequest;
import io.brook.wire.message.DescribeClusterResponse;
import io.brook.wire.message.DescribeGroupsRequest;
import io.brook.wire.message.DescribeGroupsResponse;
import io.brook.wire.message.ListGroupsRequest;
import io.brook.wire.message.ListGroupsResponse;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * The answers that tell a principal what exists or what it may do, narrowed to what its ACLs
 * allow, as Kafka narrows them (the handlers answer as if everything were allowed, and the
 * answer is filtered on its way out):
 * <ul>
 *   <li>DescribeCluster: KIP-430's cluster authorized operations, when asked for, are those of
 *       the handler's set that the ACLs allow on the cluster, and none at all for a principal
 *       that may not DESCRIBE the cluster.</li>
 *   <li>DescribeGroups v3+: each described group's authorized operations, when asked for, are
 *       those of the coordinator's set that the ACLs allow on that group (a group the principal
 *       may not DESCRIBE is refused before, by {@link AclChecks}).</li>
 *   <li>ListGroups: every group for a principal with DESCRIBE on the cluster; otherwise only the
 *       groups it may DESCRIBE.</li>
 * </ul>
 * Metadata computes its topics' and the cluster's authorized operations in its handler.
 */
public final class AuthorizedAnswers {

    private final Authorizer authorizer;

    AuthorizedAnswers(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    /** {@code handler} with its answer filtered, or {@code handler} itself for the other APIs. */
    @SuppressWarnings("unchecked")
    <Q extends ApiRequest> ApiHandler<Q> wrap(ApiKey key, ApiHandler<Q> handler) {
        return switch (key) {
            case DESCRIBE_CLUSTER -> (ApiHandler<Q>) describeCluster((ApiHandler<DescribeClusterRequest>) handler);
            case DESCRIBE_GROUPS -> (ApiHandler<Q>) describeGroups((ApiHandler<DescribeGroupsRequest>) handler);
            case LIST_GROUPS -> (ApiHandler<Q>) listGroups((ApiHandler<ListGroupsRequest>) handler);
            default -> handler;
        };
    }

    private ApiHandler<DescribeClusterRequest> describeCluster(ApiHandler<DescribeClusterRequest> handler) {
        return filtered(handler, (ctx, request) -> {
            if (request.includeClusterAuthorizedOperations()) {
                ctx.mergeIntoResponse(m -> {
                    DescribeClusterResponse r = (DescribeClusterResponse) m;
                    if (r.clusterAuthorizedOperations() != Integer.MIN_VALUE) {
                        r.clusterAuthorizedOperations(clusterOperations(authorizer, ctx,
                                r.clusterAuthorizedOperations()));
                    }
                    return r;
                }, null);
            }
        });
    }

    private ApiHandler<DescribeGroupsRequest> describeGroups(ApiHandler<DescribeGroupsRequest> handler) {
        return filtered(handler, (ctx, request) -> {
            if (request.includeAuthorizedOperations()) {
                ctx.mergeIntoResponse(m -> {
                    DescribeGroupsResponse r = (DescribeGroupsResponse) m;
                    for (DescribeGroupsResponse.DescribedGroup g : r.groups()) {
                        if (g.authorizedOperations() != Integer.MIN_VALUE) {
                            g.authorizedOperations(allowed(ctx, Acl.GROUP, g.groupId(), g.authorizedOperations()));
                        }
                    }
                    return r;
                }, null);
            }
        });
    }

    private ApiHandler<ListGroupsRequest> listGroups(ApiHandler<ListGroupsRequest> handler) {
        return filtered(handler, (ctx, request) -> {
            String principal = ctx.session().principal();
            String host = ctx.clientHost();
            if (authorizer.authorize(principal, host, Acl.DESCRIBE, Acl.CLUSTER, Acl.CLUSTER_NAME)) {
                return;
            }
            ctx.mergeIntoResponse(m -> {
                ListGroupsResponse r = (ListGroupsResponse) m;
                List<ListGroupsResponse.ListedGroup> kept = new ArrayList<>(r.groups().size());
                for (ListGroupsResponse.ListedGroup g : r.groups()) {
                    if (authorizer.authorize(principal, host, Acl.DESCRIBE, Acl.GROUP, g.groupId())) {
                        kept.add(g);
                    }
                }
                return r.groups(kept);
            }, null);
        });
    }

    /**
     * KIP-430's authorized operations of the cluster among {@code candidates}: none unless the
     * principal may DESCRIBE the cluster, as Kafka answers them in DescribeCluster and Metadata.
     */
    public static int clusterOperations(Authorizer authorizer, RequestContext ctx, int candidates) {
        String principal = ctx.session().principal();
        String host = ctx.clientHost();
        if (!authorizer.authorize(principal, host, Acl.DESCRIBE, Acl.CLUSTER, Acl.CLUSTER_NAME)) {
            return 0;
        }
        return authorizer.authorizedOperations(principal, host, Acl.CLUSTER, Acl.CLUSTER_NAME, candidates);
    }

    private int allowed(RequestContext ctx, byte resourceType, String name, int candidates) {
        return authorizer.authorizedOperations(ctx.session().principal(), ctx.clientHost(), resourceType, name,
                candidates);
    }

    /** Sets up the answer's filter, then runs the handler. */
    private interface Filter<Q> {
        void before(RequestContext ctx, Q request);
    }

    private static <Q extends ApiRequest> ApiHandler<Q> filtered(ApiHandler<Q> handler, Filter<Q> filter) {
        return new ApiHandler<>() {
            @Override
            public void handle(RequestContext ctx, Q request) {
                filter.before(ctx, request);
                handler.handle(ctx, request);
            }

            @Override
            public boolean runsOnEventLoop(Q request) {
                return handler.runsOnEventLoop(request);
            }
        };
    }
}
