package io.brook.server.api;

import io.brook.server.network.RequestContext;
import io.brook.server.security.quota.MutationQuota;
import io.brook.wire.protocol.ApiMessage;

/**
 * How CreateTopics, CreatePartitions and DeleteTopics answer under a {@code controller_mutation_rate}
 * quota (KIP-599): a topic refused by a strict {@link MutationQuota} carries THROTTLING_QUOTA_EXCEEDED
 * with Kafka's message, and the answer carries the quota's throttle time, for which the connection
 * is then not read (KIP-219), as for the other quotas. A request_percentage throttle added when
 * the answer is sent wins when it is longer.
 */
final class MutationThrottle {

    /** Kafka's message for THROTTLING_QUOTA_EXCEEDED. */
    static final String EXCEEDED = "The throttling quota has been exceeded.";

    private MutationThrottle() {
    }

    /** Answers {@code ctx} with {@code response}, throttled as {@code quota} asks. */
    static void respond(RequestContext ctx, MutationQuota quota, ApiMessage response) {
        int ms = quota.throttleMs();
        if (ms > 0) {
            response.raiseThrottleTimeMs(ms);
            ctx.throttle(ms);
        }
        ctx.respond(response);
    }
}
