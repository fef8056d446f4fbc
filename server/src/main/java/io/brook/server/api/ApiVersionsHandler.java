package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.ApiTable;
import io.brook.server.network.RequestContext;
import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.regex.Pattern;

/**
 * ApiVersions (key 18), answered from the {@link ApiTable}: every registered key with its
 * advertised range, nothing else — no finalized features, so Java clients use the classic
 * transaction protocol rather than KIP-890's.
 *
 * <p>A version newer than we serve never reaches this handler: the network layer answers it
 * (KIP-511) with a v0 body that carries UNSUPPORTED_VERSION and our ApiVersions range.
 */
final class ApiVersionsHandler implements ApiHandler<ApiVersionsRequest> {

    /** KIP-511's rule for client_software_name and client_software_version (v3+). */
    private static final Pattern SOFTWARE = Pattern.compile("[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?");

    @Override
    public void handle(RequestContext ctx, ApiVersionsRequest request) {
        if (ctx.apiVersion() >= 3 && !(valid(request.clientSoftwareName()) && valid(request.clientSoftwareVersion()))) {
            ctx.respond(request.errorResponse(ctx.apiVersion(), Errors.INVALID_REQUEST));
            return;
        }
        ctx.respond(ctx.apis().apiVersionsResponse());
    }

    private static boolean valid(String s) {
        return s != null && SOFTWARE.matcher(s).matches();
    }
}
