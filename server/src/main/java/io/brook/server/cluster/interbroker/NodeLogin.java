package io.brook.server.cluster.interbroker;

import io.brook.server.security.AuthenticationFailure;
import io.brook.server.security.InterBrokerLogin;
import io.brook.server.security.SaslClientExchange;
import io.brook.wire.message.SaslAuthenticateRequest;
import io.brook.wire.message.SaslAuthenticateResponse;
import io.brook.wire.message.SaslHandshakeRequest;
import io.brook.wire.message.SaslHandshakeResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import io.netty.handler.ssl.SslHandler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Logs a new inter-broker connection in, as Kafka's brokers do on a TLS or SASL inter-broker
 * listener: waits for the TLS handshake (the other node's certificate checked against the trust
 * store, and its host name unless {@code ssl.endpoint.identification.algorithm} is empty), then
 * runs the SASL exchange of {@code sasl.mechanism.inter.broker.protocol}: SaslHandshake v1 and
 * SaslAuthenticate v2 rounds until the mechanism is done. Nothing else is sent on the connection
 * before it completes. A refusal fails it with an {@link InterBrokerException} that names the
 * other node's error; the password never appears in it.
 *
 * <p>The same exchange without the TLS handshake re-authenticates a connection whose session
 * the other node bounded (KIP-368: {@code connections.max.reauth.ms}, a token's expiry): the
 * login completes with the session lifetime the last SaslAuthenticate answer gave.
 *
 * <p>An OAUTHBEARER exchange may have to wait for its token (from an OAuth token endpoint, fetched
 * with the JDK's HTTP client off the event loop): the exchange is created asynchronously, and its
 * first message may be made on the thread the token arrived on, so the {@link Sender} takes
 * requests from any thread (the connection sends them on its event loop). A token that cannot be
 * had fails the login as a refusal does, with the reason and without the client secret.
 */
final class NodeLogin {

    /** How the login sends its own requests on the connection, ahead of the queued ones; from any thread. */
    interface Sender {
        <R extends ApiMessage> CompletableFuture<R> sendNow(ApiMessage request, short version, ResponseReader<R> reader);
    }

    private NodeLogin() {
    }

    /**
     * Completes once the connection is logged in, with the session lifetime in milliseconds the
     * other node gave (0: it does not expire); {@code ssl} is null without TLS or when the
     * connection re-authenticates.
     */
    static CompletableFuture<Long> run(int nodeId, InterBrokerLogin login, SslHandler ssl, Sender sender) {
        CompletableFuture<Void> tls = new CompletableFuture<>();
        if (ssl == null) {
            tls.complete(null);
        } else {
            ssl.handshakeFuture().addListener(f -> {
                if (f.isSuccess()) {
                    tls.complete(null);
                } else {
                    tls.completeExceptionally(new InterBrokerException("the TLS handshake with node " + nodeId
                            + " failed: " + f.cause().getMessage(), f.cause()));
                }
            });
        }
        if (login.mechanism() == null) {
            return tls.thenApply(v -> 0L);
        }
        return tls.thenCompose(v -> sender.sendNow(new SaslHandshakeRequest().mechanism(login.mechanism()), (short) 1,
                SaslHandshakeResponse::read)).thenCompose(hs -> {
                    if (hs.errorCode() != Errors.NONE.code()) {
                        throw new InterBrokerException("node " + nodeId + " refused SASL mechanism " + login.mechanism()
                                + " (" + Errors.forCode(hs.errorCode()) + "; it has " + hs.mechanisms() + ")");
                    }
                    return login.newExchange().exceptionally(e -> {
                        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                        throw new InterBrokerException("logging in to node " + nodeId + " as " + login.username()
                                + " with " + login.mechanism() + " failed: " + cause.getMessage(), cause);
                    }).thenCompose(exchange -> round(nodeId, login, exchange, null, 0, sender));
                });
    }

    private static CompletableFuture<Long> round(int nodeId, InterBrokerLogin login, SaslClientExchange exchange,
            byte[] serverMessage, long lifetimeMs, Sender sender) {
        byte[] next;
        try {
            next = exchange.next(serverMessage);
        } catch (AuthenticationFailure e) {
            return CompletableFuture.failedFuture(new InterBrokerException("logging in to node " + nodeId + " as "
                    + login.username() + " with " + login.mechanism() + " failed: " + e.getMessage(), e));
        }
        if (next == null) {
            return CompletableFuture.completedFuture(lifetimeMs);
        }
        return sender.sendNow(new SaslAuthenticateRequest().authBytes(next), (short) 2, SaslAuthenticateResponse::read)
                .thenCompose(r -> {
                    if (r.errorCode() != Errors.NONE.code()) {
                        throw new InterBrokerException("node " + nodeId + " refused the login of " + login.username()
                                + " with " + login.mechanism() + ": " + Errors.forCode(r.errorCode())
                                + (r.errorMessage() == null ? "" : " (" + r.errorMessage() + ")"));
                    }
                    return round(nodeId, login, exchange, r.authBytes(), Math.max(0, r.sessionLifetimeMs()), sender);
                });
    }
}
