package io.brook.server.api.group;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.txn.TxnCoordinatorConfig;
import io.brook.server.config.Listener;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterView;
import io.brook.server.node.GroupCoordinatorSetup;
import io.brook.server.node.LeaderHints.Leader;
import io.brook.server.node.TxnCoordinatorSetup;
import io.brook.server.topic.TopicNames;
import io.brook.wire.message.FindCoordinatorRequest;
import io.brook.wire.message.FindCoordinatorResponse;
import io.brook.wire.message.FindCoordinatorResponse.Coordinator;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * FindCoordinator (key 10): on a single node this node coordinates every group and transactional
 * id. v0–3 ask for one key, v4+ for a batch ({@code coordinator_keys}) answered key by key.
 *
 * <p>Key types: 0 (group) and 1 (transaction) → this node, COORDINATOR_NOT_AVAILABLE while that
 * coordinator is not running; an empty transactional id → INVALID_REQUEST, as in Kafka. 2 (share
 * groups, KIP-932) and unknown types → INVALID_REQUEST.
 *
 * <p><b>Cluster mode</b> (docs/cluster.md, section 7): a group's coordinator is the leader of its
 * partition of {@code __consumer_offsets}, answered with that node's endpoint on the listener the
 * client came in on; COORDINATOR_NOT_AVAILABLE (retriable) while the partition has no leader. As
 * Kafka does, the first lookup of a cluster without {@code __consumer_offsets} has the controller
 * create it ({@code offsets.topic.num.partitions} partitions, one replica each: Brook does not
 * replicate yet) and is answered COORDINATOR_NOT_AVAILABLE meanwhile. A transactional id's
 * coordinator is, the same way, the leader of its partition of {@code __transaction_state}, which
 * the first lookup has the controller create ({@code transaction.state.log.num.partitions}
 * partitions).
 */
public final class FindCoordinatorHandler implements ApiHandler<FindCoordinatorRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(FindCoordinatorHandler.class);

    static final byte KEY_TYPE_GROUP = 0;
    static final byte KEY_TYPE_TRANSACTION = 1;

    private final BrokerContext broker;
    /** Whether a creation of {@code __consumer_offsets} asked of the controller is under way. */
    private final AtomicBoolean creatingOffsetsTopic = new AtomicBoolean();
    /** Whether a creation of {@code __transaction_state} asked of the controller is under way. */
    private final AtomicBoolean creatingTxnStateTopic = new AtomicBoolean();

    public FindCoordinatorHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, FindCoordinatorRequest request) {
        short version = ctx.apiVersion();
        byte keyType = version >= 1 ? request.keyType() : KEY_TYPE_GROUP;
        if (version < 4) {
            Coordinator c = lookup(ctx.session().listenerName(), keyType, request.key());
            FindCoordinatorResponse r = new FindCoordinatorResponse().errorCode(c.errorCode()).nodeId(c.nodeId())
                    .host(c.host()).port(c.port());
            if (version >= 1) {
                r.errorMessage(c.errorMessage());
            }
            ctx.respond(r);
            return;
        }
        List<Coordinator> out = new ArrayList<>(request.coordinatorKeys().size());
        for (String key : request.coordinatorKeys()) {
            out.add(lookup(ctx.session().listenerName(), keyType, key));
        }
        ctx.respond(new FindCoordinatorResponse().coordinators(out));
    }

    /** The coordinator of one key for a client that came in on {@code listenerName}. */
    Coordinator lookup(String listenerName, byte keyType, String key) {
        Coordinator c = new Coordinator().key(key);
        if (keyType == KEY_TYPE_GROUP) {
            if (broker.groups() == null) {
                return fail(c, Errors.COORDINATOR_NOT_AVAILABLE, "The group coordinator is not running");
            }
            if (broker.cluster() != null) {
                return groupInCluster(broker.cluster(), broker.groups(), listenerName, c, key);
            }
            Listener adv = broker.advertised(listenerName);
            return c.errorCode(Errors.NONE.code()).errorMessage(null).nodeId(broker.nodeId()).host(adv.host())
                    .port(adv.port());
        }
        if (keyType == KEY_TYPE_TRANSACTION) {
            if (key == null || key.isEmpty()) {
                return fail(c, Errors.INVALID_REQUEST, "The transactional id is empty");
            }
            if (broker.transactions() == null) {
                return fail(c, Errors.COORDINATOR_NOT_AVAILABLE, "The transaction coordinator is not running");
            }
            if (broker.cluster() != null) {
                TxnCoordinatorConfig config = broker.transactions().config();
                return inCluster(broker.cluster(), TopicNames.TRANSACTION_STATE, config.partitionFor(key),
                        config.partitions(), TxnCoordinatorSetup.topicConfigs(config), creatingTxnStateTopic,
                        listenerName, c);
            }
            Listener adv = broker.advertised();
            return c.errorCode(Errors.NONE.code()).errorMessage(null).nodeId(broker.nodeId()).host(adv.host())
                    .port(adv.port());
        }
        return fail(c, Errors.INVALID_REQUEST, "Unsupported key type " + keyType);
    }

    /** The leader of the group's partition of {@code __consumer_offsets}, which creates the topic when absent. */
    private Coordinator groupInCluster(ClusterView cluster, GroupCoordinator groups, String listenerName, Coordinator c,
                                       String key) {
        return inCluster(cluster, TopicNames.CONSUMER_OFFSETS, groups.partitionFor(key == null ? "" : key),
                groups.partitions(), GroupCoordinatorSetup.topicConfigs(broker.config()),
                creatingOffsetsTopic, listenerName, c);
    }

    /** The leader of {@code partition} of the internal {@code topic}; has the controller create the topic when absent. */
    private static Coordinator inCluster(ClusterView cluster, String topic, int partition, int partitions,
            Map<String, String> configs, AtomicBoolean creating, String listenerName, Coordinator c) {
        Leader leader = cluster.leaderOf(topic, partition, listenerName);
        if (leader.nodeId() >= 0) {
            return c.errorCode(Errors.NONE.code()).errorMessage(null).nodeId(leader.nodeId()).host(leader.host())
                    .port(leader.port());
        }
        if (cluster.topic(topic) == null && creating.compareAndSet(false, true)) {
            cluster.createTopic(topic, partitions, 1, configs).whenComplete((v, e) -> {
                creating.set(false);
                if (e != null) {
                    LOG.info("Could not create {} (another node may have): {}", topic, e.getMessage());
                }
            });
        }
        return fail(c, Errors.COORDINATOR_NOT_AVAILABLE, topic + "-" + partition + " has no leader now");
    }

    private static Coordinator fail(Coordinator c, Errors error, String message) {
        return c.errorCode(error.code()).errorMessage(message).nodeId(-1).host("").port(-1);
    }
}
