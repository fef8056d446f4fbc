package io.brook.server.api.security;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.ApiTable;
import io.brook.server.network.RequestContext;
import io.brook.server.security.Acl;
import io.brook.server.security.Authorizer;
import io.brook.server.topic.Topic;
import io.brook.server.topic.Topics;
import io.brook.wire.message.AddOffsetsToTxnRequest;
import io.brook.wire.message.AddPartitionsToTxnRequest;
import io.brook.wire.message.AddPartitionsToTxnRequest.AddPartitionsToTxnTopic;
import io.brook.wire.message.AddPartitionsToTxnResponse;
import io.brook.wire.message.AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult;
import io.brook.wire.message.AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult;
import io.brook.wire.message.AlterConfigsRequest;
import io.brook.wire.message.CreatePartitionsRequest;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.DeleteGroupsRequest;
import io.brook.wire.message.DeleteRecordsRequest;
import io.brook.wire.message.DeleteTopicsRequest;
import io.brook.wire.message.DescribeConfigsRequest;
import io.brook.wire.message.DescribeGroupsRequest;
import io.brook.wire.message.EndTxnRequest;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FindCoordinatorRequest;
import io.brook.wire.message.HeartbeatRequest;
import io.brook.wire.message.IncrementalAlterConfigsRequest;
import io.brook.wire.message.InitProducerIdRequest;
import io.brook.wire.message.JoinGroupRequest;
import io.brook.wire.message.LeaveGroupRequest;
import io.brook.wire.message.ListOffsetsRequest;
import io.brook.wire.message.OffsetCommitRequest;
import io.brook.wire.message.OffsetDeleteRequest;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetForLeaderEpochRequest;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.SyncGroupRequest;
import io.brook.wire.message.TxnOffsetCommitRequest;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.ApiRequest;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BiFunction;

/**
 * The operations each API needs, after Kafka's ACL table, checked before the handler runs when
 * an authorizer is configured (without one, handlers are registered unwrapped: nothing is added
 * to the request path). A request that names a resource its principal may not use is answered
 * as a whole with its generated error response carrying TOPIC_AUTHORIZATION_FAILED,
 * GROUP_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_FAILED or TRANSACTIONAL_ID_AUTHORIZATION_FAILED.
 *
 * <p>Where Kafka differs: Kafka answers per topic or partition and serves the authorized ones
 * of a mixed request; here a mixed request fails whole (for TxnOffsetCommit too, where Kafka
 * stores the authorized offsets; its producer fails fatally on TOPIC_AUTHORIZATION_FAILED either
 * way, and the transaction never commits). AddPartitionsToTxn v0–3 is answered as Kafka does:
 * nothing added, TOPIC_AUTHORIZATION_FAILED for the denied topics and OPERATION_NOT_ATTEMPTED
 * (UNKNOWN_TOPIC_OR_PARTITION for partitions this node does not host) for the rest. Metadata is
 * not gated here: its handler hides the topics the principal may not describe, as Kafka does;
 * DescribeProducers, DescribeTransactions and ListTransactions answer per topic or
 * transactional id in their handlers.
 *
 * <pre>
 * Produce               WRITE topic (and WRITE transactional id)
 * Fetch                 READ topic
 * ListOffsets, OffsetForLeaderEpoch   DESCRIBE topic
 * OffsetCommit          READ group, READ topic        OffsetFetch  DESCRIBE group
 * JoinGroup, SyncGroup, Heartbeat, LeaveGroup   READ group
 * FindCoordinator       DESCRIBE group (or transactional id)
 * DescribeGroups        DESCRIBE group     DeleteGroups  DELETE group    OffsetDelete  DELETE group, READ topic
 * CreateTopics          CREATE cluster or topic        DeleteTopics  DELETE topic
 * CreatePartitions      ALTER topic        DeleteRecords  DELETE topic
 * DescribeConfigs       DESCRIBE_CONFIGS topic or cluster
 * AlterConfigs, IncrementalAlterConfigs   ALTER_CONFIGS topic or cluster
 * InitProducerId        WRITE transactional id, else IDEMPOTENT_WRITE cluster (or WRITE on any topic)
 * UpdateFeatures        ALTER cluster
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

    public AclChecks(Authorizer authorizer, Topics topics) {
        this.authorizer = authorizer;
        this.topics = topics;
    }

    /** What a request must be allowed; returns the error to answer with, or null. */
    @FunctionalInterface
    private interface Check<Q> {
        Errors check(Who who, Q request);
    }

    /** The client asking, for the authorizer. */
    private final class Who {
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

        Errors cluster(byte operation) {
            return may(operation, Acl.CLUSTER, Acl.CLUSTER_NAME) ? null : Errors.CLUSTER_AUTHORIZATION_FAILED;
        }

        Errors config(byte operation, byte resourceType, String name) {
            // ConfigResource types: 2 = topic, 4 = broker
            return resourceType == 2 ? topic(operation, name, null) : cluster(operation);
        }
    }

    private static Errors first(Errors a, Errors b) {
        return a != null ? a : b;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <Q extends ApiRequest> ApiHandler<Q> wrap(ApiKey key, ApiHandler<Q> handler) {
        if (key == ApiKey.ADD_PARTITIONS_TO_TXN) {
            return (ApiHandler<Q>) addPartitions((ApiHandler<AddPartitionsToTxnRequest>) handler);
        }
        Check<?> check = checkOf(key);
        if (check == null) {
            return handler;
        }
        Check<Q> c = (Check<Q>) check;
        return new ApiHandler<>() {
            @Override
            public void handle(RequestContext ctx, Q request) {
                Errors e = c.check(new Who(ctx), request);
                if (e != null) {
                    ctx.respondWithError(e);
                } else {
                    handler.handle(ctx, request);
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
            case PRODUCE -> (Check<ProduceRequest>) (w, r) -> {
                if (r.transactionalId() != null && !w.may(Acl.WRITE, Acl.TRANSACTIONAL_ID, r.transactionalId())) {
                    return Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
                }
                for (var t : r.topicData()) {
                    Errors e = w.topic(Acl.WRITE, t.name(), t.topicId());
                    if (e != null) {
                        return e;
                    }
                }
                return null;
            };
            case FETCH -> (Check<FetchRequest>) (w, r) -> {
                for (var t : r.topics()) {
                    Errors e = w.topic(Acl.READ, t.topic(), t.topicId());
                    if (e != null) {
                        return e;
                    }
                }
                return null;
            };
            case LIST_OFFSETS -> (Check<ListOffsetsRequest>) (w, r) -> {
                for (var t : r.topics()) {
                    Errors e = w.topic(Acl.DESCRIBE, t.name(), null);
                    if (e != null) {
                        return e;
                    }
                }
                return null;
            };
            case OFFSET_FOR_LEADER_EPOCH -> (Check<OffsetForLeaderEpochRequest>) (w, r) -> {
                for (var t : r.topics()) {
                    Errors e = w.topic(Acl.DESCRIBE, t.topic(), null);
                    if (e != null) {
                        return e;
                    }
                }
                return null;
            };
            case OFFSET_COMMIT -> (Check<OffsetCommitRequest>) (w, r) -> {
                Errors e = w.group(Acl.READ, r.groupId());
                for (var t : r.topics()) {
                    e = first(e, w.topic(Acl.READ, t.name(), t.topicId()));
                }
                return e;
            };
            case OFFSET_FETCH -> (Check<OffsetFetchRequest>) (w, r) -> {
                if (r.groups() != null && !r.groups().isEmpty()) {
                    for (var g : r.groups()) {
                        Errors e = w.group(Acl.DESCRIBE, g.groupId());
                        if (e != null) {
                            return e;
                        }
                    }
                    return null;
                }
                return w.group(Acl.DESCRIBE, r.groupId());
            };
            case FIND_COORDINATOR -> (Check<FindCoordinatorRequest>) (w, r) -> {
                boolean txn = r.keyType() == 1;
                java.util.List<String> keys = r.coordinatorKeys() != null && !r.coordinatorKeys().isEmpty()
                        ? r.coordinatorKeys() : java.util.List.of(r.key() == null ? "" : r.key());
                for (String k : keys) {
                    if (txn ? !w.may(Acl.DESCRIBE, Acl.TRANSACTIONAL_ID, k) : !w.may(Acl.DESCRIBE, Acl.GROUP, k)) {
                        return txn ? Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED : Errors.GROUP_AUTHORIZATION_FAILED;
                    }
                }
                return null;
            };
            case JOIN_GROUP -> (Check<JoinGroupRequest>) (w, r) -> w.group(Acl.READ, r.groupId());
            case SYNC_GROUP -> (Check<SyncGroupRequest>) (w, r) -> w.group(Acl.READ, r.groupId());
            case HEARTBEAT -> (Check<HeartbeatRequest>) (w, r) -> w.group(Acl.READ, r.groupId());
            case LEAVE_GROUP -> (Check<LeaveGroupRequest>) (w, r) -> w.group(Acl.READ, r.groupId());
            case DESCRIBE_GROUPS -> (Check<DescribeGroupsRequest>) (w, r) -> {
                for (String g : r.groups()) {
                    Errors e = w.group(Acl.DESCRIBE, g);
                    if (e != null) {
                        return e;
                    }
                }
                return null;
            };
            case DELETE_GROUPS -> (Check<DeleteGroupsRequest>) (w, r) -> {
                for (String g : r.groupsNames()) {
                    Errors e = w.group(Acl.DELETE, g);
                    if (e != null) {
                        return e;
                    }
                }
                return null;
            };
            case OFFSET_DELETE -> (Check<OffsetDeleteRequest>) (w, r) -> {
                Errors e = w.group(Acl.DELETE, r.groupId());
                for (var t : r.topics()) {
                    e = first(e, w.topic(Acl.READ, t.name(), null));
                }
                return e;
            };
            case CREATE_TOPICS -> (Check<CreateTopicsRequest>) (w, r) -> {
                if (w.may(Acl.CREATE, Acl.CLUSTER, Acl.CLUSTER_NAME)) {
                    return null;
                }
                for (var t : r.topics()) {
                    Errors e = w.topic(Acl.CREATE, t.name(), null);
                    if (e != null) {
                        return e;
                    }
                }
                return null;
            };
            case DELETE_TOPICS -> (Check<DeleteTopicsRequest>) (w, r) -> {
                Errors e = null;
                if (r.topicNames() != null) {
                    for (String n : r.topicNames()) {
                        e = first(e, w.topic(Acl.DELETE, n, null));
                    }
                }
                if (r.topics() != null) {
                    for (var t : r.topics()) {
                        e = first(e, w.topic(Acl.DELETE, t.name(), t.topicId()));
                    }
                }
                return e;
            };
            case DELETE_RECORDS -> (Check<DeleteRecordsRequest>) (w, r) -> {
                for (var t : r.topics()) {
                    Errors e = w.topic(Acl.DELETE, t.name(), null);
                    if (e != null) {
                        return e;
                    }
                }
                return null;
            };
            case CREATE_PARTITIONS -> (Check<CreatePartitionsRequest>) (w, r) -> {
                for (var t : r.topics()) {
                    Errors e = w.topic(Acl.ALTER, t.name(), null);
                    if (e != null) {
                        return e;
                    }
                }
                return null;
            };
            case DESCRIBE_CONFIGS -> (Check<DescribeConfigsRequest>) (w, r) -> {
                for (var res : r.resources()) {
                    Errors e = w.config(Acl.DESCRIBE_CONFIGS, res.resourceType(), res.resourceName());
                    if (e != null) {
                        return e;
                    }
                }
                return null;
            };
            case ALTER_CONFIGS -> (Check<AlterConfigsRequest>) (w, r) -> {
                for (var res : r.resources()) {
                    Errors e = w.config(Acl.ALTER_CONFIGS, res.resourceType(), res.resourceName());
                    if (e != null) {
                        return e;
                    }
                }
                return null;
            };
            case INCREMENTAL_ALTER_CONFIGS -> (Check<IncrementalAlterConfigsRequest>) (w, r) -> {
                for (var res : r.resources()) {
                    Errors e = w.config(Acl.ALTER_CONFIGS, res.resourceType(), res.resourceName());
                    if (e != null) {
                        return e;
                    }
                }
                return null;
            };
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
            case UPDATE_FEATURES -> (Check<ApiRequest>) (w, r) -> w.cluster(Acl.ALTER);
            case DESCRIBE_ACLS -> (Check<ApiRequest>) (w, r) -> w.cluster(Acl.DESCRIBE);
            case DESCRIBE_CLIENT_QUOTAS -> (Check<ApiRequest>) (w, r) -> w.cluster(Acl.DESCRIBE_CONFIGS);
            case LIST_CONFIG_RESOURCES -> (Check<ApiRequest>) (w, r) -> w.cluster(Acl.DESCRIBE_CONFIGS);
            case ALTER_CLIENT_QUOTAS -> (Check<ApiRequest>) (w, r) -> w.cluster(Acl.ALTER_CONFIGS);
            case CREATE_ACLS, DELETE_ACLS -> (Check<ApiRequest>) (w, r) -> w.cluster(Acl.ALTER);
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
}
