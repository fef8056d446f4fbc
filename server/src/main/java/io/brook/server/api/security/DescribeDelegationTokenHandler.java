package io.brook.server.api.security;

import static io.brook.server.security.DelegationToken.principalNameOf;
import static io.brook.server.security.DelegationToken.principalTypeOf;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.security.Acl;
import io.brook.server.security.Authorizer;
import io.brook.server.security.DelegationToken;
import io.brook.server.security.DelegationTokens;
import io.brook.wire.message.DescribeDelegationTokenRequest;
import io.brook.wire.message.DescribeDelegationTokenRequest.DescribeDelegationTokenOwner;
import io.brook.wire.message.DescribeDelegationTokenResponse;
import io.brook.wire.message.DescribeDelegationTokenResponse.DescribedDelegationToken;
import io.brook.wire.message.DescribeDelegationTokenResponse.DescribedDelegationTokenRenewer;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * DescribeDelegationToken (key 41): the tokens the requester may see, with their HMACs, as Kafka
 * filters them. Owners named: only tokens one of them owns, asked for or may renew; null, and
 * also an empty list: every token. (Kafka answers an empty list with no tokens, but
 * {@code kafka-delegation-tokens.sh --describe} sends one to mean "the current user's", so there
 * it shows nothing; Brook shows what the requester may see.) Of those, a token the requester owns, asked for or may renew,
 * or one it has DESCRIBE on (resource DELEGATION_TOKEN, its id) or DESCRIBE_TOKENS on its owner
 * (resource USER). DELEGATION_TOKEN_REQUEST_NOT_ALLOWED on a connection that may not manage
 * tokens, DELEGATION_TOKEN_AUTH_DISABLED without {@code delegation.token.secret.key}.
 */
public final class DescribeDelegationTokenHandler implements ApiHandler<DescribeDelegationTokenRequest> {

    private final DelegationTokens tokens;
    private final Authorizer authorizer;

    public DescribeDelegationTokenHandler(DelegationTokens tokens, Authorizer authorizer) {
        this.tokens = tokens;
        this.authorizer = authorizer;
    }

    @Override
    public void handle(RequestContext ctx, DescribeDelegationTokenRequest request) {
        DescribeDelegationTokenResponse response = new DescribeDelegationTokenResponse();
        if (!ctx.session().mayManageTokens()) {
            ctx.respond(response.errorCode(Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code()));
            return;
        }
        if (!tokens.enabled()) {
            ctx.respond(response.errorCode(Errors.DELEGATION_TOKEN_AUTH_DISABLED.code()));
            return;
        }
        List<String> owners = null;
        if (request.owners() != null && !request.owners().isEmpty()) {
            owners = new ArrayList<>();
            for (DescribeDelegationTokenOwner o : request.owners()) {
                owners.add(o.principalType() + ":" + o.principalName());
            }
        }
        String requester = ctx.session().principal();
        String host = ctx.clientHost();
        List<DescribedDelegationToken> out = new ArrayList<>();
        for (DelegationToken t : tokens.all()) {
            if (owners != null && owners.stream().noneMatch(t::ownerOrRenewer)) {
                continue;
            }
            if (t.ownerOrRenewer(requester)
                    || authorizer.authorize(requester, host, Acl.DESCRIBE, Acl.DELEGATION_TOKEN, t.tokenId())
                    || authorizer.authorize(requester, host, Acl.DESCRIBE_TOKENS, Acl.USER, t.owner())) {
                out.add(described(t, tokens.hmac(t.tokenId()), ctx.apiVersion()));
            }
        }
        ctx.respond(response.errorCode(Errors.NONE.code()).tokens(out));
    }

    /** The requester is named from v3 on (KIP-373); v0–2 answers have no place for it. */
    private static DescribedDelegationToken described(DelegationToken t, byte[] hmac, short version) {
        List<DescribedDelegationTokenRenewer> renewers = new ArrayList<>();
        for (String r : t.renewers()) {
            renewers.add(new DescribedDelegationTokenRenewer().principalType(principalTypeOf(r))
                    .principalName(principalNameOf(r)));
        }
        DescribedDelegationToken d = new DescribedDelegationToken().principalType(principalTypeOf(t.owner()))
                .principalName(principalNameOf(t.owner()))
                .issueTimestamp(t.issueTimestampMs()).expiryTimestamp(t.expiryTimestampMs())
                .maxTimestamp(t.maxTimestampMs()).tokenId(t.tokenId()).hmac(hmac).renewers(renewers);
        if (version >= CreateDelegationTokenHandler.REQUESTER_VERSION) {
            d.tokenRequesterPrincipalType(principalTypeOf(t.requester()))
                    .tokenRequesterPrincipalName(principalNameOf(t.requester()));
        }
        return d;
    }
}
