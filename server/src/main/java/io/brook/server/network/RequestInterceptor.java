package io.brook.server.network;

/**
 * Sees each request after it was decoded and before its handler runs (on the handler's thread:
 * the event loop or the I/O pool): the seam of the fault hooks' request interception. Installed
 * on the {@link ApiTable} only while a hook needs it; otherwise dispatch costs one volatile read.
 */
@FunctionalInterface
public interface RequestInterceptor {
    /**
     * Looks at {@code request}, may {@linkplain RequestContext#delayAnswer delay its answer}, or
     * answer it itself ({@link RequestContext#respondWithError}).
     *
     * @return true when it answered the request (the handler does not run)
     */
    boolean intercept(RequestContext request);
}
