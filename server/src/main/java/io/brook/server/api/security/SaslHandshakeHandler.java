package io.brook.server.api.security;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.security.Session;
import io.brook.wire.message.SaslHandshakeRequest;
import io.brook.wire.message.SaslHandshakeResponse;
import io.brook.wire.protocol.Errors;

/**
 * SaslHandshake (key 17): picks the connection's SASL mechanism. Answers with the listener's
 * enabled mechanisms; an unknown one is answered with UNSUPPORTED_SASL_MECHANISM and the
 * connection closes, as in Kafka. At v0 the exchange continues with raw SASL tokens (the
 * connection reads them, see {@link Session#expectsRawTokens}); at v1 with SaslAuthenticate.
 * On a listener without SASL, or a second time, the answer is ILLEGAL_SASL_STATE.
 */
public final class SaslHandshakeHandler implements ApiHandler<SaslHandshakeRequest> {

    @Override
    public void handle(RequestContext ctx, SaslHandshakeRequest request) {
        Session session = ctx.session();
        Session.HandshakeResult result = session.handshake(request.mechanism(), ctx.apiVersion());
        SaslHandshakeResponse response = new SaslHandshakeResponse().mechanisms(session.enabledMechanisms());
        switch (result) {
            case OK -> ctx.respond(response.errorCode(Errors.NONE.code()));
            case UNSUPPORTED_MECHANISM -> ctx.respondThenClose(
                    response.errorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code()),
                    "unsupported SASL mechanism " + request.mechanism());
            case ILLEGAL_STATE -> {
                if (session.usesSasl()) {
                    ctx.respondThenClose(response.errorCode(Errors.ILLEGAL_SASL_STATE.code()),
                            "unexpected SaslHandshake");
                } else {
                    ctx.respond(response.errorCode(Errors.ILLEGAL_SASL_STATE.code()));
                }
            }
        }
    }
}
