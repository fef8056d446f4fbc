package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.telemetry.ClientTelemetry;
import io.brook.wire.message.GetTelemetrySubscriptionsRequest;

/** GetTelemetrySubscriptions (key 71, KIP-714): the client's metrics subscription ({@link ClientTelemetry}). */
final class GetTelemetrySubscriptionsHandler implements ApiHandler<GetTelemetrySubscriptionsRequest> {

    private final ClientTelemetry telemetry;

    GetTelemetrySubscriptionsHandler(ClientTelemetry telemetry) {
        this.telemetry = telemetry;
    }

    @Override
    public void handle(RequestContext ctx, GetTelemetrySubscriptionsRequest request) {
        ctx.respond(telemetry.subscriptions(request.clientInstanceId(), TelemetryClients.of(ctx)));
    }
}
