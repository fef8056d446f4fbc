package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterAdminException;
import io.brook.server.security.quota.ClientQuotas;
import io.brook.server.security.quota.MutationQuota;
import io.brook.server.topic.Topic;
import io.brook.server.topic.Topics;
import io.brook.wire.message.CreatePartitionsRequest;
import io.brook.wire.message.CreatePartitionsRequest.CreatePartitionsAssignment;
import io.brook.wire.message.CreatePartitionsRequest.CreatePartitionsTopic;
import io.brook.wire.message.CreatePartitionsResponse;
import io.brook.wire.message.CreatePartitionsResponse.CreatePartitionsTopicResult;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * CreatePartitions (key 37): grows a topic to {@code count} partitions; never shrinks. A manual
 * assignment of the new partitions may only name this node (in cluster mode: one replica per
 * partition, on any broker the controller knows). In cluster mode the controller places the new
 * partitions (or checks and takes the assignment) and the answer waits until this node's image
 * has them; validation and {@code validate_only} stay local.
 *
 * <p>Each valid topic is charged the partitions it gains to the client's
 * {@code controller_mutation_rate} quota ({@link MutationQuota}), in request order, strictly from
 * v3 (a topic refused answers THROTTLING_QUOTA_EXCEEDED and does not grow), permissively before;
 * {@code validate_only} requests are charged too, as Kafka's controller charges them. In cluster
 * mode this node charges the request it received, before the controller decides.
 */
final class CreatePartitionsHandler implements ApiHandler<CreatePartitionsRequest> {

    /** The first version whose clients know THROTTLING_QUOTA_EXCEEDED (KIP-599). */
    private static final short STRICT_QUOTA_SINCE = 3;

    private final BrokerContext broker;
    private final ClientQuotas quotas;

    CreatePartitionsHandler(BrokerContext broker, ClientQuotas quotas) {
        this.broker = broker;
        this.quotas = quotas;
    }

    @Override
    public void handle(RequestContext ctx, CreatePartitionsRequest request) {
        Map<String, Integer> counts = new HashMap<>();
        for (CreatePartitionsTopic t : request.topics()) {
            counts.merge(t.name(), 1, Integer::sum);
        }
        List<CreatePartitionsTopicResult> results = new ArrayList<>();
        List<CompletableFuture<?>> decisions = new ArrayList<>();
        MutationQuota quota = quotas.mutations(ctx.session().principal(), ctx.clientId(),
                ctx.apiVersion() >= STRICT_QUOTA_SINCE);
        // Kafka's controller refuses every topic of a request that adds this many partitions
        long added = 0;
        for (CreatePartitionsTopic t : request.topics()) {
            Topic topic = counts.get(t.name()) > 1 ? null : broker.topics().get(t.name());
            if (topic != null && t.count() > topic.partitions()) {
                added += t.count() - topic.partitions();
            }
        }
        Set<String> duplicates = new HashSet<>();
        for (CreatePartitionsTopic t : request.topics()) {
            CreatePartitionsTopicResult r = new CreatePartitionsTopicResult().name(t.name());
            if (counts.get(t.name()) > 1) {
                // one answer for the name, as Kafka's (clients refuse a response naming a topic twice)
                if (duplicates.add(t.name())) {
                    results.add(fail(r, Errors.INVALID_REQUEST, "Duplicate topic name."));
                }
                continue;
            }
            if (added > Topics.MAX_PARTITIONS_PER_REQUEST) {
                results.add(fail(r, Errors.POLICY_VIOLATION, "Excessively large number of additional partitions per"
                        + " request."));
                continue;
            }
            results.add(grow(t, r, broker, request.validateOnly(), quota, decisions));
        }
        CompletableFuture.allOf(decisions.toArray(new CompletableFuture<?>[0]))
                .whenComplete((v, e) -> MutationThrottle.respond(ctx, quota,
                        new CreatePartitionsResponse().results(results)));
    }

    private static CreatePartitionsTopicResult grow(CreatePartitionsTopic t, CreatePartitionsTopicResult r,
            BrokerContext broker, boolean validateOnly, MutationQuota quota, List<CompletableFuture<?>> decisions) {
        Topics topics = broker.topics();
        Topic topic = topics.get(t.name());
        if (topic == null) {
            return fail(r, Errors.UNKNOWN_TOPIC_OR_PARTITION, "The topic '" + t.name() + "' does not exist.");
        }
        if (topic.isInternal()) {
            return fail(r, Errors.INVALID_REQUEST, "Partitions cannot be added to internal topic " + t.name() + ".");
        }
        int current = topic.partitions();
        if (t.count() < current) {
            return fail(r, Errors.INVALID_PARTITIONS, "Topic currently has " + current
                    + " partitions, which is higher than the requested " + t.count() + ".");
        }
        if (t.count() == current) {
            return fail(r, Errors.INVALID_PARTITIONS, "Topic already has " + current + " partitions.");
        }
        if (t.count() > Topics.MAX_PARTITIONS) {
            return fail(r, Errors.INVALID_PARTITIONS, "Number of partitions " + t.count()
                    + " exceeds Brook's limit of " + Topics.MAX_PARTITIONS + " per topic.");
        }
        List<CreatePartitionsAssignment> assignments = t.assignments();
        if (assignments != null) {
            if (assignments.size() != t.count() - current) {
                return fail(r, Errors.INVALID_REPLICA_ASSIGNMENT, "Increasing the number of partitions by "
                        + (t.count() - current) + " but " + assignments.size() + " assignments provided.");
            }
            for (CreatePartitionsAssignment a : assignments) {
                if (broker.cluster() != null) {
                    // any broker (the controller checks that it is registered), one replica
                    if (a.brokerIds().size() != 1) {
                        return fail(r, Errors.INVALID_REPLICATION_FACTOR, "Unable to replicate the partition "
                                + a.brokerIds().size() + " time(s): Brook does not replicate partitions yet;"
                                + " each partition must name exactly one broker.");
                    }
                } else if (!a.brokerIds().equals(List.of(broker.nodeId()))) {
                    return fail(r, Errors.INVALID_REPLICA_ASSIGNMENT, "Every new partition must be assigned to"
                            + " exactly this broker (" + broker.nodeId() + ").");
                }
            }
        }
        if (!quota.charge(t.count() - current)) {
            return fail(r, Errors.THROTTLING_QUOTA_EXCEEDED, MutationThrottle.EXCEEDED);
        }
        if (!validateOnly && broker.cluster() != null) {
            CompletableFuture<Void> added = assignments == null ? broker.cluster().createPartitions(t.name(), t.count())
                    : broker.cluster().createPartitions(t.name(), t.count(),
                            assignments.stream().map(CreatePartitionsAssignment::brokerIds).toList());
            decisions.add(added.handle((v, e) -> {
                if (e != null) {
                    fail(r, ClusterAdminException.errorOf(e), ClusterAdminException.messageOf(e));
                }
                return null;
            }));
        } else if (!validateOnly) {
            try {
                topics.addPartitions(t.name(), t.count());
            } catch (Topics.NoFilesException e) {
                return fail(r, Errors.POLICY_VIOLATION, e.getMessage());
            }
        }
        return r.errorCode(Errors.NONE.code()).errorMessage(null);
    }

    private static CreatePartitionsTopicResult fail(CreatePartitionsTopicResult r, Errors error, String message) {
        return r.errorCode(error.code()).errorMessage(message);
    }
}
