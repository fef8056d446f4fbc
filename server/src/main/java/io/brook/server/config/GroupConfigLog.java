package io.brook.server.config;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Cluster mode's keeper of the groups' own settings: the cluster's metadata log, so that the
 * coordinator of a group, on whichever node, applies what was set through any node. The future
 * completes once the change is committed and applied on this node (its {@link GroupConfigStore}
 * holds it). On a single node nothing implements this: the store keeps its own file.
 */
public interface GroupConfigLog {

    /** Replaces group {@code group}'s settings with {@code settings} (empty: it has none any more). */
    CompletableFuture<Void> changeGroupConfigs(String group, Map<String, String> settings);
}
