package io.brook.server.api.security;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.security.DelegationTokens;
import io.brook.wire.message.ExpireDelegationTokenRequest;
import io.brook.wire.message.ExpireDelegationTokenResponse;
import io.brook.wire.protocol.Errors;

/**
 * ExpireDelegationToken (key 40): sets a token to expire after the period asked, or removes it at
 * once for a negative period ({@code kafka-delegation-tokens.sh --expire --expiry-time-period -1}),
 * for its owner or one of its renewers; Kafka's errors ({@link DelegationTokens#expire}), and
 * DELEGATION_TOKEN_REQUEST_NOT_ALLOWED on a connection that may not manage tokens (in cluster
 * mode a change the controller refused or did not take is answered with its error,
 * {@link FailedChange}).
 */
public final class ExpireDelegationTokenHandler implements ApiHandler<ExpireDelegationTokenRequest> {

    private final DelegationTokens tokens;

    public ExpireDelegationTokenHandler(DelegationTokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public void handle(RequestContext ctx, ExpireDelegationTokenRequest request) {
        if (!ctx.session().mayManageTokens()) {
            ctx.respond(new ExpireDelegationTokenResponse().errorCode(Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code())
                    .expiryTimestampMs(-1));
            return;
        }
        tokens.expire(request.hmac(), ctx.session().principal(), request.expiryTimePeriodMs()).whenComplete((c, e) ->
                FailedChange.answer(ctx, e, f -> { }, () -> e != null
                        ? new ExpireDelegationTokenResponse().errorCode(FailedChange.of(e).error().code()).expiryTimestampMs(-1)
                        : new ExpireDelegationTokenResponse().errorCode(c.error().code()).expiryTimestampMs(c.expiryTimestampMs())));
    }
}
