package io.brook.server.api.security;

import io.brook.server.network.RequestContext;
import io.brook.server.node.ClusterAdminException;
import io.brook.server.security.AclChangeTooLarge;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * How a change of ACLs, SCRAM credentials, delegation tokens or client quotas that failed reaches
 * the client. In cluster mode a change the controller refused, or one no controller took in time
 * (NOT_CONTROLLER, retriable), is answered entry by entry with that error, as Kafka's brokers
 * answer a change their controller did not make. An ACL change too large for one request ({@link
 * AclChangeTooLarge}, on any node) is answered entry by entry with POLICY_VIOLATION, the error of
 * Kafka's controller for an operation of too many records. Any other failure (a single node that
 * could not write its file) fails the request.
 */
record FailedChange(Errors error, String message) {

    /**
     * Answers a change that completed, with {@code failure} null or not: when it failed as a
     * change (a {@link FailedChange}), {@code mark} gives the entries it concerned that error first;
     * any other failure fails the request.
     */
    static void answer(RequestContext ctx, Throwable failure, Consumer<FailedChange> mark,
            Supplier<? extends ApiMessage> response) {
        if (failure != null) {
            FailedChange f = of(failure);
            if (f == null) {
                ctx.fail(failure);
                return;
            }
            mark.accept(f);
        }
        ctx.respond(response.get());
    }

    /** The error to answer each changed entry with, or null when the request fails as a whole. */
    static FailedChange of(Throwable t) {
        Throwable c = t;
        while (c instanceof CompletionException && c.getCause() != null) {
            c = c.getCause();
        }
        if (c instanceof AclChangeTooLarge e) {
            return new FailedChange(Errors.POLICY_VIOLATION, e.getMessage());
        }
        return c instanceof ClusterAdminException e ? new FailedChange(e.error(), e.getMessage()) : null;
    }
}
