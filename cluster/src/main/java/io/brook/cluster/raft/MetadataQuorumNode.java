package io.brook.cluster.raft;

import io.brook.cluster.metadata.MetadataCodec;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.retry.ExceptionDependentRetry;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One voter of the metadata quorum: a Ratis server over gRPC on the node's controller listener,
 * holding a {@link MetadataStateMachine}, and a Ratis client through which this node appends
 * batches of records (the client finds the leader itself). A second client sends read-only
 * queries to the leader's state machine ({@link #query}): the controller channel.
 *
 * <p>Before its server starts, a node checks that it belongs to the cluster (docs/cluster.md,
 * section 9): its metadata directory must have been made for this cluster id and node id ({@link
 * QuorumIdentityFile}), and no reachable voter may serve another cluster's metadata group. The
 * group id is a name-based UUID of the cluster id, so a node configured with another cluster id
 * addresses another group, which the voters would refuse anyway, silently; the check says why.
 *
 * <p>Thread-safe: Ratis owns the threads; {@link #append} may be called from any thread.
 */
public final class MetadataQuorumNode implements MetadataLog, Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataQuorumNode.class);

    /** How long a client request (an append, a snapshot, a voter's group list) waits for a reply. */
    private static final TimeDuration REQUEST_TIMEOUT = TimeDuration.valueOf(3, TimeUnit.SECONDS);
    /** Retries of an append while a leader is elected: 100 × 100 ms, about ten election rounds. */
    private static final int APPEND_ATTEMPTS = 100;
    private static final TimeDuration APPEND_RETRY_SLEEP = TimeDuration.valueOf(100, TimeUnit.MILLISECONDS);
    /** How long a query (a controller decision: a commit, behind the decisions before it) waits for its reply. */
    private static final TimeDuration QUERY_TIMEOUT = TimeDuration.valueOf(10, TimeUnit.SECONDS);
    /** Retries of a configuration change while a leader is elected or another change finishes: 2 s. */
    private static final int ADMIN_ATTEMPTS = 20;
    /** How soon the only voter named in the configuration stands for its first election. */
    private static final TimeDuration SOLE_VOTER_FIRST_ELECTION = TimeDuration.valueOf(10, TimeUnit.MILLISECONDS);

    private final QuorumConfig config;
    private final RaftGroup group;
    private final RaftPeerId selfId;
    private final MetadataStateMachine stateMachine;
    private final RaftServer server;
    private final RaftClient client;
    private final RaftClient queryClient;
    private final RaftClient adminClient;
    private final LongAdder remoteQueries = new LongAdder();
    private final RaftProperties properties;

    private MetadataQuorumNode(QuorumConfig config, RaftGroup group, MetadataStateMachine stateMachine,
                               RaftServer server, RaftClient client, RaftClient queryClient, RaftClient adminClient,
                               RaftProperties properties) {
        this.config = config;
        this.group = group;
        this.selfId = peerId(config.nodeId());
        this.stateMachine = stateMachine;
        this.server = server;
        this.client = client;
        this.queryClient = queryClient;
        this.adminClient = adminClient;
        this.properties = properties;
    }

    /**
     * Checks that this node belongs to the cluster, then starts its Ratis server (recovering its
     * log and newest snapshot if it has them) and its client.
     *
     * @throws ClusterMembershipException if the node belongs to another cluster or node id
     */
    public static MetadataQuorumNode start(QuorumConfig config) throws IOException {
        return start(config, new MetadataStateMachine());
    }

    /**
     * Starts a node whose state machine answers read-only requests ({@link #query}) with {@code
     * queryHandler}: the controller channel.
     */
    public static MetadataQuorumNode start(QuorumConfig config,
                                           Function<ByteBuffer, CompletableFuture<byte[]>> queryHandler)
            throws IOException {
        return start(config, new MetadataStateMachine(queryHandler));
    }

    private static MetadataQuorumNode start(QuorumConfig config, MetadataStateMachine stateMachine)
            throws IOException {
        RaftGroupId groupId = groupId(config.clusterId());
        boolean known = QuorumIdentityFile.check(config.metadataDir(), config.clusterId(), config.nodeId());
        int tookPort = 0;
        if (config.address().getPort() == 0) {
            // a listener without a configured port: the one it took before, else a free one, kept from now on
            int stored = known ? QuorumIdentityFile.listenerPort(config.metadataDir()) : 0;
            tookPort = stored != 0 ? stored : ControllerAddressCheck.freePort(config.address().getHostString());
            config = config.withAddress(InetSocketAddress.createUnresolved(config.address().getHostString(), tookPort));
        }
        RaftProperties props = properties(config);

        String staticVoters = votersString(config);
        // a restart with the static voters this node first started with is accepted whatever the group's are now
        boolean firstVoters = known && staticVoters != null
                && staticVoters.equals(QuorumIdentityFile.initialVoters(config.metadataDir()));
        QuorumMembers running = QuorumDiscovery.check(config, groupId, props, firstVoters);
        ControllerAddressCheck.requireFree(config);
        QuorumMembers members = startingMembers(config, running, known);
        if (!known) {
            QuorumIdentityFile.create(config.metadataDir(), config.clusterId(), config.nodeId(), tookPort,
                    config.configuredVoter() ? staticVoters : null);
        }
        RaftGroup group = RaftGroup.valueOf(groupId, members.allPeers());
        // Ratis keeps its default corruption policy (refuse to start on a bad entry); a torn last entry
        // of the open segment, which a crash leaves, is cut off first, and a damaged closed one named
        MetadataLogRepair.check(config.metadataDir());

        Parameters parameters = new Parameters();
        GrpcConfigKeys.Server.setServicesCustomizer(parameters,
                new DurableVoteInterceptor(stateMachine::beforeVoteGranted).customizer());
        RaftServer server = RaftServer.newBuilder()
                .setServerId(peerId(config.nodeId()))
                .setGroup(group)
                .setStateMachine(stateMachine)
                .setProperties(props)
                .setParameters(parameters)
                .setOption(RaftStorage.StartupOption.RECOVER)
                .build();
        RaftClient client;
        RaftClient queryClient;
        RaftClient adminClient;
        try {
            server.start();
            // the voters as Ratis recovered them (its stored configuration wins over the one given)
            RaftGroup voters = RaftGroup.valueOf(groupId,
                    QuorumMembers.of(server.getDivision(groupId).getRaftConf()).voterPeers());
            client = RaftClient.newBuilder().setProperties(props).setRaftGroup(voters)
                    .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(APPEND_ATTEMPTS, APPEND_RETRY_SLEEP))
                    .build();
            queryClient = queryClient(props, voters);
            adminClient = adminClient(props, voters);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        LOG.info("Node {} started in the metadata quorum of cluster {} (group {}, {} {})", config.nodeId(),
                config.clusterId(), groupId, config.configuredVoter() ? "voters" : "a listener of the voters",
                members.voters().keySet());
        return new MetadataQuorumNode(config, group, stateMachine, server, client, queryClient, adminClient, props);
    }

    /** {@code controller.quorum.voters} in a canonical form, null if empty. */
    private static String votersString(QuorumConfig config) {
        if (config.voters().isEmpty()) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        config.voters().forEach((id, a) -> b.append(b.length() == 0 ? "" : ",").append(id).append('@')
                .append(QuorumDiscovery.address(a)));
        return b.toString();
    }

    /**
     * The members this node's Ratis server starts with (its stored configuration, on a restart,
     * overrides them): the running group's members if a voter answered, else the configured
     * voters; this node among them, as a listener unless it is a voter already.
     */
    private static QuorumMembers startingMembers(QuorumConfig config, QuorumMembers running, boolean known) {
        String self = QuorumDiscovery.address(config.address());
        QuorumMembers members;
        if (running != null) {
            members = running;
        } else if (!config.voters().isEmpty()) {
            Map<Integer, String> v = new TreeMap<>();
            config.voters().forEach((id, a) -> v.put(id, QuorumDiscovery.address(a)));
            members = new QuorumMembers(v, Map.of());
        } else if (known) {
            members = new QuorumMembers(Map.of(), Map.of());
        } else {
            throw new ClusterMembershipException("node " + config.nodeId() + ": no voter of "
                    + QuorumConfig.CONTROLLER_QUORUM_BOOTSTRAP_SERVERS + " " + config.bootstrapServers()
                    + " answers, and this node has no metadata yet to start from: start it again once they run");
        }
        if (members.voters().containsKey(config.nodeId())) {
            return members.withVoter(config.nodeId(), self);
        }
        return members.withListener(config.nodeId(), self);
    }

    /**
     * The client of the voters' configuration changes: it retries while a leader is elected or
     * another change finishes, with the longer time-out of a query.
     */
    private static RaftClient adminClient(RaftProperties props, RaftGroup group) {
        RaftProperties adminProps = new RaftProperties(props);
        RaftClientConfigKeys.Rpc.setRequestTimeout(adminProps, QUERY_TIMEOUT);
        return RaftClient.newBuilder().setProperties(adminProps).setRaftGroup(group)
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(ADMIN_ATTEMPTS, APPEND_RETRY_SLEEP))
                .build();
    }

    /**
     * The client of {@link #query}: it follows NotLeader and LeaderNotReady replies like the append
     * client, but never sends a query again after a time-out. Ratis' retry cache covers writes, not
     * queries, and a query (a controller decision) that timed out may have run; Ratis' client also
     * sends a query again when the stream it went out on fails, which the controller recognises by
     * the ask's id ({@code ControllerAsk}), so that it never decides twice. Its time-out is longer
     * than the append client's, since a decision waits for the decisions asked before it.
     */
    private static RaftClient queryClient(RaftProperties props, RaftGroup group) {
        RaftProperties queryProps = new RaftProperties(props);
        RaftClientConfigKeys.Rpc.setRequestTimeout(queryProps, QUERY_TIMEOUT);
        RetryPolicy retry = ExceptionDependentRetry.newBuilder()
                .setDefaultPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(APPEND_ATTEMPTS, APPEND_RETRY_SLEEP))
                .setExceptionToPolicy(TimeoutIOException.class, RetryPolicies.noRetry())
                .setMaxAttempts(APPEND_ATTEMPTS)
                .build();
        return RaftClient.newBuilder().setProperties(queryProps).setRaftGroup(group).setRetryPolicy(retry).build();
    }

    /** The metadata group of a cluster: a name-based UUID of its cluster id. */
    public static RaftGroupId groupId(String clusterId) {
        return RaftGroupId.valueOf(UUID.nameUUIDFromBytes(("brook-metadata:" + clusterId).getBytes(StandardCharsets.UTF_8)));
    }

    private static RaftPeerId peerId(int nodeId) {
        return RaftPeerId.valueOf(String.valueOf(nodeId));
    }

    static RaftProperties properties(QuorumConfig config) {
        RaftProperties props = new RaftProperties();
        // gRPC, not Netty: docs/cluster.md, section 2 (Ratis 3.1.3's Netty transport never reconnected
        // to a follower that restarted; not tried again since). The client and admin services share the server's port.
        RaftConfigKeys.Rpc.setType(props, SupportedRpcType.GRPC);
        GrpcConfigKeys.Server.setHost(props, config.address().getHostString());
        GrpcConfigKeys.Server.setPort(props, config.address().getPort());
        RaftServerConfigKeys.setStorageDir(props, List.of(config.metadataDir().toFile()));
        RaftServerConfigKeys.Rpc.setTimeoutMin(props,
                TimeDuration.valueOf(config.electionTimeoutMin().toMillis(), TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(props,
                TimeDuration.valueOf(config.electionTimeoutMax().toMillis(), TimeUnit.MILLISECONDS));
        if (config.voters().keySet().equals(Set.of(config.nodeId()))) {
            // the only voter named: stand for election at once, as a single KRaft voter does, rather
            // than wait out an election time-out for votes no one else can cast (if the log has more
            // voters now, the pre-vote fails and the usual time-outs follow)
            RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(props, SOLE_VOTER_FIRST_ELECTION);
            RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(props, SOLE_VOTER_FIRST_ELECTION.multiply(2));
        }
        // automatic snapshots (also one when the server stops) unless the threshold is 0
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(props, config.snapshotThreshold() > 0);
        if (config.snapshotThreshold() > 0) {
            RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(props, config.snapshotThreshold());
        }
        RaftClientConfigKeys.Rpc.setRequestTimeout(props, REQUEST_TIMEOUT);
        config.ratisProperties().forEach(props::set);
        return props;
    }

    /**
     * Sends a read-only request to the leader's state machine; completes with the leader's answer.
     *
     * <p>On the leader itself (ready: its term's first entry committed) the state machine answers
     * at once, after the same check Ratis' server makes for a read-only request; nothing goes
     * through Ratis' client to this node's own port. Elsewhere Ratis' client sends it to the
     * leader it knows and follows NotLeader replies. Unordered on purpose: Ratis orders a client's
     * ordered requests on the server, so the leader's own controller, whose appends go through
     * this node's client, would wait behind the very query that waits for them.
     *
     * <p>Why the leader answers its own node directly: when one reply on Ratis' client stream is
     * NotLeader, the client fails every request in flight on that stream and closes it; the next
     * request then fails as closed, which makes the client close and reopen its connection, and
     * that fails every request in flight again, each failure resetting the connection once more.
     * Under a steady stream of requests at a node's first start those resets did not stop
     * (RELIABILITY.md, finding 9). The leader's own node no longer uses the client, and no node
     * sends while it knows no leader ({@link #awaitsLeader}).
     */
    public CompletableFuture<ByteBuffer> query(byte[] request) {
        Message message = Message.valueOf(UnsafeByteOperations.unsafeWrap(request));
        DivisionInfo info = info();
        if (info != null && info.isLeader() && info.isLeaderReady()) {
            return stateMachine.query(message).thenApply(reply -> reply.getContent().asReadOnlyByteBuffer());
        }
        remoteQueries.increment();
        return queryClient.async().sendReadOnlyUnordered(message).thenApply(reply -> {
            if (!reply.isSuccess()) {
                throw new CompletionException(reply.getException());
            }
            return reply.getMessage().getContent().asReadOnlyByteBuffer();
        });
    }

    /**
     * Whether this node runs in the quorum but has no leader to ask now: it knows none (an
     * election is on, or a new listener has not heard from the leader yet), or it has just been
     * elected and its term's first entry is not committed yet. A query sent now could only be
     * refused.
     */
    public boolean awaitsLeader() {
        DivisionInfo info = info();
        return info != null && (info.getLeaderId() == null || info.isLeader() && !info.isLeaderReady());
    }

    /** How many queries went through Ratis' client to another node (the rest were answered here, on the leader). */
    public long remoteQueries() {
        return remoteQueries.sum();
    }

    /** This node's Ratis division (for the quorum's status), or null once it is gone. */
    public RaftServer.Division division() {
        try {
            return server.getDivision(group.getGroupId());
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Appends a batch of records as one log entry through the leader; completes once the entry is
     * committed and applied on the leader, with which records the image applied. On the leader
     * (the controller's node) that means applied to this node's image too.
     */
    @Override
    public CompletableFuture<AppendResult> append(List<? extends MetadataRecord> records) {
        Message message = Message.valueOf(UnsafeByteOperations.unsafeWrap(MetadataCodec.encodeBatch(records)));
        return client.async().send(message).thenApply(MetadataQuorumNode::resultOf);
    }

    private static AppendResult resultOf(RaftClientReply reply) {
        if (!reply.isSuccess()) {
            throw new CompletionException(reply.getException());
        }
        return AppendResult.fromMessage(reply.getMessage());
    }

    @Override
    public <T> T read(Function<MetadataImage, T> reader) {
        return stateMachine.read(reader);
    }

    @Override
    public long lastAppliedIndex() {
        return stateMachine.lastAppliedIndex();
    }

    /**
     * Asks the leader to hand leadership (and so the controller) to voter {@code nodeId}, for
     * operators before a planned stop of the leader; waits up to {@code timeoutMs}.
     */
    public void transferLeadership(int nodeId, long timeoutMs) throws IOException {
        RaftClientReply reply = client.admin().transferLeadership(peerId(nodeId), timeoutMs);
        if (!reply.isSuccess()) {
            throw new IOException("leadership did not move to node " + nodeId, reply.getException());
        }
    }

    /** The group's voters and listeners as this node's Ratis configuration has them; empty once gone. */
    public QuorumMembers members() {
        RaftServer.Division d = division();
        return d == null ? new QuorumMembers(Map.of(), Map.of()) : QuorumMembers.of(d.getRaftConf());
    }

    /** The group's voters and listeners as the leader has them; null if no voter answers as the leader. */
    public QuorumMembers leaderMembers() {
        return QuorumDiscovery.fromLeader(group.getGroupId(), properties, members().voters());
    }

    /** This node's own Raft address ({@code host:port}). */
    public String address() {
        return QuorumDiscovery.address(config.address());
    }

    /**
     * One attempt to have the leader list this node, if it is not a voter, as a listener at its
     * current address (a node that joins, or restarts on another port); true once it is listed.
     * The leader then sends it the log (from a snapshot if the log was purged). A listener listed
     * at another address (its controller listener's port was changed) is only warned about: Ratis
     * takes a configuration that differs in a member's address alone for no change, and a
     * running leader keeps sending to a member's first address.
     */
    public boolean joinAsListener() throws IOException {
        QuorumMembers current = leaderMembers();
        if (current == null) {
            return false;
        }
        if (current.voters().containsKey(config.nodeId()) || address().equals(current.listeners().get(config.nodeId()))) {
            return true;
        }
        if (current.listeners().containsKey(config.nodeId())) {
            LOG.warn("Node {} listens for the metadata log at {}, but the quorum has it at {}: give it its old port back,"
                    + " or restart the voters", config.nodeId(), address(), current.listeners().get(config.nodeId()));
            return true;
        }
        changeMembers(current, current.withListener(config.nodeId(), address()));
        return true;
    }

    /**
     * Changes the group's members from {@code from} to {@code to} through the leader (Ratis'
     * setConfiguration, compare-and-set: refused if the leader's members are no longer {@code
     * from}); returns once the new configuration is committed.
     */
    public void changeMembers(QuorumMembers from, QuorumMembers to) throws IOException {
        SetConfigurationRequest.Arguments args = SetConfigurationRequest.Arguments.newBuilder()
                .setServersInCurrentConf(from.voterPeers()).setListenersInCurrentConf(from.listenerPeers())
                .setServersInNewConf(to.voterPeers()).setListenersInNewConf(to.listenerPeers())
                .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET).build();
        RaftClientReply reply = adminClient.admin().setConfiguration(args);
        if (!reply.isSuccess()) {
            throw new IOException("the metadata quorum's members did not change from " + from + " to " + to,
                    reply.getException());
        }
        LOG.info("The metadata quorum's members changed from {} to {}", from, to);
    }

    /** Whether this node's Ratis server runs as a listener (it receives the log but does not vote). */
    public boolean isListener() {
        DivisionInfo info = info();
        return info != null && info.isListener();
    }

    /** Takes a snapshot of this node's state machine now; returns its log index. */
    public long takeSnapshot() throws IOException {
        RaftClientReply reply = client.getSnapshotManagementApi(selfId)
                .create(true, REQUEST_TIMEOUT.toLong(TimeUnit.MILLISECONDS));
        if (!reply.isSuccess()) {
            throw new IOException("snapshot of node " + config.nodeId() + " failed", reply.getException());
        }
        return reply.getLogIndex();
    }

    public int nodeId() {
        return config.nodeId();
    }

    public QuorumConfig config() {
        return config;
    }

    public MetadataStateMachine stateMachine() {
        return stateMachine;
    }

    /** Whether this node is the Ratis leader, that is, the controller. */
    public boolean isLeader() {
        DivisionInfo info = info();
        return info != null && info.isLeader();
    }

    /**
     * Whether this node is the leader, ready (its term's first entry is committed), and has
     * applied every entry committed so far, so that its image holds every earlier term's decisions.
     */
    public boolean isLeaderCaughtUp() {
        RaftServer.Division d = division();
        if (d == null) {
            return false;
        }
        DivisionInfo info = d.getInfo();
        return info.isLeader() && info.isLeaderReady()
                && stateMachine.lastAppliedIndex() >= d.getRaftLog().getLastCommittedIndex();
    }

    /** The node id of the leader as this node knows it, if it knows one. */
    public OptionalInt leaderId() {
        DivisionInfo info = info();
        RaftPeerId leader = info == null ? null : info.getLeaderId();
        return leader == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(leader.toString()));
    }

    /** The current Raft term as this node knows it, -1 if its division is gone. */
    public long term() {
        DivisionInfo info = info();
        return info == null ? -1 : info.getCurrentTerm();
    }

    /** The first index this node's Raft log still holds (entries before it are in a snapshot), -1 if gone. */
    public long logStartIndex() {
        try {
            return server.getDivision(group.getGroupId()).getRaftLog().getStartIndex();
        } catch (IOException e) {
            return -1;
        }
    }

    private DivisionInfo info() {
        try {
            return server.getDivision(group.getGroupId()).getInfo();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            adminClient.close();
            queryClient.close();
            client.close();
        } finally {
            server.close();
        }
    }
}
