package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.telemetry.ClientTelemetry;
import io.brook.wire.message.PushTelemetryRequest;
import io.brook.wire.message.PushTelemetryResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PushTelemetry (key 72, KIP-714): a client's metrics, kept by {@link ClientTelemetry} for the
 * Prometheus endpoint. A refused push is answered with its error only; the connection goes on.
 */
final class PushTelemetryHandler implements ApiHandler<PushTelemetryRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(PushTelemetryHandler.class);

    private final ClientTelemetry telemetry;

    PushTelemetryHandler(ClientTelemetry telemetry) {
        this.telemetry = telemetry;
    }

    @Override
    public void handle(RequestContext ctx, PushTelemetryRequest request) {
        ClientTelemetry.PushResult r = telemetry.push(request, TelemetryClients.of(ctx));
        if (r.message() != null) {
            LOG.debug("PushTelemetry from {}: {} ({})", ctx.clientHost(), r.error(), r.message());
        }
        ctx.respond(new PushTelemetryResponse().errorCode(r.error().code()));
    }
}
