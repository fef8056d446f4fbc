package io.brook.server.api.security;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.security.Acl;
import io.brook.server.security.Authorizer;
import io.brook.wire.message.CreateAclsRequest;
import io.brook.wire.message.CreateAclsRequest.AclCreation;
import io.brook.wire.message.CreateAclsResponse;
import io.brook.wire.message.CreateAclsResponse.AclCreationResult;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * CreateAcls (key 30): adds ACL entries, durably, one result per entry in request order. An
 * invalid entry (unknown codes, a pattern other than LITERAL or PREFIXED, an unparsable
 * principal, an empty name) is INVALID_REQUEST and the others are still created; without an
 * authorizer every entry is SECURITY_DISABLED, as in Kafka. More than {@value
 * Authorizer#MAX_CHANGES_PER_REQUEST} distinct valid entries are refused whole: each valid entry
 * is answered POLICY_VIOLATION and none is created. Needs ALTER on the cluster
 * ({@link AclChecks}). In cluster mode the entries go to the metadata log and the answer waits
 * until this node applied them; a failure of that change answers each valid entry with its
 * error ({@link FailedChange}).
 */
public final class CreateAclsHandler implements ApiHandler<CreateAclsRequest> {

    private final Authorizer authorizer;

    public CreateAclsHandler(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    @Override
    public void handle(RequestContext ctx, CreateAclsRequest request) {
        if (!authorizer.enabled()) {
            CreateAclsResponse disabled = request.errorResponse(ctx.apiVersion(), Errors.SECURITY_DISABLED);
            disabled.results().forEach(r -> r.errorMessage(Authorizer.DISABLED_MESSAGE));
            ctx.respond(disabled);
            return;
        }
        List<AclCreationResult> results = new ArrayList<>();
        List<Acl> valid = new ArrayList<>();
        for (AclCreation c : request.creations()) {
            Acl acl = new Acl(c.resourceType(), c.resourceName(), c.resourcePatternType(), c.principal(), c.host(),
                    c.operation(), c.permissionType());
            String problem = acl.problem();
            if (problem != null) {
                results.add(new AclCreationResult().errorCode(Errors.INVALID_REQUEST.code()).errorMessage(problem));
            } else {
                valid.add(acl);
                results.add(new AclCreationResult().errorCode(Errors.NONE.code()).errorMessage(null));
            }
        }
        if (valid.isEmpty()) {
            ctx.respond(new CreateAclsResponse().results(results));
            return;
        }
        authorizer.create(valid).whenComplete((v, e) -> FailedChange.answer(ctx, e,
                f -> results.stream().filter(r -> r.errorCode() == Errors.NONE.code())
                        .forEach(r -> r.errorCode(f.error().code()).errorMessage(f.message())),
                () -> new CreateAclsResponse().results(results)));
    }
}
