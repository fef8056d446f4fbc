package io.brook.server.api.security;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.security.DelegationTokens;
import io.brook.wire.message.RenewDelegationTokenRequest;
import io.brook.wire.message.RenewDelegationTokenResponse;
import io.brook.wire.protocol.Errors;

/**
 * RenewDelegationToken (key 39): moves a token's expiry on by the period asked (at most
 * {@code delegation.token.expiry.time.ms}, never beyond the token's maximum), for its owner or
 * one of its renewers; Kafka's errors ({@link DelegationTokens#renew}), and
 * DELEGATION_TOKEN_REQUEST_NOT_ALLOWED on a connection that may not manage tokens (in cluster
 * mode a change the controller refused or did not take is answered with its error,
 * {@link FailedChange}).
 */
public final class RenewDelegationTokenHandler implements ApiHandler<RenewDelegationTokenRequest> {

    private final DelegationTokens tokens;

    public RenewDelegationTokenHandler(DelegationTokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public void handle(RequestContext ctx, RenewDelegationTokenRequest request) {
        if (!ctx.session().mayManageTokens()) {
            ctx.respond(new RenewDelegationTokenResponse().errorCode(Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code())
                    .expiryTimestampMs(-1));
            return;
        }
        tokens.renew(request.hmac(), ctx.session().principal(), request.renewPeriodMs()).whenComplete((c, e) ->
                FailedChange.answer(ctx, e, f -> { }, () -> e != null
                        ? new RenewDelegationTokenResponse().errorCode(FailedChange.of(e).error().code()).expiryTimestampMs(-1)
                        : new RenewDelegationTokenResponse().errorCode(c.error().code()).expiryTimestampMs(c.expiryTimestampMs())));
    }
}
