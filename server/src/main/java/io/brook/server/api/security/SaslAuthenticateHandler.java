package io.brook.server.api.security;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.security.AuthenticationFailure;
import io.brook.server.security.Session;
import io.brook.server.time.Timer;
import io.brook.wire.message.SaslAuthenticateRequest;
import io.brook.wire.message.SaslAuthenticateResponse;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.LogSafe;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SaslAuthenticate (key 36): one client message of the SASL exchange the handshake chose,
 * answered with the server's next message. A failed authentication is answered with
 * SASL_AUTHENTICATION_FAILED and its reason (never a secret), logged, and the connection closes,
 * after {@code connection.failed.authentication.delay.ms} as in Kafka.
 * Outside an exchange (no handshake yet, a listener without SASL, already authenticated) the
 * answer is ILLEGAL_SASL_STATE, as in Kafka. The answer (v1+) that completes an authentication
 * tells the client how long it lasts (KIP-368): {@code connections.max.reauth.ms} or, when shorter
 * or when that is 0, the time left until the OAUTHBEARER token expires; 0 for ever.
 */
public final class SaslAuthenticateHandler implements ApiHandler<SaslAuthenticateRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(SaslAuthenticateHandler.class);

    private final Timer timer;

    /** {@code timer} delays the answer to a failed authentication (connection.failed.authentication.delay.ms). */
    public SaslAuthenticateHandler(Timer timer) {
        this.timer = timer;
    }

    @Override
    public void handle(RequestContext ctx, SaslAuthenticateRequest request) {
        Session session = ctx.session();
        SaslAuthenticateResponse response = new SaslAuthenticateResponse().authBytes(new byte[0]);
        if (!session.awaitingAuthenticate()) {
            response.errorCode(Errors.ILLEGAL_SASL_STATE.code()).errorMessage(session.authenticated()
                    ? "SaslAuthenticate request received after successful authentication"
                    : "SaslAuthenticate request received before a SaslHandshake v1");
            if (session.usesSasl() && !session.authenticated()) {
                ctx.respondThenClose(response, "unexpected SaslAuthenticate");
            } else {
                ctx.respond(response);
            }
            return;
        }
        try {
            byte[] answer = session.authenticate(request.authBytes());
            ctx.respond(response.errorCode(Errors.NONE.code()).errorMessage(null).authBytes(answer)
                    .sessionLifetimeMs(session.sessionLifetimeMs()));
        } catch (AuthenticationFailure e) {
            LOG.info("Failed authentication with {} ({}) on listener {}", ctx.clientAddress(),
                    LogSafe.escape(e.getMessage()), session.listenerName());
            response.errorCode(Errors.SASL_AUTHENTICATION_FAILED.code()).errorMessage(e.getMessage());
            long delay = session.failedAuthenticationDelayMs();
            if (delay > 0) {
                Timer.Scheduled answer = timer.schedule(delay, () -> ctx.respondThenClose(response,
                        RequestContext.FAILED_AUTHENTICATION));
                ctx.onConnectionClosed(answer::cancel);
            } else {
                ctx.respondThenClose(response, RequestContext.FAILED_AUTHENTICATION);
            }
        }
    }
}
