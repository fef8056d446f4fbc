package io.brook.server.api.security;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.security.Acl;
import io.brook.server.security.AclFilter;
import io.brook.server.security.Authorizer;
import io.brook.wire.message.DeleteAclsRequest;
import io.brook.wire.message.DeleteAclsRequest.DeleteAclsFilter;
import io.brook.wire.message.DeleteAclsResponse;
import io.brook.wire.message.DeleteAclsResponse.DeleteAclsFilterResult;
import io.brook.wire.message.DeleteAclsResponse.DeleteAclsMatchingAcl;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * DeleteAcls (key 31): removes every entry each filter matches, durably, and answers with what
 * each filter removed. Without an authorizer SECURITY_DISABLED, as in Kafka. Filters that match
 * more than {@value Authorizer#MAX_CHANGES_PER_REQUEST} entries in all remove none: each filter is
 * answered POLICY_VIOLATION. Needs ALTER on the cluster ({@link AclChecks}). In cluster mode the removals go to the metadata log and the answer
 * waits until this node applied them ({@link FailedChange} when that fails).
 */
public final class DeleteAclsHandler implements ApiHandler<DeleteAclsRequest> {

    private final Authorizer authorizer;

    public DeleteAclsHandler(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    @Override
    public void handle(RequestContext ctx, DeleteAclsRequest request) {
        if (!authorizer.enabled()) {
            DeleteAclsResponse disabled = request.errorResponse(ctx.apiVersion(), Errors.SECURITY_DISABLED);
            disabled.filterResults().forEach(r -> r.errorMessage(Authorizer.DISABLED_MESSAGE));
            ctx.respond(disabled);
            return;
        }
        List<AclFilter> filters = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (DeleteAclsFilter f : request.filters()) {
            AclFilter filter = new AclFilter(f.resourceTypeFilter(), f.resourceNameFilter(), f.patternTypeFilter(),
                    f.principalFilter(), f.hostFilter(), f.operation(), f.permissionType());
            problems.add(filter.problem());
            // an unusable filter matches nothing
            filters.add(filter.problem() == null ? filter
                    : new AclFilter((byte) 0, null, Acl.ANY, null, null, Acl.ANY, Acl.ANY));
        }
        authorizer.delete(filters).whenComplete((removed, e) -> {
            FailedChange failed = e == null ? null : FailedChange.of(e);
            if (e != null && failed == null) {
                ctx.fail(e);
            } else {
                ctx.respond(answer(problems, removed, failed));
            }
        });
    }

    /** Per filter: its problem, or what it removed, or the change's failure. */
    private static DeleteAclsResponse answer(List<String> problems, List<List<Acl>> removed, FailedChange failed) {
        List<DeleteAclsFilterResult> results = new ArrayList<>();
        for (int i = 0; i < problems.size(); i++) {
            if (problems.get(i) != null || failed != null) {
                results.add(new DeleteAclsFilterResult()
                        .errorCode(failed == null ? Errors.INVALID_REQUEST.code() : failed.error().code())
                        .errorMessage(failed == null ? problems.get(i) : failed.message()).matchingAcls(List.of()));
                continue;
            }
            List<DeleteAclsMatchingAcl> matching = new ArrayList<>();
            for (Acl a : removed.get(i)) {
                matching.add(new DeleteAclsMatchingAcl().errorCode(Errors.NONE.code()).errorMessage(null)
                        .resourceType(a.resourceType()).resourceName(a.resourceName()).patternType(a.patternType())
                        .principal(a.principal()).host(a.host()).operation(a.operation())
                        .permissionType(a.permission()));
            }
            results.add(new DeleteAclsFilterResult().errorCode(Errors.NONE.code()).errorMessage(null)
                    .matchingAcls(matching));
        }
        return new DeleteAclsResponse().filterResults(results);
    }
}
