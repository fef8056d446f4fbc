package io.brook.cluster.member;

import io.brook.cluster.controller.Controller;
import io.brook.cluster.controller.ControllerError;
import io.brook.cluster.controller.ControllerException;
import io.brook.cluster.metadata.CorruptMetadataException;
import io.brook.cluster.raft.MetadataQuorumNode;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller side of the controller channel on one voter: while this node is the Ratis leader
 * it holds a {@link Controller} and answers {@link ControllerRequest}s with it; otherwise it
 * answers NO_CONTROLLER, so that the asking node tries again (Ratis' client then finds the new
 * leader).
 *
 * <p>Lifecycle (docs/cluster.md, "How a node asks the controller"): the controller of a term is
 * created the first time this node is asked or ticked as that term's leader once it has applied
 * every committed entry (so that it decides on a complete image), and dropped as soon as
 * it is asked or ticked while no longer the leader. A new controller knows no heartbeats, so every
 * broker gets one session time-out of grace from then on (as Kafka's controller after failover).
 *
 * <p>Thread-safe: requests arrive on Ratis' threads, ticks on the member's scheduler.
 */
final class ControllerService {
    private static final Logger LOG = LoggerFactory.getLogger(ControllerService.class);
    /** How many decided asks the controller remembers, to answer one sent again without deciding again. */
    static final int RECENT_ASKS = 4096;

    private final Clock clock;
    private final long sessionTimeoutMs;
    private volatile MetadataQuorumNode node;
    private Controller controller;
    private long controllerTerm = -1;
    private final RecentAsks recentAsks = new RecentAsks(RECENT_ASKS);

    ControllerService(Clock clock, long sessionTimeoutMs) {
        this.clock = clock;
        this.sessionTimeoutMs = sessionTimeoutMs;
    }

    /** The node whose leadership this service follows; requests before it is attached get NO_CONTROLLER. */
    void attach(MetadataQuorumNode quorumNode) {
        this.node = quorumNode;
    }

    /** This node's controller for the current term if it is the leader, else null (and the old one dropped). */
    synchronized Controller current() {
        MetadataQuorumNode n = node;
        if (n == null || !n.isLeader()) {
            if (controller != null) {
                LOG.info("Node {} is no longer the controller (term {})", n == null ? -1 : n.nodeId(), controllerTerm);
                controller = null;
                controllerTerm = -1;
            }
            return null;
        }
        long term = n.term();
        if (controller == null || controllerTerm != term) {
            if (!n.isLeaderCaughtUp()) {
                // a new leader may not have applied the last terms' entries yet: its controller
                // would decide on a stale image; asked again, it will have
                return null;
            }
            controller = new Controller(clock, sessionTimeoutMs, n, UUID::randomUUID);
            controllerTerm = term;
            LOG.info("Node {} is the controller (term {})", n.nodeId(), term);
        }
        return controller;
    }

    /** Fences the brokers whose sessions expired, if this node is the controller. */
    void tick() {
        Controller c = current();
        if (c != null) {
            c.tick().whenComplete((fenced, e) -> {
                if (e != null) {
                    LOG.debug("Controller tick failed: {}", e.toString());
                } else if (!fenced.isEmpty()) {
                    LOG.info("Fenced brokers {}: not heard for {} ms", fenced, sessionTimeoutMs);
                }
            });
        }
    }

    /** Answers one request's bytes (the state machine's query handler); never fails. */
    CompletableFuture<byte[]> handle(ByteBuffer bytes) {
        ControllerAsk ask = ControllerAsk.unwrap(bytes);
        ControllerRequest request;
        try {
            request = ControllerRequest.decode(ask.request());
        } catch (CorruptMetadataException e) {
            return CompletableFuture.completedFuture(
                    ControllerReply.refused(ControllerError.INVALID_REQUEST, e.getMessage()).encode());
        }
        if (request instanceof ControllerRequest.DescribeQuorum) {
            // the leader's view needs no controller, only leadership; -1: nothing to wait for
            MetadataQuorumNode leader = node;
            return CompletableFuture.completedFuture(leader != null && leader.isLeader()
                    ? ControllerReply.decided(-1, QuorumStatuses.of(leader)).encode()
                    : ControllerReply.noController("node " + (leader == null ? "?" : leader.nodeId())
                            + " is not the leader").encode());
        }
        Controller c = current();
        MetadataQuorumNode n = node;
        if (c == null) {
            return CompletableFuture.completedFuture(ControllerReply.noController("node "
                    + (n == null ? "?" : n.nodeId()) + " is not the controller").encode());
        }
        if (request instanceof ControllerRequest.ReadBarrier) {
            // no decision, nothing queued: every decision answered so far was applied here first
            return CompletableFuture.completedFuture(ControllerReply.decided(n.lastAppliedIndex(), null).encode());
        }
        if (ask.id() == null) {
            return answer(c, n, request);
        }
        // an ask sent again (Ratis' client resends after a failed stream) gets the first answer
        return recentAsks.answer(ask.id(), () -> answer(c, n, request));
    }

    /** Has {@code c} decide {@code request}; completes with the reply's bytes, never exceptionally. */
    private static CompletableFuture<byte[]> answer(Controller c, MetadataQuorumNode n, ControllerRequest request) {
        CompletableFuture<?> decision;
        try {
            decision = decide(c, request);
        } catch (RuntimeException e) {
            decision = CompletableFuture.failedFuture(e);
        }
        return decision.handle((value, e) -> {
            if (e == null) {
                return ControllerReply.decided(n.lastAppliedIndex(), value).encode();
            }
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof ControllerException ce) {
                return ControllerReply.refused(ce.error(), ce.getMessage()).encode();
            }
            // the append failed (leadership lost, a time-out): the decision may or may not be in the log
            return ControllerReply.refused(ControllerError.NOT_CONTROLLER, "the controller on node " + n.nodeId()
                    + " could not commit the decision: " + cause).encode();
        });
    }

    private static CompletableFuture<?> decide(Controller c, ControllerRequest request) {
        if (request instanceof ControllerRequest.Register r) {
            return c.registerBroker(r.brokerId(), r.incarnationId(), r.listeners(), r.rack());
        } else if (request instanceof ControllerRequest.Heartbeat h) {
            return c.heartbeat(h.brokerId(), h.brokerEpoch());
        } else if (request instanceof ControllerRequest.CreateTopic t) {
            return c.createTopic(t.name(), t.partitions(), t.replicationFactor(), t.configs());
        } else if (request instanceof ControllerRequest.CreateTopicAssigned t) {
            return c.createTopic(t.name(), t.assignment(), t.configs());
        } else if (request instanceof ControllerRequest.CreatePartitionsAssigned p) {
            return c.createPartitions(p.name(), p.totalCount(), p.assignment());
        } else if (request instanceof ControllerRequest.CreatePartitions p) {
            return c.createPartitions(p.name(), p.totalCount());
        } else if (request instanceof ControllerRequest.DeleteTopic d) {
            return c.deleteTopic(d.name());
        } else if (request instanceof ControllerRequest.AlterTopicConfig a) {
            return c.alterTopicConfig(a.topic(), a.key(), a.value());
        } else if (request instanceof ControllerRequest.ReplaceTopicConfigs a) {
            return c.replaceTopicConfigs(a.topic(), a.expected(), a.configs());
        } else if (request instanceof ControllerRequest.ControlledShutdown s) {
            return c.controlledShutdown(s.brokerId(), s.brokerEpoch());
        } else if (request instanceof ControllerRequest.AllocateProducerIds a) {
            return c.allocateProducerIds(a.brokerId(), a.brokerEpoch());
        } else if (request instanceof ControllerRequest.AlterReassignment a) {
            return c.alterPartitionReassignment(a.topic(), a.partition(), a.target());
        } else if (request instanceof ControllerRequest.ReplicaCaughtUp u) {
            return c.replicaCaughtUp(u.brokerId(), u.brokerEpoch(), u.topic(), u.partition());
        } else if (request instanceof ControllerRequest.ReplicaDrained d) {
            return c.replicaDrained(d.brokerId(), d.brokerEpoch(), d.topic(), d.partition());
        } else if (request instanceof ControllerRequest.ElectLeader l) {
            return c.electLeader(l.topic(), l.partition(), l.unclean());
        } else if (request instanceof ControllerRequest.UnregisterBroker u) {
            return c.unregisterBroker(u.brokerId());
        } else if (request instanceof ControllerRequest.NodeDirectory d) {
            return c.recordDirectory(d.nodeId(), d.directoryId());
        } else if (request instanceof ControllerRequest.WriteSecurity w) {
            return c.writeSecurity(w.records());
        }
        throw new IllegalStateException("no decision for " + request);
    }
}
