package io.brook.server.security.quota;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The cluster's metadata log as the keeper of the client-quota settings (cluster mode): a change
 * completes once it is committed and applied on this node, after this node's
 * {@link ClientQuotaStore} was given the new settings. Part of
 * {@code io.brook.server.security.SecurityMetadataLog}.
 */
public interface QuotaLog {

    /** Sets or removes client-quota settings. */
    CompletableFuture<Void> changeQuotas(List<ClientQuotaStore.Change> changes);
}
