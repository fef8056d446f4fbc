package io.brook.server;

import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.message.ApiVersionsResponse.ApiVersion;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * ApiVersions (key 18), answered from the {@link ApiTable}: every registered key with its
 * advertised range, nothing else — no finalized features (so Java clients use classic
 * transactions, protocol.md §1.3).
 *
 * <p>A version newer than we know is answered by the network layer through
 * {@link #errorResponse}: a v0 body with UNSUPPORTED_VERSION and only the ApiVersions entry, which
 * every client family reads to retry at our maximum (protocol.md §3.4).
 */
final class ApiVersionsHandler implements ApiHandler<ApiVersionsRequest> {

    /** KIP-511's rule for client_software_name and client_software_version (v3+). */
    private static final Pattern SOFTWARE = Pattern.compile("[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?");

    private volatile ApiVersionsResponse cached;

    @Override
    public void handle(RequestContext ctx, ApiVersionsRequest request) {
        if (ctx.apiVersion() >= 3 && !(valid(request.clientSoftwareName()) && valid(request.clientSoftwareVersion()))) {
            ctx.respond(errorResponse(request, ctx.apiVersion(), Errors.INVALID_REQUEST));
            return;
        }
        ApiVersionsResponse response = cached;
        if (response == null) {
            response = build(ctx.apis());
            cached = response;
        }
        // shared instance: responses are only read while being encoded
        ctx.respond(response);
    }

    private static boolean valid(String s) {
        return s != null && SOFTWARE.matcher(s).matches();
    }

    static ApiVersionsResponse build(ApiTable apis) {
        List<ApiVersion> keys = new ArrayList<>();
        for (ApiTable.Entry<?> e : apis.entries()) {
            keys.add(new ApiVersion().apiKey(e.key.id()).minVersion(e.advertisedMin).maxVersion(e.advertisedMax));
        }
        return new ApiVersionsResponse().errorCode(Errors.NONE.code()).apiKeys(keys);
    }

    @Override
    public ApiMessage errorResponse(ApiVersionsRequest request, short version, Errors error) {
        List<ApiVersion> keys = new ArrayList<>(1);
        if (error == Errors.UNSUPPORTED_VERSION) {
            keys.add(new ApiVersion().apiKey(ApiKey.API_VERSIONS.id())
                    .minVersion(ApiKey.API_VERSIONS.advertisedMin()).maxVersion(ApiKey.API_VERSIONS.advertisedMax()));
        }
        return new ApiVersionsResponse().errorCode(error.code()).apiKeys(keys);
    }
}
