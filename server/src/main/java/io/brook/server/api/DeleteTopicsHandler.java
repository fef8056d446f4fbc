package io.brook.server.api;

import io.brook.server.config.BrokerConfig;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterAdminException;
import io.brook.server.security.quota.ClientQuotas;
import io.brook.server.security.quota.MutationQuota;
import io.brook.server.topic.Topic;
import io.brook.server.topic.Topics;
import io.brook.wire.message.DeleteTopicsRequest;
import io.brook.wire.message.DeleteTopicsRequest.DeleteTopicState;
import io.brook.wire.message.DeleteTopicsResponse;
import io.brook.wire.message.DeleteTopicsResponse.DeletableTopicResult;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * DeleteTopics (key 20): by name (v1–5 {@code topic_names}, v6 {@code topics[].name}) or by id
 * (v6); a name or id the request repeats is answered once, INVALID_REQUEST, and not deleted, as
 * in Kafka. The topic is gone from the registry, and its logs deleted, before the answer is sent. In
 * cluster mode the controller deletes it, and the answer waits until this node's image and
 * topics no longer have it (the other nodes delete their logs as their images follow).
 *
 * <p>Each topic about to be deleted is charged its partitions to the client's
 * {@code controller_mutation_rate} quota ({@link MutationQuota}), in request order, strictly from
 * v5 (a topic refused answers THROTTLING_QUOTA_EXCEEDED and is kept), permissively before. In
 * cluster mode this node charges the request it received, before the controller decides.
 */
final class DeleteTopicsHandler implements ApiHandler<DeleteTopicsRequest> {

    private static final UUID ZERO = new UUID(0, 0);
    /** The first version whose clients know THROTTLING_QUOTA_EXCEEDED (KIP-599). */
    private static final short STRICT_QUOTA_SINCE = 5;

    private final BrokerContext broker;
    private final ClientQuotas quotas;

    DeleteTopicsHandler(BrokerContext broker, ClientQuotas quotas) {
        this.broker = broker;
        this.quotas = quotas;
    }

    @Override
    public void handle(RequestContext ctx, DeleteTopicsRequest request) {
        short version = ctx.apiVersion();
        Topics topics = broker.topics();
        boolean enabled = broker.config().bool(BrokerConfig.DELETE_TOPIC_ENABLE);
        List<DeletableTopicResult> results = new ArrayList<>();
        List<CompletableFuture<?>> decisions = new ArrayList<>();
        MutationQuota quota = quotas.mutations(ctx.session().principal(), ctx.clientId(),
                version >= STRICT_QUOTA_SINCE);
        List<DeleteTopicState> wanted = wanted(request, version);
        Map<Object, Integer> counts = new HashMap<>();
        for (DeleteTopicState want : wanted) {
            counts.merge(key(want), 1, Integer::sum);
        }
        Set<Object> duplicates = new HashSet<>();
        for (DeleteTopicState want : wanted) {
            DeletableTopicResult r = new DeletableTopicResult().name(want.name()).topicId(ZERO);
            if (counts.get(key(want)) > 1) {
                // one answer for the name (or id), as Kafka's; none of them is deleted
                if (duplicates.add(key(want))) {
                    if (want.name() == null) {
                        r.topicId(want.topicId() == null ? ZERO : want.topicId());
                    }
                    results.add(fail(r, Errors.INVALID_REQUEST,
                            want.name() != null ? "Duplicate topic name." : "Duplicate topic id."));
                }
                continue;
            }
            Topic t;
            if (want.name() != null) {
                t = topics.get(want.name());
                if (t == null) {
                    results.add(fail(r, Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic."));
                    continue;
                }
            } else {
                t = want.topicId() == null || ZERO.equals(want.topicId()) ? null : topics.get(want.topicId());
                r.topicId(want.topicId() == null ? ZERO : want.topicId());
                if (t == null) {
                    results.add(fail(r, Errors.UNKNOWN_TOPIC_ID, "This server does not host this topic ID."));
                    continue;
                }
                r.name(t.name());
            }
            if (version >= 6) {
                r.topicId(t.id());
            }
            if (t.isInternal()) {
                results.add(fail(r, Errors.INVALID_TOPIC_EXCEPTION, "Internal topic " + t.name() + " cannot be deleted."));
                continue;
            }
            if (!enabled) {
                results.add(fail(r, Errors.TOPIC_DELETION_DISABLED, "Topic deletion is disabled."));
                continue;
            }
            if (!quota.charge(t.partitions())) {
                results.add(fail(r, Errors.THROTTLING_QUOTA_EXCEEDED, MutationThrottle.EXCEEDED));
                continue;
            }
            if (broker.cluster() != null) {
                results.add(r);
                String name = t.name();
                decisions.add(broker.cluster().deleteTopic(name).handle((v, e) -> {
                    if (e != null) {
                        fail(r, ClusterAdminException.errorOf(e), ClusterAdminException.messageOf(e));
                    } else {
                        broker.metrics().topicDeleted(name);
                        r.errorCode(Errors.NONE.code());
                    }
                    return null;
                }));
                continue;
            }
            if (!topics.delete(t.name())) {
                results.add(fail(r, Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic."));
                continue;
            }
            broker.metrics().topicDeleted(t.name());
            results.add(r.errorCode(Errors.NONE.code()));
        }
        CompletableFuture.allOf(decisions.toArray(new CompletableFuture<?>[0]))
                .whenComplete((v, e) -> MutationThrottle.respond(ctx, quota,
                        new DeleteTopicsResponse().responses(results)));
    }

    /** What names a topic to delete: its name, or (v6+, without one) its id. */
    private static Object key(DeleteTopicState want) {
        return want.name() != null ? want.name() : want.topicId() == null ? ZERO : want.topicId();
    }

    private static List<DeleteTopicState> wanted(DeleteTopicsRequest request, short version) {
        if (version >= 6) {
            return request.topics();
        }
        List<DeleteTopicState> list = new ArrayList<>();
        for (String name : request.topicNames()) {
            list.add(new DeleteTopicState().name(name));
        }
        return list;
    }

    private static DeletableTopicResult fail(DeletableTopicResult r, Errors error, String message) {
        return r.errorCode(error.code()).errorMessage(message);
    }
}
