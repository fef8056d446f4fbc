package io.brook.server.api;

import io.brook.server.api.security.AuthorizedAnswers;
import io.brook.server.config.Listener;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterView;
import io.brook.server.security.Acl;
import io.brook.server.security.Authorizer;
import io.brook.server.security.quota.ClientQuotas;
import io.brook.server.security.quota.MutationQuota;
import io.brook.server.topic.Topic;
import io.brook.server.topic.TopicNames;
import io.brook.server.topic.Topics;
import io.brook.server.topic.Topics.Creation;
import io.brook.server.topic.Topics.NewTopic;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataRequest.MetadataRequestTopic;
import io.brook.wire.message.MetadataResponse;
import io.brook.wire.message.MetadataResponse.MetadataResponseBroker;
import io.brook.wire.message.MetadataResponse.MetadataResponsePartition;
import io.brook.wire.message.MetadataResponse.MetadataResponseTopic;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Metadata (key 3): on a single node, this broker as the only broker and the controller, every
 * partition led by it at leader epoch 0; in cluster mode the metadata image's brokers,
 * controller and partitions ({@link ClusterMetadata}).
 *
 * <p>Topics: {@code null} (v1+), or an empty list at v0, means all topics; otherwise exactly the
 * topics asked for. A missing topic is created on the spot when the broker allows it
 * ({@code auto.create.topics.enable}), the request allows it ({@code allow_auto_topic_creation},
 * always true before v4) and the name is not internal — never for an all-topics request. The
 * missing topics of one request are created together, synchronously, with one write of the topic
 * registry, so the answer already describes them with no error; one request creates at most
 * {@link Topics#MAX_PARTITIONS_PER_REQUEST} partitions, names past that stay unknown.
 *
 * <p>A request for a few topics that exist is answered on the event loop
 * ({@link #runsOnEventLoop}): clients ask for the topics they use, often, and each hand-off to
 * the I/O pool and back costs more than the answer.
 */
final class MetadataHandler implements ApiHandler<MetadataRequest> {

    /** Authorized-operation bits (1 << AclOperation code) of a topic: everything, as there are no ACLs. */
    static final int TOPIC_OPERATIONS = (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8)
            | (1 << 10) | (1 << 11);
    /** Cluster-level bits (create, alter, describe, cluster action, describe/alter configs, idempotent write). */
    static final int CLUSTER_OPERATIONS = (1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12);
    private static final UUID ZERO_UUID = new UUID(0, 0);

    private final BrokerContext broker;
    private final Authorizer authorizer;
    private final ClientQuotas quotas;
    /** Cluster mode: the topics whose auto-creation this broker has asked the controller for and not heard back. */
    private final Set<String> creatingInCluster = ConcurrentHashMap.newKeySet();

    MetadataHandler(BrokerContext broker) {
        this(broker, null, ClientQuotas.none());
    }

    /**
     * With an enabled {@code authorizer}, as Kafka: the topics the client may not DESCRIBE are
     * left out of an all-topics answer and answered TOPIC_AUTHORIZATION_FAILED when named, and a
     * missing topic is auto-created only with CREATE on the cluster or the topic; the authorized
     * operations (KIP-430) are those the ACLs allow. The partitions of the topics it auto-creates
     * are charged to the client's {@code controller_mutation_rate} in {@code quotas}, permissively
     * (nothing refused, the answer not throttled), as Kafka charges them.
     */
    MetadataHandler(BrokerContext broker, Authorizer authorizer, ClientQuotas quotas) {
        this.broker = broker;
        this.authorizer = authorizer != null && authorizer.enabled() ? authorizer : null;
        this.quotas = quotas;
    }

    /** Most topics, and partitions over them, a Metadata request answered on the event loop names. */
    static final int INLINE_MAX_TOPICS = 64;
    static final int INLINE_MAX_PARTITIONS = 4096;

    /**
     * True for a request a single node answers from memory at a cost in proportion to what it
     * names: a list of at most {@value #INLINE_MAX_TOPICS} topics of at most
     * {@value #INLINE_MAX_PARTITIONS} partitions in all, none of which would be created (each
     * named topic exists, or auto-creation is off). An all-topics request (its cost grows with the
     * broker's topics, not the request), one that would create a topic (a forced registry write)
     * and cluster mode stay on the I/O pool.
     */
    @Override
    public boolean runsOnEventLoop(MetadataRequest request) {
        byIdWhereIdGiven(request);
        List<MetadataRequestTopic> asked = request.topics();
        if (asked == null || asked.isEmpty() || asked.size() > INLINE_MAX_TOPICS || broker.cluster() != null) {
            return false;
        }
        boolean mayCreate = broker.config().autoCreateTopics();
        Topics topics = broker.topics();
        int partitions = 0;
        for (MetadataRequestTopic want : asked) {
            String name = want.name();
            Topic t = name != null ? topics.get(name) : want.topicId() != null ? topics.get(want.topicId()) : null;
            if (t == null) {
                if (mayCreate && name != null) {
                    return false;
                }
                continue;
            }
            partitions += t.partitions();
            if (partitions > INLINE_MAX_PARTITIONS) {
                return false;
            }
        }
        return true;
    }

    /**
     * A topic asked for by id (v12+) may come with the empty name, not null: the Java consumer of
     * the KIP-848 protocol asks so for the topics of an assignment it has no metadata of. As Kafka
     * does, a topic id that is not zero wins: such a topic is looked up by its id alone.
     */
    static void byIdWhereIdGiven(MetadataRequest request) {
        if (request.topics() == null) {
            return;
        }
        for (MetadataRequestTopic want : request.topics()) {
            if (want.name() != null && want.name().isEmpty() && want.topicId() != null && !want.topicId().equals(ZERO_UUID)) {
                want.name(null);
            }
        }
    }

    private boolean may(RequestContext ctx, byte operation, byte type, String name) {
        return authorizer == null || authorizer.authorize(ctx.session().principal(), ctx.clientHost(), operation, type,
                name);
    }

    @Override
    public void handle(RequestContext ctx, MetadataRequest request) {
        byIdWhereIdGiven(request);
        short version = ctx.apiVersion();
        Topics topics = broker.topics();
        ClusterView cluster = broker.cluster();
        MetadataResponse response = new MetadataResponse()
                .brokers(brokers(broker, ctx.session().listenerName()))
                .clusterId(broker.clusterId())
                .controllerId(cluster != null ? cluster.controllerId() : broker.nodeId());
        if (request.includeClusterAuthorizedOperations()) {
            response.clusterAuthorizedOperations(authorizer == null ? CLUSTER_OPERATIONS
                    : AuthorizedAnswers.clusterOperations(authorizer, ctx, CLUSTER_OPERATIONS));
        }
        boolean withOps = request.includeTopicAuthorizedOperations();
        List<MetadataResponseTopic> out = new ArrayList<>();
        List<MetadataRequestTopic> asked = request.topics();
        if (cluster != null && (asked == null || (version == 0 && asked.isEmpty()))) {
            for (ClusterView.TopicState t : cluster.topics()) {
                if (may(ctx, Acl.DESCRIBE, Acl.TOPIC, t.name())) {
                    out.add(ClusterMetadata.describe(t, withOps));
                }
            }
        } else if (asked == null || (version == 0 && asked.isEmpty())) {
            for (Topic t : topics.all()) {
                if (may(ctx, Acl.DESCRIBE, Acl.TOPIC, t.name())) {
                    out.add(describe(t, broker.nodeId(), withOps));
                }
            }
        } else {
            boolean mayCreate = broker.config().autoCreateTopics() && (version < 4 || request.allowAutoTopicCreation());
            // As Kafka: a topic the principal may not DESCRIBE is neither looked up nor created; one it
            // may describe but not CREATE (on the cluster or the topic) is not created, and answered
            // TOPIC_AUTHORIZATION_FAILED if it does not exist
            List<MetadataRequestTopic> creatable = asked;
            Set<String> mayNotCreate = Set.of();
            if (mayCreate && authorizer != null) {
                boolean createsAny = may(ctx, Acl.CREATE, Acl.CLUSTER, Acl.CLUSTER_NAME);
                creatable = new ArrayList<>();
                mayNotCreate = new HashSet<>();
                for (MetadataRequestTopic want : asked) {
                    String name = want.name();
                    if (name == null || !may(ctx, Acl.DESCRIBE, Acl.TOPIC, name)) {
                        continue;
                    }
                    if (createsAny || may(ctx, Acl.CREATE, Acl.TOPIC, name)) {
                        creatable.add(want);
                    } else {
                        mayNotCreate.add(name);
                    }
                }
            }
            Map<String, Creation> created = mayCreate && cluster == null
                    ? autoCreate(creatable, topics, broker.config().numPartitions()) : Map.of();
            Set<String> creating = mayCreate && cluster != null ? ClusterMetadata.autoCreate(broker, creatable, creatingInCluster) : Set.of();
            if (!created.isEmpty() || !creating.isEmpty()) {
                chargeAutoCreated(ctx, created, creating.size());
            }
            for (MetadataRequestTopic want : asked) {
                MetadataResponseTopic t = cluster != null ? ClusterMetadata.lookup(cluster, want, creating, withOps, version)
                        : lookup(want, topics, broker.nodeId(), created, withOps, version);
                if (authorizer != null) {
                    t = authorized(ctx, want, t, mayNotCreate);
                }
                out.add(t);
            }
        }
        if (withOps && authorizer != null) {
            for (MetadataResponseTopic t : out) {
                if (t.errorCode() == Errors.NONE.code()) {
                    t.topicAuthorizedOperations(authorizer.authorizedOperations(ctx.session().principal(),
                            ctx.clientHost(), Acl.TOPIC, t.name(), TOPIC_OPERATIONS));
                }
            }
        }
        ctx.respond(response.topics(out));
    }

    /**
     * A named topic's answer as the principal may see it, as Kafka answers: a topic it may not
     * DESCRIBE is TOPIC_AUTHORIZATION_FAILED whether or not it exists, under the name it was asked
     * by (asked by id: under the id, never the name the id would disclose); a missing topic it
     * could not create likewise.
     */
    private MetadataResponseTopic authorized(RequestContext ctx, MetadataRequestTopic want, MetadataResponseTopic t,
            Set<String> mayNotCreate) {
        String name = want.name() != null ? want.name() : t.name();
        if (name == null) {
            return t; // an unknown id
        }
        boolean refused = !may(ctx, Acl.DESCRIBE, Acl.TOPIC, name)
                || mayNotCreate.contains(name) && t.errorCode() == Errors.UNKNOWN_TOPIC_OR_PARTITION.code();
        if (!refused) {
            return t;
        }
        MetadataResponseTopic denied = new MetadataResponseTopic().errorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        return want.name() != null ? denied.name(name) : denied.name(null).topicId(want.topicId());
    }

    /**
     * Creates the missing topics the request names, all with one registry write, and at most
     * {@link Topics#MAX_PARTITIONS_PER_REQUEST} partitions: names past that bound stay unknown (the
     * client may ask again). Returns what happened per name.
     */
    private static Map<String, Creation> autoCreate(List<MetadataRequestTopic> asked, Topics topics, int partitions) {
        int max = creatable(partitions);
        Set<String> names = new LinkedHashSet<>();
        for (MetadataRequestTopic want : asked) {
            String name = want.name();
            if (names.size() < max && name != null && TopicNames.invalidNameReason(name) == null
                    && !TopicNames.isInternal(name) && topics.get(name) == null) {
                names.add(name);
            }
        }
        if (names.isEmpty()) {
            return Map.of();
        }
        List<NewTopic> wanted = new ArrayList<>(names.size());
        for (String name : names) {
            wanted.add(new NewTopic(name, partitions, Map.of()));
        }
        return topics.createAll(wanted);
    }

    /** Charges the partitions of the topics just created (or asked of the controller) to the client's mutation quota. */
    private void chargeAutoCreated(RequestContext ctx, Map<String, Creation> created, int askedOfController) {
        MutationQuota quota = quotas.mutations(ctx.session().principal(), ctx.clientId(), false);
        for (Creation c : created.values()) {
            if (c.created()) {
                quota.charge(c.topic().partitions());
            }
        }
        for (int i = 0; i < askedOfController; i++) {
            quota.charge(broker.config().numPartitions());
        }
    }

    /** How many topics of this many partitions each one request may create. */
    static int creatable(int partitionsEach) {
        return Topics.MAX_PARTITIONS_PER_REQUEST / Math.max(1, partitionsEach);
    }

    private static MetadataResponseTopic lookup(MetadataRequestTopic want, Topics topics, int nodeId,
            Map<String, Creation> created, boolean withOps, short version) {
        String name = want.name();
        if (name == null) {
            UUID id = want.topicId();
            Topic t = id == null || id.equals(ZERO_UUID) ? null : topics.get(id);
            if (t == null) {
                return new MetadataResponseTopic().errorCode(Errors.UNKNOWN_TOPIC_ID.code())
                        .name(version >= 12 ? null : "")
                        .topicId(id == null ? ZERO_UUID : id);
            }
            return describe(t, nodeId, withOps);
        }
        if (TopicNames.invalidNameReason(name) != null) {
            return new MetadataResponseTopic().errorCode(Errors.INVALID_TOPIC_EXCEPTION.code()).name(name);
        }
        Topic t = topics.get(name);
        Creation c = created.get(name);
        if (t == null && c != null && c.collision()) {
            return new MetadataResponseTopic().errorCode(Errors.INVALID_TOPIC_EXCEPTION.code()).name(name);
        }
        if (t == null) {
            return new MetadataResponseTopic().errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).name(name);
        }
        return describe(t, nodeId, withOps);
    }

    static List<MetadataResponseBroker> brokers(BrokerContext broker, String listenerName) {
        if (broker.cluster() != null) {
            return ClusterMetadata.brokers(broker.cluster(), listenerName);
        }
        Listener adv = broker.advertised(listenerName);
        List<MetadataResponseBroker> list = new ArrayList<>(1);
        list.add(new MetadataResponseBroker().nodeId(broker.nodeId()).host(adv.host()).port(adv.port()).rack(null));
        return list;
    }

    static MetadataResponseTopic describe(Topic t, int nodeId, boolean withOps) {
        List<MetadataResponsePartition> parts = new ArrayList<>(t.partitions());
        List<Integer> self = List.of(nodeId);
        for (int p = 0; p < t.partitions(); p++) {
            parts.add(new MetadataResponsePartition()
                    .errorCode(Errors.NONE.code())
                    .partitionIndex(p)
                    .leaderId(nodeId)
                    .leaderEpoch(0)
                    .replicaNodes(self)
                    .isrNodes(self)
                    .offlineReplicas(List.of()));
        }
        MetadataResponseTopic topic = new MetadataResponseTopic()
                .errorCode(Errors.NONE.code())
                .name(t.name())
                .topicId(t.id())
                .isInternal(t.isInternal())
                .partitions(parts);
        if (withOps) {
            topic.topicAuthorizedOperations(TOPIC_OPERATIONS);
        }
        return topic;
    }
}
