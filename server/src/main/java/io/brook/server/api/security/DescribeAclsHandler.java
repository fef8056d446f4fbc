package io.brook.server.api.security;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.security.Acl;
import io.brook.server.security.AclFilter;
import io.brook.server.security.Authorizer;
import io.brook.wire.message.DescribeAclsRequest;
import io.brook.wire.message.DescribeAclsResponse;
import io.brook.wire.message.DescribeAclsResponse.AclDescription;
import io.brook.wire.message.DescribeAclsResponse.DescribeAclsResource;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * DescribeAcls (key 29): the entries a filter matches, grouped by resource pattern. Without an
 * authorizer SECURITY_DISABLED, as in Kafka. Needs DESCRIBE on the cluster ({@link AclChecks}).
 */
public final class DescribeAclsHandler implements ApiHandler<DescribeAclsRequest> {

    private final Authorizer authorizer;

    public DescribeAclsHandler(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    @Override
    public void handle(RequestContext ctx, DescribeAclsRequest r) {
        if (!authorizer.enabled()) {
            ctx.respond(new DescribeAclsResponse().errorCode(Errors.SECURITY_DISABLED.code())
                    .errorMessage(Authorizer.DESCRIBE_DISABLED_MESSAGE));
            return;
        }
        AclFilter filter = new AclFilter(r.resourceTypeFilter(), r.resourceNameFilter(), r.patternTypeFilter(),
                r.principalFilter(), r.hostFilter(), r.operation(), r.permissionType());
        if (filter.problem() != null) {
            ctx.respond(new DescribeAclsResponse().errorCode(Errors.INVALID_REQUEST.code())
                    .errorMessage(filter.problem()));
            return;
        }
        Map<List<Object>, DescribeAclsResource> byResource = new LinkedHashMap<>();
        for (Acl acl : authorizer.describe(filter)) {
            DescribeAclsResource res = byResource.computeIfAbsent(
                    List.of(acl.resourceType(), acl.resourceName(), acl.patternType()),
                    k -> new DescribeAclsResource().resourceType(acl.resourceType()).resourceName(acl.resourceName())
                            .patternType(acl.patternType()).acls(new ArrayList<>()));
            res.acls().add(new AclDescription().principal(acl.principal()).host(acl.host())
                    .operation(acl.operation()).permissionType(acl.permission()));
        }
        ctx.respond(new DescribeAclsResponse().errorCode(Errors.NONE.code())
                .resources(new ArrayList<>(byResource.values())));
    }
}
