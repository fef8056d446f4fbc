package io.brook.server.api.security;

import static io.brook.server.security.DelegationToken.principalNameOf;
import static io.brook.server.security.DelegationToken.principalTypeOf;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.security.Acl;
import io.brook.server.security.Authorizer;
import io.brook.server.security.DelegationTokens;
import io.brook.wire.message.CreateDelegationTokenRequest;
import io.brook.wire.message.CreateDelegationTokenRequest.CreatableRenewers;
import io.brook.wire.message.CreateDelegationTokenResponse;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * CreateDelegationToken (key 38): a token for the requester or, since v3 (KIP-373), for another
 * owner, which needs CREATE_TOKENS on that user. Kafka's checks, in its order: a connection that
 * may not manage tokens is DELEGATION_TOKEN_REQUEST_NOT_ALLOWED ({@link
 * io.brook.server.security.Session#mayManageTokens}), an owner the requester may not create for
 * DELEGATION_TOKEN_AUTHORIZATION_FAILED, a renewer that is not a {@code User}
 * INVALID_PRINCIPAL_TYPE, tokens disabled DELEGATION_TOKEN_AUTH_DISABLED. The token is kept
 * durably before the answer, which carries its id and HMAC (in cluster mode a change the
 * controller refused or did not take is answered with its error, {@link FailedChange}).
 */
public final class CreateDelegationTokenHandler implements ApiHandler<CreateDelegationTokenRequest> {

    /** The first version of Create- and DescribeDelegationToken answers that name the token's requester (KIP-373). */
    static final short REQUESTER_VERSION = 3;

    private final DelegationTokens tokens;
    private final Authorizer authorizer;

    public CreateDelegationTokenHandler(DelegationTokens tokens, Authorizer authorizer) {
        this.tokens = tokens;
        this.authorizer = authorizer;
    }

    @Override
    public void handle(RequestContext ctx, CreateDelegationTokenRequest request) {
        String requester = ctx.session().principal();
        String ownerName = request.ownerPrincipalName();
        String owner = ownerName == null || ownerName.isEmpty() ? requester
                : request.ownerPrincipalType() + ":" + ownerName;
        Errors refusal = null;
        List<String> renewers = new ArrayList<>();
        for (CreatableRenewers r : request.renewers()) {
            if (!"User".equals(r.principalType())) {
                refusal = Errors.INVALID_PRINCIPAL_TYPE;
            }
            renewers.add(r.principalType() + ":" + r.principalName());
        }
        if (!ctx.session().mayManageTokens()) {
            refusal = Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED;
        } else if (!owner.equals(requester)
                && !authorizer.authorize(requester, ctx.clientHost(), Acl.CREATE_TOKENS, Acl.USER, owner)) {
            refusal = Errors.DELEGATION_TOKEN_AUTHORIZATION_FAILED;
        }
        short version = ctx.apiVersion();
        if (refusal != null) {
            ctx.respond(refused(refusal, owner, requester, version));
            return;
        }
        tokens.create(owner, requester, renewers, request.maxLifetimeMs()).whenComplete((c, e) ->
                FailedChange.answer(ctx, e, f -> { }, () -> {
                    if (e != null) {
                        return refused(FailedChange.of(e).error(), owner, requester, version);
                    }
                    if (c.error() != Errors.NONE) {
                        return refused(c.error(), owner, requester, version);
                    }
                    return answer(Errors.NONE, owner, requester, version).issueTimestampMs(c.token().issueTimestampMs())
                            .expiryTimestampMs(c.token().expiryTimestampMs())
                            .maxTimestampMs(c.token().maxTimestampMs()).tokenId(c.token().tokenId()).hmac(c.hmac());
                }));
    }

    /** A refusal as Kafka's broker answers it: no token, its times -1. */
    private static CreateDelegationTokenResponse refused(Errors error, String owner, String requester, short version) {
        return answer(error, owner, requester, version).issueTimestampMs(-1).expiryTimestampMs(-1).maxTimestampMs(-1)
                .tokenId("").hmac(new byte[0]);
    }

    /** The requester is named from v3 on (KIP-373); v0–2 answers have no place for it. */
    private static CreateDelegationTokenResponse answer(Errors error, String owner, String requester, short version) {
        CreateDelegationTokenResponse r = new CreateDelegationTokenResponse().errorCode(error.code())
                .principalType(principalTypeOf(owner)).principalName(principalNameOf(owner));
        if (version >= REQUESTER_VERSION) {
            r.tokenRequesterPrincipalType(principalTypeOf(requester)).tokenRequesterPrincipalName(principalNameOf(requester));
        }
        return r;
    }
}
