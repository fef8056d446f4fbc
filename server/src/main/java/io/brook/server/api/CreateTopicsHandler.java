package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterAdminException;
import io.brook.server.node.ClusterView;
import io.brook.server.security.quota.ClientQuotas;
import io.brook.server.security.quota.MutationQuota;
import io.brook.server.topic.TopicConfigResolver;
import io.brook.server.topic.TopicNames;
import io.brook.server.topic.Topics;
import io.brook.server.topic.Topics.Creation;
import io.brook.server.topic.Topics.NewTopic;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableReplicaAssignment;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopicConfig;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.CreateTopicsResponse.CreatableTopicConfigs;
import io.brook.wire.message.CreateTopicsResponse.CreatableTopicResult;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * CreateTopics (key 19): per topic, in request order; a name the request repeats is answered
 * once, INVALID_REQUEST, and not created, as in Kafka. {@code -1} partitions or replication
 * factor mean the broker defaults; a replication factor above 1 cannot be met by one node;
 * manual assignments may only name this node (in cluster mode: one replica per partition, on any
 * broker). With {@code validate_only} nothing is created but
 * the answer is the one a real creation would give. v5+ answers carry the topic's effective
 * configs, v7+ its id.
 *
 * <p>In cluster mode the controller creates the topic (placement over the live brokers, or the
 * manual assignment, whose brokers it checks) and the
 * answer waits until this node's metadata image has it; the controller's refusals answer with
 * its Kafka error. Validation, and {@code validate_only}, stay local.
 *
 * <p>Each valid topic is charged its partitions to the client's {@code controller_mutation_rate}
 * quota ({@link MutationQuota}), in request order, strictly from v6 (a topic refused answers
 * THROTTLING_QUOTA_EXCEEDED and is not created), permissively before; {@code validate_only}
 * requests are charged too, as Kafka's controller charges them. In cluster mode this node
 * charges the request it received, before the controller decides; a topic the controller then
 * refuses stays charged.
 */
final class CreateTopicsHandler implements ApiHandler<CreateTopicsRequest> {

    /** The first version whose clients know THROTTLING_QUOTA_EXCEEDED (KIP-599). */
    private static final short STRICT_QUOTA_SINCE = 6;

    private final BrokerContext broker;
    private final ClientQuotas quotas;

    CreateTopicsHandler(BrokerContext broker, ClientQuotas quotas) {
        this.broker = broker;
        this.quotas = quotas;
    }

    @Override
    public void handle(RequestContext ctx, CreateTopicsRequest request) {
        short version = ctx.apiVersion();
        Map<String, Integer> counts = new HashMap<>();
        for (CreatableTopic t : request.topics()) {
            counts.merge(t.name(), 1, Integer::sum);
        }
        List<CreatableTopicResult> results = new ArrayList<>();
        List<Pending> valid = new ArrayList<>();
        // Kafka's controller refuses every topic of a request that asks for this many partitions
        boolean tooLarge = requestedPartitions(request, counts) > Topics.MAX_PARTITIONS_PER_REQUEST;
        Set<String> duplicates = new HashSet<>();
        for (CreatableTopic t : request.topics()) {
            if (counts.get(t.name()) > 1) {
                // one answer for the name, as Kafka's (clients refuse a response naming a topic twice)
                if (duplicates.add(t.name())) {
                    CreatableTopicResult r = new CreatableTopicResult().name(t.name());
                    results.add(r);
                    fail(r, Errors.INVALID_REQUEST, "Duplicate topic name.");
                }
                continue;
            }
            CreatableTopicResult r = new CreatableTopicResult().name(t.name());
            results.add(r);
            if (tooLarge) {
                fail(r, Errors.POLICY_VIOLATION, "Excessively large number of partitions per request.");
                continue;
            }
            NewTopic n = validate(t, r, broker);
            if (n != null) {
                valid.add(new Pending(r, n, replicasOf(t)));
            }
        }
        MutationQuota quota = quotas.mutations(ctx.session().principal(), ctx.clientId(),
                version >= STRICT_QUOTA_SINCE);
        for (Iterator<Pending> it = valid.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (!quota.charge(p.topic().partitions())) {
                fail(p.result(), Errors.THROTTLING_QUOTA_EXCEEDED, MutationThrottle.EXCEEDED);
                it.remove();
            }
        }
        if (broker.cluster() != null && !request.validateOnly() && !valid.isEmpty()) {
            createInCluster(ctx, valid, results, version, quota);
            return;
        }
        Map<String, Creation> created = request.validateOnly() || valid.isEmpty() ? Map.of()
                : broker.topics().createAll(valid.stream().map(Pending::topic).toList());
        for (Pending p : valid) {
            CreatableTopicResult r = p.result();
            NewTopic n = p.topic();
            if (!request.validateOnly()) {
                Creation c = created.get(n.name());
                if (c.error() != null) {
                    fail(r, c.collision() ? Errors.INVALID_TOPIC_EXCEPTION
                            : c.noFiles() ? Errors.POLICY_VIOLATION : Errors.UNKNOWN_SERVER_ERROR, c.error());
                    continue;
                }
                if (!c.created()) {
                    fail(r, Errors.TOPIC_ALREADY_EXISTS, "Topic '" + n.name() + "' already exists.");
                    continue;
                }
                r.topicId(c.topic().id());
            }
            succeed(r, n, broker.topics(), version);
        }
        MutationThrottle.respond(ctx, quota, new CreateTopicsResponse().topics(results));
    }

    /**
     * The partitions the request asks for, counted as Kafka's controller counts them (a topic the
     * request repeats left out): its assignments, else its partition count ({@code -1}: the
     * broker's default; below that: none).
     */
    private long requestedPartitions(CreateTopicsRequest request, Map<String, Integer> counts) {
        long total = 0;
        for (CreatableTopic t : request.topics()) {
            if (counts.get(t.name()) > 1) {
                continue;
            }
            List<CreatableReplicaAssignment> a = t.assignments();
            total += a != null && !a.isEmpty() ? a.size()
                    : t.numPartitions() == -1 ? broker.config().numPartitions() : Math.max(0, t.numPartitions());
        }
        return total;
    }

    /** Cluster mode: each valid topic created by the controller; answers once all are decided. */
    private void createInCluster(RequestContext ctx, List<Pending> valid, List<CreatableTopicResult> results,
            short version, MutationQuota quota) {
        ClusterView cluster = broker.cluster();
        List<CompletableFuture<Void>> decisions = new ArrayList<>(valid.size());
        for (Pending p : valid) {
            NewTopic n = p.topic();
            CompletableFuture<Void> created = p.assignment().isEmpty()
                    ? cluster.createTopic(n.name(), n.partitions(), 1, n.configs())
                    : cluster.createTopic(n.name(), p.assignment(), n.configs());
            decisions.add(created.handle((v, e) -> {
                if (e != null) {
                    fail(p.result(), ClusterAdminException.errorOf(e), ClusterAdminException.messageOf(e));
                } else {
                    ClusterView.TopicState t = cluster.topic(n.name());
                    if (t != null) {
                        p.result().topicId(t.id());
                    }
                    succeed(p.result(), n, broker.topics(), version);
                }
                return null;
            }));
        }
        CompletableFuture.allOf(decisions.toArray(new CompletableFuture<?>[0]))
                .whenComplete((v, e) -> MutationThrottle.respond(ctx, quota,
                        new CreateTopicsResponse().topics(results)));
    }

    /**
     * A valid topic of the request, its manual assignment (empty: none) and its answer, filled in
     * once the batch is created.
     */
    private record Pending(CreatableTopicResult result, NewTopic topic, List<List<Integer>> assignment) {
    }

    /** The replicas of each partition a manual assignment names, in partition order; empty when none. */
    private static List<List<Integer>> replicasOf(CreatableTopic t) {
        List<CreatableReplicaAssignment> a = t.assignments();
        return a == null ? List.of() : a.stream().map(CreatableReplicaAssignment::brokerIds).toList();
    }

    /** The topic to create, or null when the request for it is invalid (then {@code r} says why). */
    private static NewTopic validate(CreatableTopic t, CreatableTopicResult r, BrokerContext broker) {
        Topics topics = broker.topics();
        String bad = TopicNames.invalidNameReason(t.name());
        if (bad != null) {
            return fail(r, Errors.INVALID_TOPIC_EXCEPTION, bad);
        }
        if (topics.get(t.name()) != null || (broker.cluster() != null && broker.cluster().topic(t.name()) != null)) {
            return fail(r, Errors.TOPIC_ALREADY_EXISTS, "Topic '" + t.name() + "' already exists.");
        }
        String colliding = topics.collidingTopic(t.name());
        if (colliding != null) {
            return fail(r, Errors.INVALID_TOPIC_EXCEPTION,
                    "Topic '" + t.name() + "' collides with existing topic: " + colliding);
        }
        if (TopicNames.isInternal(t.name())) {
            // the broker creates these itself, with the layout its coordinators rely on
            return fail(r, Errors.INVALID_REQUEST, "Creation of internal topic " + t.name() + " is prohibited.");
        }
        int partitions;
        List<CreatableReplicaAssignment> assignments = t.assignments();
        if (assignments != null && !assignments.isEmpty()) {
            if (t.numPartitions() != -1 || t.replicationFactor() != -1) {
                return fail(r, Errors.INVALID_REQUEST, "Both numPartitions or replicationFactor and"
                        + " replicasAssignments were set. Both cannot be used at the same time.");
            }
            for (int i = 0; i < assignments.size(); i++) {
                CreatableReplicaAssignment a = assignments.get(i);
                if (broker.cluster() != null) {
                    // any broker (the controller checks that it is registered), one replica
                    if (a.partitionIndex() != i) {
                        return fail(r, Errors.INVALID_REPLICA_ASSIGNMENT, "Partitions must be numbered 0.."
                                + (assignments.size() - 1) + " in order; partition " + a.partitionIndex()
                                + " came at position " + i);
                    }
                    if (a.brokerIds().size() != 1) {
                        return fail(r, Errors.INVALID_REPLICATION_FACTOR, "Unable to replicate the partition "
                                + a.brokerIds().size() + " time(s): Brook does not replicate partitions yet;"
                                + " each partition must name exactly one broker.");
                    }
                } else if (a.partitionIndex() != i || !a.brokerIds().equals(List.of(broker.nodeId()))) {
                    return fail(r, Errors.INVALID_REPLICA_ASSIGNMENT, "Partition " + a.partitionIndex()
                            + " must be assigned to exactly this broker (" + broker.nodeId()
                            + "), with partition indexes 0.." + (assignments.size() - 1));
                }
            }
            partitions = assignments.size();
        } else {
            partitions = t.numPartitions() == -1 ? broker.config().numPartitions() : t.numPartitions();
            if (partitions < 1) {
                return fail(r, Errors.INVALID_PARTITIONS, "Number of partitions must be larger than 0.");
            }
            short rf = t.replicationFactor() == -1 ? broker.config().defaultReplicationFactor() : t.replicationFactor();
            if (rf < 1) {
                return fail(r, Errors.INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0.");
            }
            if (rf > 1 && broker.cluster() != null) {
                return fail(r, Errors.INVALID_REPLICATION_FACTOR, "Unable to replicate the partition " + rf
                        + " time(s): Brook does not replicate partitions yet; the replication factor must be 1.");
            }
            if (rf > 1) {
                return fail(r, Errors.INVALID_REPLICATION_FACTOR, "Unable to replicate the partition " + rf
                        + " time(s): The target replication factor of " + rf
                        + " cannot be reached because only 1 broker(s) are registered.");
            }
        }
        if (partitions > Topics.MAX_PARTITIONS) {
            return fail(r, Errors.INVALID_PARTITIONS, "Number of partitions " + partitions
                    + " exceeds Brook's limit of " + Topics.MAX_PARTITIONS + " per topic.");
        }
        Map<String, String> configs = new LinkedHashMap<>();
        for (CreatableTopicConfig c : t.configs()) {
            if (c.value() == null) {
                return fail(r, Errors.INVALID_CONFIG, "Null value not supported for topic config " + c.name());
            }
            configs.put(c.name(), c.value());
        }
        String invalid = topics.configs().invalid(configs);
        if (invalid != null) {
            return fail(r, Errors.INVALID_CONFIG, invalid);
        }
        return new NewTopic(t.name(), partitions, configs);
    }

    private static void succeed(CreatableTopicResult r, NewTopic n, Topics topics, short version) {
        r.errorCode(Errors.NONE.code()).errorMessage(null);
        if (version >= 5) {
            r.numPartitions(n.partitions()).replicationFactor((short) 1);
            List<CreatableTopicConfigs> described = new ArrayList<>();
            for (TopicConfigResolver.Described d : topics.configs().describe(n.configs())) {
                described.add(new CreatableTopicConfigs().name(d.name()).value(d.value()).readOnly(false)
                        .configSource(d.source()).isSensitive(false));
            }
            r.configs(described);
        }
    }

    private static NewTopic fail(CreatableTopicResult r, Errors error, String message) {
        r.errorCode(error.code()).errorMessage(message);
        return null;
    }
}
