package io.brook.server.api.security;

import io.brook.server.api.fetch.FetchHandler;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.ApiTable;
import io.brook.server.network.RequestContext;
import io.brook.server.security.Acl;
import io.brook.server.security.Authorizer;
import io.brook.server.topic.Topic;
import io.brook.server.topic.TopicNames;
import io.brook.server.topic.Topics;
import io.brook.wire.message.AddOffsetsToTxnRequest;
import io.brook.wire.message.AddPartitionsToTxnRequest;
import io.brook.wire.message.AddPartitionsToTxnRequest.AddPartitionsToTxnTopic;
import io.brook.wire.message.AddPartitionsToTxnResponse;
import io.brook.wire.message.AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult;
import io.brook.wire.message.AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult;
import io.brook.wire.message.AlterConfigsRequest;
import io.brook.wire.message.AlterConfigsResponse;
import io.brook.wire.message.AlterUserScramCredentialsRequest;
import io.brook.wire.message.CreatePartitionsRequest;
import io.brook.wire.message.CreatePartitionsResponse;
import io.brook.wire.message.ConsumerGroupDescribeRequest;
import io.brook.wire.message.ConsumerGroupDescribeResponse;
import io.brook.wire.message.ConsumerGroupHeartbeatRequest;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.DeleteGroupsRequest;
import io.brook.wire.message.DeleteGroupsResponse;
import io.brook.wire.message.DeleteRecordsRequest;
import io.brook.wire.message.DeleteRecordsResponse;
import io.brook.wire.message.DeleteTopicsRequest;
import io.brook.wire.message.DeleteTopicsResponse;
import io.brook.wire.message.DescribeConfigsRequest;
import io.brook.wire.message.DescribeConfigsResponse;
import io.brook.wire.message.DescribeGroupsRequest;
import io.brook.wire.message.EndTxnRequest;
import io.brook.wire.message.DescribeGroupsResponse;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.FindCoordinatorRequest;
import io.brook.wire.message.FindCoordinatorResponse;
import io.brook.wire.message.HeartbeatRequest;
import io.brook.wire.message.IncrementalAlterConfigsRequest;
import io.brook.wire.message.IncrementalAlterConfigsResponse;
import io.brook.wire.message.InitProducerIdRequest;
import io.brook.wire.message.JoinGroupRequest;
import io.brook.wire.message.LeaveGroupRequest;
import io.brook.wire.message.ListOffsetsRequest;
import io.brook.wire.message.ListOffsetsResponse;
import io.brook.wire.message.OffsetCommitRequest;
import io.brook.wire.message.OffsetCommitResponse;
import io.brook.wire.message.OffsetDeleteRequest;
import io.brook.wire.message.OffsetDeleteResponse;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.message.OffsetForLeaderEpochRequest;
import io.brook.wire.message.OffsetForLeaderEpochResponse;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.message.SyncGroupRequest;
import io.brook.wire.message.TxnOffsetCommitRequest;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.ApiRequest;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiFunction;

/**
 * The operations each API needs, after Kafka's ACL table, checked before the handler runs when
 * an authorizer is configured (without one, handlers are registered unwrapped: nothing is added
 * to the request path). As in Kafka, a request is refused as a whole only for what the whole
 * request depends on (the group of an OffsetCommit, the transactional id of a Produce, the cluster
 * for the ACL, SCRAM and quota APIs), answered with its generated error response; a request
 * listing several topics, groups or config resources is served for the ones the principal may use
 * and answers each of the others with its own error, per topic or partition ({@link AclSplit}):
 * TOPIC_AUTHORIZATION_FAILED, GROUP_AUTHORIZATION_FAILED (DescribeGroups, DeleteGroups, batched
 * OffsetFetch) or CLUSTER_AUTHORIZATION_FAILED (a broker config resource). An OffsetFetch for all
 * of a group's topics leaves out the topics the principal may not describe. An acks=0 Produce
 * naming a refused topic appends the allowed partitions and then closes the connection, as Kafka
 * does. Metadata is not gated here: its handler hides the topics the principal may not describe.
 * DescribeCluster, DescribeGroups and ListGroups answers are narrowed by {@link AuthorizedAnswers}.
 * AddPartitionsToTxn v0–3 is answered as Kafka does: nothing added, TOPIC_AUTHORIZATION_FAILED for
 * the denied topics and OPERATION_NOT_ATTEMPTED (UNKNOWN_TOPIC_OR_PARTITION for partitions this
 * node does not host) for the rest. TxnOffsetCommit is refused whole when a topic is denied (Kafka
 * stores the authorized offsets; its producer fails fatally on TOPIC_AUTHORIZATION_FAILED either
 * way, and the transaction never commits). DescribeProducers, DescribeTransactions and
 * ListTransactions answer per topic or transactional id in their handlers.
 *
 * <pre>
 * Produce               WRITE topic (and WRITE transactional id, which transactional records need)
 * Fetch                 READ topic; a follower's (replica id 0 or more): CLUSTER_ACTION cluster
 * ListOffsets           DESCRIBE topic        OffsetForLeaderEpoch  CLUSTER_ACTION cluster or DESCRIBE topic
 * OffsetCommit          READ group, READ topic        OffsetFetch  DESCRIBE group
 * JoinGroup, SyncGroup, Heartbeat, LeaveGroup   READ group
 * FindCoordinator       DESCRIBE group (or transactional id)
 * DescribeGroups        DESCRIBE group     DeleteGroups  DELETE group    OffsetDelete  DELETE group, READ topic
 * CreateTopics          CREATE cluster or topic        DeleteTopics  DELETE cluster or topic
 * CreatePartitions      ALTER topic        DeleteRecords  DELETE topic
 * DescribeConfigs       DESCRIBE_CONFIGS topic, group or cluster
 * AlterConfigs, IncrementalAlterConfigs   ALTER_CONFIGS topic, group or cluster (an internal topic: and the cluster)
 * InitProducerId        WRITE transactional id, else IDEMPOTENT_WRITE cluster (or WRITE on any topic)
 * UpdateFeatures, ElectLeaders, AlterPartitionReassignments, AlterReplicaLogDirs   ALTER cluster
 * DescribeQuorum, ListPartitionReassignments, DescribeLogDirs    DESCRIBE cluster
 * AddPartitionsToTxn    v0-3: WRITE transactional id, WRITE topic; v4+ (from brokers): CLUSTER_ACTION cluster
 * AddOffsetsToTxn       WRITE transactional id, READ group
 * EndTxn                WRITE transactional id
 * TxnOffsetCommit       WRITE transactional id, READ group, READ topic
 * WriteTxnMarkers       ALTER or CLUSTER_ACTION cluster
 * </pre>
 */
public final class AclChecks implements ApiTable.HandlerWrapper {

    private final Authorizer authorizer;
    private final Topics topics;
    private final AuthorizedAnswers answers;

    public AclChecks(Authorizer authorizer, Topics topics) {
        this.authorizer = authorizer;
        this.topics = topics;
        this.answers = new AuthorizedAnswers(authorizer);
    }

    /** What a request must be allowed; returns the error to answer with, or null. */
    @FunctionalInterface
    private interface Check<Q> {
        Errors check(Who who, Q request);
    }

    /** The client asking, for the authorizer. */
    final class Who {
        final String principal;
        final String host;
        final short version;

        Who(RequestContext ctx) {
            this.principal = ctx.session().principal();
            this.host = ctx.clientHost();
            this.version = ctx.apiVersion();
        }

        boolean may(byte operation, byte type, String name) {
            return authorizer.authorize(principal, host, operation, type, name == null ? "" : name);
        }

        Errors topic(byte operation, String name, UUID id) {
            String n = name;
            if ((n == null || n.isEmpty()) && id != null) {
                Topic t = topics.get(id);
                if (t == null) {
                    return null; // unknown topic id: the handler answers UNKNOWN_TOPIC_ID
                }
                n = t.name();
            }
            return may(operation, Acl.TOPIC, n) ? null : Errors.TOPIC_AUTHORIZATION_FAILED;
        }

        Errors group(byte operation, String name) {
            return may(operation, Acl.GROUP, name) ? null : Errors.GROUP_AUTHORIZATION_FAILED;
        }

        Errors transactionalId(String id) {
            return may(Acl.WRITE, Acl.TRANSACTIONAL_ID, id) ? null : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
        }

        private Boolean createsAnyTopic;

        /** CreateTopics: CREATE on the cluster, or else on the topic. */
        Errors create(String topic) {
            if (createsAnyTopic == null) {
                createsAnyTopic = may(Acl.CREATE, Acl.CLUSTER, Acl.CLUSTER_NAME);
            }
            return createsAnyTopic ? null : topic(Acl.CREATE, topic, null);
        }

        Errors cluster(byte operation) {
            return may(operation, Acl.CLUSTER, Acl.CLUSTER_NAME) ? null : Errors.CLUSTER_AUTHORIZATION_FAILED;
        }

        private Boolean deletesAnyTopic;

        /**
         * DeleteTopics, as Kafka: DELETE on the cluster allows every topic, else DELETE on the
         * topic; a missing topic named by a principal that may DESCRIBE it is
         * UNKNOWN_TOPIC_OR_PARTITION, one it may not TOPIC_AUTHORIZATION_FAILED (whether a topic
         * exists is not told to whoever may not describe it).
         */
        Errors delete(String name, UUID id) {
            if (deletesAnyTopic == null) {
                deletesAnyTopic = may(Acl.DELETE, Acl.CLUSTER, Acl.CLUSTER_NAME);
            }
            if (deletesAnyTopic) {
                return null;
            }
            Errors e = topic(Acl.DELETE, name, id);
            if (e != null && name != null && !name.isEmpty() && topics.get(name) == null
                    && may(Acl.DESCRIBE, Acl.TOPIC, name)) {
                return Errors.UNKNOWN_TOPIC_OR_PARTITION;
            }
            return e;
        }

        private Boolean replica;

        /** Whether the principal may act as a broker of the cluster: CLUSTER_ACTION (a follower's requests). */
        boolean replica() {
            if (replica == null) {
                replica = may(Acl.CLUSTER_ACTION, Acl.CLUSTER, Acl.CLUSTER_NAME);
            }
            return replica;
        }

        Errors config(byte operation, byte resourceType, String name) {
            // ConfigResource types: 2 = topic, 32 = group; broker (4), broker logger (8) and
            // client metrics (16) are the cluster's
            return switch (resourceType) {
                // changing an internal topic's configs is the cluster's business too
                case 2 -> operation == Acl.ALTER_CONFIGS && TopicNames.isInternal(name)
                        ? first(topic(operation, name, null), cluster(operation)) : topic(operation, name, null);
                case 32 -> group(operation, name);
                default -> cluster(operation);
            };
        }
    }

    private static Errors first(Errors a, Errors b) {
        return a != null ? a : b;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <Q extends ApiRequest> ApiHandler<Q> wrap(ApiKey key, ApiHandler<Q> unfiltered) {
        ApiHandler<Q> handler = answers.wrap(key, unfiltered);
        if (key == ApiKey.ADD_PARTITIONS_TO_TXN) {
            return (ApiHandler<Q>) addPartitions((ApiHandler<AddPartitionsToTxnRequest>) handler);
        }
        Check<Q> c = (Check<Q>) checkOf(key);
        if (c == null && !splits(key)) {
            return handler;
        }
        ApiHandler<Q> inner = switch (key) {
            case OFFSET_FETCH -> (ApiHandler<Q>) offsetFetchTopics((ApiHandler<OffsetFetchRequest>) handler);
            case FETCH -> (ApiHandler<Q>) fetchSessionTopics((ApiHandler<FetchRequest>) handler);
            case CREATE_TOPICS -> (ApiHandler<Q>) createdTopicConfigs((ApiHandler<CreateTopicsRequest>) handler);
            case FIND_COORDINATOR -> (ApiHandler<Q>) coordinatorKeys((ApiHandler<FindCoordinatorRequest>) handler);
            default -> handler;
        };
        return new ApiHandler<>() {
            @Override
            public void handle(RequestContext ctx, Q request) {
                Who who = new Who(ctx);
                Errors e = c == null ? null : c.check(who, request);
                if (e != null) {
                    if (request instanceof AlterUserScramCredentialsRequest scram) {
                        ctx.respond(AlterUserScramCredentialsHandler.refused(scram, e));
                    } else {
                        ctx.respondWithError(e);
                    }
                    return;
                }
                AclSplit<Q, ?, ?, ?> split = (AclSplit<Q, ?, ?, ?>) (request instanceof FetchRequest f
                        && FetchHandler.replicaId(f, ctx.apiVersion()) >= 0 ? followerFetch(who)
                        : splitOf(key, ctx.apiVersion()));
                if (split == null) {
                    inner.handle(ctx, request);
                } else {
                    String closeIfSilent = request instanceof ProduceRequest p && p.acks() == 0
                            ? "acks=0 produce to a topic the principal may not write" : null;
                    split.handle(ctx, request, who, inner, closeIfSilent);
                }
            }

            @Override
            public boolean runsOnEventLoop(Q request) {
                return handler.runsOnEventLoop(request);
            }
        };
    }

    private Check<?> checkOf(ApiKey key) {
        return switch (key) {
            case PRODUCE -> (Check<ProduceRequest>) (w, r) ->
                    ProduceTransactionalId.refusal(r, id -> w.may(Acl.WRITE, Acl.TRANSACTIONAL_ID, id));
            case OFFSET_COMMIT -> (Check<OffsetCommitRequest>) (w, r) -> w.group(Acl.READ, r.groupId());
            // v8+ lists groups: refused per group by the split
            case OFFSET_FETCH -> (Check<OffsetFetchRequest>) (w, r) ->
                    r.groups() != null && !r.groups().isEmpty() ? null : w.group(Acl.DESCRIBE, r.groupId());
            // v4+ lists keys: refused per key (coordinatorKeys)
            case FIND_COORDINATOR -> (Check<FindCoordinatorRequest>) (w, r) ->
                    r.coordinatorKeys() != null && !r.coordinatorKeys().isEmpty() ? null
                            : coordinatorKeyRefusal(w, w.version >= 1 ? r.keyType() : 0, r.key() == null ? "" : r.key());
            case JOIN_GROUP -> (Check<JoinGroupRequest>) (w, r) -> w.group(Acl.READ, r.groupId());
            case SYNC_GROUP -> (Check<SyncGroupRequest>) (w, r) -> w.group(Acl.READ, r.groupId());
            case HEARTBEAT -> (Check<HeartbeatRequest>) (w, r) -> w.group(Acl.READ, r.groupId());
            case CONSUMER_GROUP_HEARTBEAT -> (Check<ConsumerGroupHeartbeatRequest>) (w, r) -> {
                Errors refused = w.group(Acl.READ, r.groupId());
                if (refused != null || r.subscribedTopicNames() == null) return refused;
                for (String topic : r.subscribedTopicNames()) {
                    if (!w.may(Acl.DESCRIBE, Acl.TOPIC, topic)) return Errors.TOPIC_AUTHORIZATION_FAILED;
                }
                return null;
            };
            case LEAVE_GROUP -> (Check<LeaveGroupRequest>) (w, r) -> w.group(Acl.READ, r.groupId());
            case OFFSET_DELETE -> (Check<OffsetDeleteRequest>) (w, r) -> w.group(Acl.DELETE, r.groupId());
            case INIT_PRODUCER_ID -> (Check<InitProducerIdRequest>) (w, r) -> {
                if (r.transactionalId() != null) {
                    return w.may(Acl.WRITE, Acl.TRANSACTIONAL_ID, r.transactionalId()) ? null
                            : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
                }
                if (w.may(Acl.IDEMPOTENT_WRITE, Acl.CLUSTER, Acl.CLUSTER_NAME)
                        || authorizer.authorizeByResourceType(w.principal, w.host, Acl.WRITE, Acl.TOPIC)) {
                    return null;
                }
                return Errors.CLUSTER_AUTHORIZATION_FAILED;
            };
            case ADD_OFFSETS_TO_TXN -> (Check<AddOffsetsToTxnRequest>) (w, r) ->
                    first(w.transactionalId(r.transactionalId()), w.group(Acl.READ, r.groupId()));
            case END_TXN -> (Check<EndTxnRequest>) (w, r) -> w.transactionalId(r.transactionalId());
            case TXN_OFFSET_COMMIT -> (Check<TxnOffsetCommitRequest>) (w, r) -> {
                Errors e = first(w.transactionalId(r.transactionalId()), w.group(Acl.READ, r.groupId()));
                for (var t : r.topics()) {
                    e = first(e, w.topic(Acl.READ, t.name(), t.topicId()));
                }
                return e;
            };
            // kafka-transactions.sh abort sends it: ALTER on the cluster (an administrator) will do
            case WRITE_TXN_MARKERS -> (Check<ApiRequest>) (w, r) ->
                    w.may(Acl.ALTER, Acl.CLUSTER, Acl.CLUSTER_NAME) ? null : w.cluster(Acl.CLUSTER_ACTION);
            case DESCRIBE_USER_SCRAM_CREDENTIALS -> (Check<ApiRequest>) (w, r) -> w.cluster(Acl.DESCRIBE);
            case ALTER_USER_SCRAM_CREDENTIALS -> (Check<ApiRequest>) (w, r) -> w.cluster(Acl.ALTER);
            case UPDATE_FEATURES, ELECT_LEADERS -> (Check<ApiRequest>) (w, r) -> w.cluster(Acl.ALTER);
            case ALTER_PARTITION_REASSIGNMENTS, ALTER_REPLICA_LOG_DIRS -> (Check<ApiRequest>) (w, r) -> w.cluster(Acl.ALTER);
            case DESCRIBE_QUORUM, LIST_PARTITION_REASSIGNMENTS, DESCRIBE_LOG_DIRS -> (Check<ApiRequest>) (w, r) ->
                    w.cluster(Acl.DESCRIBE);
            case DESCRIBE_ACLS -> (Check<ApiRequest>) (w, r) -> w.cluster(Acl.DESCRIBE);
            case DESCRIBE_CLIENT_QUOTAS -> (Check<ApiRequest>) (w, r) -> w.cluster(Acl.DESCRIBE_CONFIGS);
            case LIST_CONFIG_RESOURCES -> (Check<ApiRequest>) (w, r) -> w.cluster(Acl.DESCRIBE_CONFIGS);
            case ALTER_CLIENT_QUOTAS -> (Check<ApiRequest>) (w, r) -> w.cluster(Acl.ALTER_CONFIGS);
            case CREATE_ACLS, DELETE_ACLS -> (Check<ApiRequest>) (w, r) -> w.cluster(Acl.ALTER);
            case UNREGISTER_BROKER, ADD_RAFT_VOTER, REMOVE_RAFT_VOTER -> (Check<ApiRequest>) (w, r) -> w.cluster(Acl.ALTER);
            default -> null;
        };
    }

    /**
     * AddPartitionsToTxn: v4+ (the batched and verify-only forms partition leaders send) needs
     * CLUSTER_ACTION; v0–3 (a producer) WRITE on its transactional id and on every topic, and a
     * refused request adds nothing and says which topics were denied, as Kafka answers it.
     */
    private ApiHandler<AddPartitionsToTxnRequest> addPartitions(ApiHandler<AddPartitionsToTxnRequest> handler) {
        return new ApiHandler<>() {
            @Override
            public void handle(RequestContext ctx, AddPartitionsToTxnRequest request) {
                Who w = new Who(ctx);
                if (w.version >= 4) {
                    Errors e = w.cluster(Acl.CLUSTER_ACTION);
                    if (e != null) {
                        ctx.respondWithError(e);
                        return;
                    }
                } else {
                    ApiMessage refused = w.transactionalId(request.v3AndBelowTransactionalId()) != null
                            ? v3Answer(request.v3AndBelowTopics(),
                                    (t, p) -> Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
                            : deniedTopics(w, request.v3AndBelowTopics());
                    if (refused != null) {
                        ctx.respond(refused);
                        return;
                    }
                }
                handler.handle(ctx, request);
            }

            @Override
            public boolean runsOnEventLoop(AddPartitionsToTxnRequest request) {
                return handler.runsOnEventLoop(request);
            }
        };
    }

    /** The v0–3 answer when a topic may not be written, else null. */
    private ApiMessage deniedTopics(Who w, List<AddPartitionsToTxnTopic> topics) {
        List<String> denied = new ArrayList<>();
        for (AddPartitionsToTxnTopic t : topics) {
            if (w.topic(Acl.WRITE, t.name(), null) != null) {
                denied.add(t.name());
            }
        }
        if (denied.isEmpty()) {
            return null;
        }
        return v3Answer(topics, (t, p) -> {
            Topic topic = t.name() == null ? null : this.topics.get(t.name());
            boolean refused = denied.contains(t.name()) || (topic != null && topic.isInternal());
            return refused ? Errors.TOPIC_AUTHORIZATION_FAILED
                    : topic == null || p < 0 || p >= topic.partitions() ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                    : Errors.OPERATION_NOT_ATTEMPTED;
        });
    }

    /** A v0–3 AddPartitionsToTxn answer: each partition of the request with its error. */
    private static ApiMessage v3Answer(List<AddPartitionsToTxnTopic> topics,
            BiFunction<AddPartitionsToTxnTopic, Integer, Errors> errorOf) {
        List<AddPartitionsToTxnTopicResult> out = new ArrayList<>(topics.size());
        for (AddPartitionsToTxnTopic t : topics) {
            List<AddPartitionsToTxnPartitionResult> parts = new ArrayList<>(t.partitions().size());
            for (int p : t.partitions()) {
                parts.add(new AddPartitionsToTxnPartitionResult().partitionIndex(p)
                        .partitionErrorCode(errorOf.apply(t, p).code()));
            }
            out.add(new AddPartitionsToTxnTopicResult().name(t.name()).resultsByPartition(parts));
        }
        return new AddPartitionsToTxnResponse().resultsByTopicV3AndBelow(out);
    }

    /**
     * An incremental fetch answers for the partitions of its session, which earlier requests
     * named: as Kafka checks every partition of the session on each fetch, a topic the principal
     * may no longer READ is answered TOPIC_AUTHORIZATION_FAILED without records.
     */
    private ApiHandler<FetchRequest> fetchSessionTopics(ApiHandler<FetchRequest> handler) {
        return (ctx, request) -> {
            if (request.sessionId() != 0 && request.sessionEpoch() > 0) {
                Who who = new Who(ctx);
                boolean follower = FetchHandler.replicaId(request, ctx.apiVersion()) >= 0;
                if (follower && who.replica()) {
                    handler.handle(ctx, request);
                    return;
                }
                ctx.mergeIntoResponse(m -> {
                    FetchResponse response = (FetchResponse) m;
                    for (var t : response.responses()) {
                        if (follower || who.topic(Acl.READ, t.topic(), t.topicId()) != null) {
                            List<FetchResponse.PartitionData> refused = new ArrayList<>(t.partitions().size());
                            for (var p : t.partitions()) {
                                refused.add(new FetchResponse.PartitionData().partitionIndex(p.partitionIndex())
                                        .errorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()).highWatermark(-1L)
                                        .records(BufferRecords.EMPTY));
                            }
                            t.partitions(refused);
                        }
                    }
                    return response;
                }, null);
            }
            handler.handle(ctx, request);
        };
    }

    /** The error refusing a FindCoordinator key, or null: DESCRIBE on the group or transactional id. */
    private static Errors coordinatorKeyRefusal(Who w, byte keyType, String key) {
        return switch (keyType) {
            case 0 -> w.group(Acl.DESCRIBE, key);
            case 1 -> w.may(Acl.DESCRIBE, Acl.TRANSACTIONAL_ID, key) ? null : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
            default -> null; // a key type Brook does not serve: the handler answers INVALID_REQUEST
        };
    }

    /**
     * FindCoordinator v4+ (several keys): each key the principal may not describe is answered
     * with its own error and no coordinator, the others as usual, as Kafka answers them (the
     * admin client looks up many groups or transactional ids in one request).
     */
    private ApiHandler<FindCoordinatorRequest> coordinatorKeys(ApiHandler<FindCoordinatorRequest> handler) {
        return (ctx, request) -> {
            if (request.coordinatorKeys() != null && !request.coordinatorKeys().isEmpty()) {
                Who who = new Who(ctx);
                ctx.mergeIntoResponse(m -> {
                    FindCoordinatorResponse response = (FindCoordinatorResponse) m;
                    for (FindCoordinatorResponse.Coordinator c : response.coordinators()) {
                        Errors e = coordinatorKeyRefusal(who, request.keyType(), c.key());
                        if (e != null) {
                            c.errorCode(e.code()).errorMessage(null).nodeId(-1).host("").port(-1);
                        }
                    }
                    return response;
                }, null);
            }
            handler.handle(ctx, request);
        };
    }

    /**
     * CreateTopics v5+ tells the creator a new topic's configs, partition count and replication
     * factor only if it may DESCRIBE_CONFIGS the topic (KIP-525, as Kafka): otherwise the topic's
     * result carries TOPIC_AUTHORIZATION_FAILED as its config error and none of them (CREATE does
     * not imply DESCRIBE_CONFIGS, and the configs include the broker's defaults).
     */
    private ApiHandler<CreateTopicsRequest> createdTopicConfigs(ApiHandler<CreateTopicsRequest> handler) {
        return (ctx, request) -> {
            if (ctx.apiVersion() >= 5) {
                Who who = new Who(ctx);
                ctx.mergeIntoResponse(m -> {
                    CreateTopicsResponse response = (CreateTopicsResponse) m;
                    for (CreateTopicsResponse.CreatableTopicResult t : response.topics()) {
                        if (t.errorCode() == Errors.NONE.code()
                                && who.topic(Acl.DESCRIBE_CONFIGS, t.name(), null) != null) {
                            t.configs(new ArrayList<>()).numPartitions(-1).replicationFactor((short) -1)
                                    .topicConfigErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                        }
                    }
                    return response;
                }, null);
            }
            handler.handle(ctx, request);
        };
    }

    private static AclSplit<FetchRequest, FetchRequest.FetchTopic, FetchResponse, FetchResponse.FetchableTopicResponse>
            fetchSplit(BiFunction<Who, FetchRequest.FetchTopic, Errors> denial) {
        return new AclSplit<>(FetchRequest::topics, FetchRequest::topics, FetchResponse::responses,
                FetchResponse::responses, denial);
    }

    /**
     * A follower's fetch (a replica id of 0 or more), as Kafka checks it: CLUSTER_ACTION on the
     * cluster instead of READ on each topic; without it every topic is refused. A consumer that
     * sends a replica id gains nothing by it (not the topics, nor a way around its fetch quota,
     * which followers are not charged).
     */
    private static AclSplit<FetchRequest, FetchRequest.FetchTopic, FetchResponse, FetchResponse.FetchableTopicResponse>
            followerFetch(Who who) {
        return who.replica() ? null : fetchSplit((w, t) -> Errors.TOPIC_AUTHORIZATION_FAILED);
    }

    private static boolean splits(ApiKey key) {
        return splitOf(key, (short) 0) != null || key == ApiKey.DELETE_TOPICS || key == ApiKey.OFFSET_FETCH;
    }

    /** How {@code key}'s request of {@code version} is split by resource, or null when it is not. */
    private static AclSplit<?, ?, ?, ?> splitOf(ApiKey key, short version) {
        return switch (key) {
            case PRODUCE -> new AclSplit<ProduceRequest, ProduceRequest.TopicProduceData, ProduceResponse,
                    ProduceResponse.TopicProduceResponse>(ProduceRequest::topicData, ProduceRequest::topicData,
                    ProduceResponse::responses, ProduceResponse::responses,
                    (w, t) -> w.topic(Acl.WRITE, t.name(), t.topicId()));
            case FETCH -> fetchSplit((w, t) -> w.topic(Acl.READ, t.topic(), t.topicId()));
            case LIST_OFFSETS -> new AclSplit<ListOffsetsRequest, ListOffsetsRequest.ListOffsetsTopic,
                    ListOffsetsResponse, ListOffsetsResponse.ListOffsetsTopicResponse>(ListOffsetsRequest::topics,
                    ListOffsetsRequest::topics, ListOffsetsResponse::topics, ListOffsetsResponse::topics,
                    (w, t) -> w.topic(Acl.DESCRIBE, t.name(), null));
            case OFFSET_FOR_LEADER_EPOCH -> new AclSplit<OffsetForLeaderEpochRequest,
                    OffsetForLeaderEpochRequest.OffsetForLeaderTopic, OffsetForLeaderEpochResponse,
                    OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult>(OffsetForLeaderEpochRequest::topics,
                    OffsetForLeaderEpochRequest::topics, OffsetForLeaderEpochResponse::topics,
                    OffsetForLeaderEpochResponse::topics, (w, t) -> w.replica() ? null
                            : w.topic(Acl.DESCRIBE, t.topic(), null));
            case OFFSET_COMMIT -> new AclSplit<OffsetCommitRequest, OffsetCommitRequest.OffsetCommitRequestTopic,
                    OffsetCommitResponse, OffsetCommitResponse.OffsetCommitResponseTopic>(OffsetCommitRequest::topics,
                    OffsetCommitRequest::topics, OffsetCommitResponse::topics, OffsetCommitResponse::topics,
                    (w, t) -> w.topic(Acl.READ, t.name(), t.topicId()));
            case OFFSET_DELETE -> new AclSplit<OffsetDeleteRequest, OffsetDeleteRequest.OffsetDeleteRequestTopic,
                    OffsetDeleteResponse, OffsetDeleteResponse.OffsetDeleteResponseTopic>(OffsetDeleteRequest::topics,
                    OffsetDeleteRequest::topics, OffsetDeleteResponse::topics, OffsetDeleteResponse::topics,
                    (w, t) -> w.topic(Acl.READ, t.name(), null));
            case OFFSET_FETCH -> version < 8 ? null : new AclSplit<OffsetFetchRequest,
                    OffsetFetchRequest.OffsetFetchRequestGroup, OffsetFetchResponse,
                    OffsetFetchResponse.OffsetFetchResponseGroup>(OffsetFetchRequest::groups,
                    OffsetFetchRequest::groups, OffsetFetchResponse::groups, OffsetFetchResponse::groups,
                    (w, g) -> w.group(Acl.DESCRIBE, g.groupId()));
            case DESCRIBE_GROUPS -> new AclSplit<DescribeGroupsRequest, String, DescribeGroupsResponse,
                    DescribeGroupsResponse.DescribedGroup>(DescribeGroupsRequest::groups, DescribeGroupsRequest::groups,
                    DescribeGroupsResponse::groups, DescribeGroupsResponse::groups,
                    (w, g) -> w.group(Acl.DESCRIBE, g));
            case CONSUMER_GROUP_DESCRIBE -> new AclSplit<ConsumerGroupDescribeRequest, String, ConsumerGroupDescribeResponse,
                    ConsumerGroupDescribeResponse.DescribedGroup>(ConsumerGroupDescribeRequest::groupIds,
                    ConsumerGroupDescribeRequest::groupIds, ConsumerGroupDescribeResponse::groups,
                    ConsumerGroupDescribeResponse::groups, (w, g) -> w.group(Acl.DESCRIBE, g));
            case DELETE_GROUPS -> new AclSplit<DeleteGroupsRequest, String, DeleteGroupsResponse,
                    DeleteGroupsResponse.DeletableGroupResult>(DeleteGroupsRequest::groupsNames,
                    DeleteGroupsRequest::groupsNames, DeleteGroupsResponse::results, DeleteGroupsResponse::results,
                    (w, g) -> w.group(Acl.DELETE, g));
            case CREATE_TOPICS -> new AclSplit<CreateTopicsRequest, CreateTopicsRequest.CreatableTopic,
                    CreateTopicsResponse, CreateTopicsResponse.CreatableTopicResult>(CreateTopicsRequest::topics,
                    CreateTopicsRequest::topics, CreateTopicsResponse::topics, CreateTopicsResponse::topics,
                    (w, t) -> w.create(t.name()), CreateTopicsRequest.CreatableTopic::name);
            case DELETE_TOPICS -> version >= 6
                    ? new AclSplit<DeleteTopicsRequest, DeleteTopicsRequest.DeleteTopicState, DeleteTopicsResponse,
                            DeleteTopicsResponse.DeletableTopicResult>(DeleteTopicsRequest::topics,
                            DeleteTopicsRequest::topics, DeleteTopicsResponse::responses, DeleteTopicsResponse::responses,
                            (w, t) -> w.delete(t.name(), t.topicId()),
                            t -> t.name() != null ? t.name() : t.topicId())
                    : new AclSplit<DeleteTopicsRequest, String, DeleteTopicsResponse,
                            DeleteTopicsResponse.DeletableTopicResult>(DeleteTopicsRequest::topicNames,
                            DeleteTopicsRequest::topicNames, DeleteTopicsResponse::responses,
                            DeleteTopicsResponse::responses, (w, n) -> w.delete(n, null), n -> n);
            case DELETE_RECORDS -> new AclSplit<DeleteRecordsRequest, DeleteRecordsRequest.DeleteRecordsTopic,
                    DeleteRecordsResponse, DeleteRecordsResponse.DeleteRecordsTopicResult>(DeleteRecordsRequest::topics,
                    DeleteRecordsRequest::topics, DeleteRecordsResponse::topics, DeleteRecordsResponse::topics,
                    (w, t) -> w.topic(Acl.DELETE, t.name(), null));
            case CREATE_PARTITIONS -> new AclSplit<CreatePartitionsRequest, CreatePartitionsRequest.CreatePartitionsTopic,
                    CreatePartitionsResponse, CreatePartitionsResponse.CreatePartitionsTopicResult>(
                    CreatePartitionsRequest::topics, CreatePartitionsRequest::topics, CreatePartitionsResponse::results,
                    CreatePartitionsResponse::results, (w, t) -> w.topic(Acl.ALTER, t.name(), null),
                    CreatePartitionsRequest.CreatePartitionsTopic::name);
            case DESCRIBE_CONFIGS -> new AclSplit<DescribeConfigsRequest, DescribeConfigsRequest.DescribeConfigsResource,
                    DescribeConfigsResponse, DescribeConfigsResponse.DescribeConfigsResult>(
                    DescribeConfigsRequest::resources, DescribeConfigsRequest::resources, DescribeConfigsResponse::results,
                    DescribeConfigsResponse::results,
                    (w, r) -> w.config(Acl.DESCRIBE_CONFIGS, r.resourceType(), r.resourceName()));
            case ALTER_CONFIGS -> new AclSplit<AlterConfigsRequest, AlterConfigsRequest.AlterConfigsResource,
                    AlterConfigsResponse, AlterConfigsResponse.AlterConfigsResourceResponse>(
                    AlterConfigsRequest::resources, AlterConfigsRequest::resources, AlterConfigsResponse::responses,
                    AlterConfigsResponse::responses,
                    (w, r) -> w.config(Acl.ALTER_CONFIGS, r.resourceType(), r.resourceName()));
            case INCREMENTAL_ALTER_CONFIGS -> new AclSplit<IncrementalAlterConfigsRequest,
                    IncrementalAlterConfigsRequest.AlterConfigsResource, IncrementalAlterConfigsResponse,
                    IncrementalAlterConfigsResponse.AlterConfigsResourceResponse>(
                    IncrementalAlterConfigsRequest::resources, IncrementalAlterConfigsRequest::resources,
                    IncrementalAlterConfigsResponse::responses, IncrementalAlterConfigsResponse::responses,
                    (w, r) -> w.config(Acl.ALTER_CONFIGS, r.resourceType(), r.resourceName()));
            default -> null;
        };
    }

    /**
     * OffsetFetch's topics, as Kafka filters them: of a group asked for all its topics, the ones
     * the principal may not DESCRIBE are left out; a refused topic named in the request is
     * answered TOPIC_AUTHORIZATION_FAILED per partition (offset -1, empty metadata). Reading
     * offsets changes nothing, so the handler answers for every topic and the answer is filtered.
     */
    private ApiHandler<OffsetFetchRequest> offsetFetchTopics(ApiHandler<OffsetFetchRequest> handler) {
        return (ctx, request) -> {
            Who who = new Who(ctx);
            ctx.mergeIntoResponse(m -> {
                OffsetFetchResponse response = (OffsetFetchResponse) m;
                if (request.groups() != null && !request.groups().isEmpty()) {
                    Map<String, Boolean> allTopics = new HashMap<>();
                    for (var g : request.groups()) {
                        allTopics.put(g.groupId(), g.topics() == null);
                    }
                    for (var g : response.groups()) {
                        if (g.topics() == null || g.topics().isEmpty()) {
                            continue;
                        }
                        boolean all = allTopics.getOrDefault(g.groupId(), true);
                        List<OffsetFetchResponse.OffsetFetchResponseTopics> kept = new ArrayList<>(g.topics().size());
                        for (var t : g.topics()) {
                            if (who.topic(Acl.DESCRIBE, t.name(), t.topicId()) == null) {
                                kept.add(t);
                            } else if (!all) {
                                for (var p : t.partitions()) {
                                    p.committedOffset(-1L).committedLeaderEpoch(-1).metadata("")
                                            .errorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                                }
                                kept.add(t);
                            }
                        }
                        g.topics(kept);
                    }
                } else if (response.topics() != null && !response.topics().isEmpty()) {
                    boolean all = request.topics() == null;
                    List<OffsetFetchResponse.OffsetFetchResponseTopic> kept = new ArrayList<>(response.topics().size());
                    for (var t : response.topics()) {
                        if (who.topic(Acl.DESCRIBE, t.name(), null) == null) {
                            kept.add(t);
                        } else if (!all) {
                            for (var p : t.partitions()) {
                                p.committedOffset(-1L).committedLeaderEpoch(-1).metadata("")
                                        .errorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                            }
                            kept.add(t);
                        }
                    }
                    response.topics(kept);
                }
                return response;
            }, null);
            handler.handle(ctx, request);
        };
    }
}
