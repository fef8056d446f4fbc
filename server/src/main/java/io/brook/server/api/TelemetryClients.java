package io.brook.server.api;

import io.brook.server.network.RequestContext;
import io.brook.server.security.Session;
import io.brook.server.telemetry.ClientSelector;
import java.net.InetSocketAddress;

/** The {@link ClientSelector} of the client that sent a request (its instance id is filled in later). */
final class TelemetryClients {

    private TelemetryClients() {
    }

    static ClientSelector of(RequestContext ctx) {
        Session session = ctx.session();
        String name = session == null ? Session.UNKNOWN_SOFTWARE : session.clientSoftwareName();
        String version = session == null ? Session.UNKNOWN_SOFTWARE : session.clientSoftwareVersion();
        String address = "";
        int port = -1;
        if (ctx.clientAddress() instanceof InetSocketAddress a) {
            address = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
            port = a.getPort();
        }
        return new ClientSelector(null, ctx.clientId(), name, version, address, port);
    }
}
