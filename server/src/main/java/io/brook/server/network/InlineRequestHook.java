package io.brook.server.network;

import java.util.concurrent.Executor;

/**
 * Called on an event loop before a request runs on it (inline requests, see {@link NetworkServer}),
 * with that loop's executor: the broker uses it to hold the force requests of produce appends
 * until the loop's round of reads is over, so that the requests of one round share a force per
 * partition instead of one each. The network layer only calls it; what it does is the caller's.
 */
@FunctionalInterface
public interface InlineRequestHook {
    /** Does nothing. */
    InlineRequestHook NONE = loop -> { };

    /** Runs on the event loop whose executor {@code loop} is, before a request runs there. */
    void beforeRun(Executor loop);
}
