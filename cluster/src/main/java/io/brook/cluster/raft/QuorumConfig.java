package io.brook.cluster.raft;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node's place in the metadata quorum, read from Kafka's KRaft property names
 * (docs/cluster.md, section 8): {@code process.roles}, {@code node.id}, {@code
 * controller.quorum.voters}, {@code controller.listener.names}, {@code listeners}, {@code
 * log.dirs}, plus Brook's {@code cluster.id} (Kafka writes it with its format step, which Brook
 * does without).
 *
 * <p>The election time-out is Kafka's {@code controller.quorum.election.timeout.ms} (default
 * 1000): a follower that hears no leader for a random time between it and twice it starts an
 * election, as Kafka's raft client randomises it; in-JVM tests shorten it. Ratis' own default
 * (150 to 300 ms) made three node processes starting at once on a busy two-core machine elect
 * leader after leader, which lose their majority within a heartbeat, and once left a follower
 * whose uncommitted first entry conflicted with the leader's refusing appends for good. The
 * snapshot threshold is a Ratis setting, which Kafka has no name for. A snapshot threshold of 0 turns
 * automatic snapshots off (snapshots are then taken only on request). {@code ratisProperties} are
 * further Ratis settings by Ratis' own names ({@code raft.server.log.segment.size.max}, ...), set
 * last, for tuning and for tests that need small log segments.
 *
 * <p>A node that is not among the configured voters (a broker-only node, or a node that joins a
 * running cluster with Kafka's KIP-853 {@code controller.quorum.bootstrap.servers}) follows the
 * metadata log as a Ratis listener (docs/cluster.md, section 6). The voters send it the log, so
 * it needs an address of its own too: its {@code controller.listener.names} listener if {@code
 * listeners} names one (Kafka's brokers have none), else a free port on its first listener's host
 * (port 0 here, chosen at start).
 *
 * @param voters each voter's node id and controller listener address, in id order; may be empty
 *     when {@code bootstrapServers} names where to find them
 * @param metadataDir where Ratis keeps this node's log and snapshots: {@code
 *     <first log dir>/__cluster_metadata-0}, Kafka's directory name
 * @param bootstrapServers {@code controller.quorum.bootstrap.servers}: voters' addresses without ids
 * @param listenerAddress this node's own Ratis address; port 0 for any free port
 */
public record QuorumConfig(Set<String> processRoles, int nodeId, String clusterId, Map<Integer, InetSocketAddress> voters,
                           Path metadataDir, Duration electionTimeoutMin, Duration electionTimeoutMax,
                           long snapshotThreshold, Map<String, String> ratisProperties,
                           List<InetSocketAddress> bootstrapServers, InetSocketAddress listenerAddress) {

    public static final String PROCESS_ROLES = "process.roles";
    public static final String NODE_ID = "node.id";
    public static final String CLUSTER_ID = "cluster.id";
    public static final String CONTROLLER_QUORUM_VOTERS = "controller.quorum.voters";
    /** Kafka's KIP-853 name: where a node finds the voters, without knowing their ids. */
    public static final String CONTROLLER_QUORUM_BOOTSTRAP_SERVERS = "controller.quorum.bootstrap.servers";
    public static final String ADVERTISED_LISTENERS = "advertised.listeners";
    public static final String CONTROLLER_LISTENER_NAMES = "controller.listener.names";
    public static final String LISTENERS = "listeners";
    public static final String LOG_DIRS = "log.dirs";
    public static final String LOG_DIR = "log.dir";

    public static final String ELECTION_TIMEOUT_MS = "controller.quorum.election.timeout.ms";
    /** Kafka's default of {@code controller.quorum.election.timeout.ms}. */
    static final int DEFAULT_ELECTION_TIMEOUT_MS = 1000;
    /** Entries between automatic snapshots (a Ratis setting; Kafka counts bytes instead). */
    static final long DEFAULT_SNAPSHOT_THRESHOLD = 10_000;

    private static final Pattern VOTER = Pattern.compile("(\\d+)@(.+):(\\d+)");
    private static final Pattern LISTENER = Pattern.compile("([A-Za-z0-9_]+)://(.*):(\\d+)");
    private static final Pattern HOST_PORT = Pattern.compile("(.+):(\\d+)");

    public QuorumConfig {
        processRoles = Set.copyOf(processRoles);
        ratisProperties = Map.copyOf(ratisProperties);
        voters = Collections.unmodifiableMap(new TreeMap<>(voters));
        bootstrapServers = List.copyOf(bootstrapServers);
        if (voters.isEmpty() && bootstrapServers.isEmpty()) {
            throw new IllegalArgumentException("neither " + CONTROLLER_QUORUM_VOTERS + " nor "
                    + CONTROLLER_QUORUM_BOOTSTRAP_SERVERS + " names a voter");
        }
        if (processRoles.contains("controller") && !voters.containsKey(nodeId) && bootstrapServers.isEmpty()) {
            throw new IllegalArgumentException("node " + nodeId + " has the controller role but is not in "
                    + CONTROLLER_QUORUM_VOTERS + " " + voters.keySet());
        }
        if (clusterId == null || clusterId.isEmpty()) {
            throw new IllegalArgumentException(CLUSTER_ID + " is required in cluster mode (" + PROCESS_ROLES
                    + " is set): set it in the configuration, the same on every node and at every start (Kafka"
                    + " takes it from kafka-storage.sh format --cluster-id; any id will do, e.g. one from"
                    + " kafka-storage.sh random-uuid); without " + PROCESS_ROLES + " Brook runs as a single node"
                    + " and needs none");
        }
        if (listenerAddress == null) {
            listenerAddress = voters.get(nodeId);
        }
        if (listenerAddress == null) {
            throw new IllegalArgumentException("node " + nodeId + " has no address for the metadata log");
        }
    }

    /** A voter's config, its own address from {@code voters}. */
    public QuorumConfig(Set<String> processRoles, int nodeId, String clusterId, Map<Integer, InetSocketAddress> voters,
                        Path metadataDir, Duration electionTimeoutMin, Duration electionTimeoutMax,
                        long snapshotThreshold, Map<String, String> ratisProperties) {
        this(processRoles, nodeId, clusterId, voters, metadataDir, electionTimeoutMin, electionTimeoutMax,
                snapshotThreshold, ratisProperties, List.of(), voters.get(nodeId));
    }

    /** This node's own Ratis address (its controller listener; port 0 for a free port chosen at start). */
    public InetSocketAddress address() {
        return listenerAddress;
    }

    /**
     * Whether this node starts as a voter: it is in {@code controller.quorum.voters}. Any other
     * node follows the log as a Ratis listener until AddRaftVoter makes it a voter.
     */
    public boolean configuredVoter() {
        return voters.containsKey(nodeId);
    }

    /** The same config with another metadata directory. */
    public QuorumConfig withMetadataDir(Path dir) {
        return new QuorumConfig(processRoles, nodeId, clusterId, voters, dir, electionTimeoutMin, electionTimeoutMax,
                snapshotThreshold, ratisProperties, bootstrapServers, listenerAddress);
    }

    /** The same config with another own address (a listener's port 0 resolved). */
    public QuorumConfig withAddress(InetSocketAddress address) {
        return new QuorumConfig(processRoles, nodeId, clusterId, voters, metadataDir, electionTimeoutMin,
                electionTimeoutMax, snapshotThreshold, ratisProperties, bootstrapServers, address);
    }

    /** The same config with other Ratis election time-outs (tests shorten them). */
    public QuorumConfig withElectionTimeout(Duration min, Duration max) {
        return new QuorumConfig(processRoles, nodeId, clusterId, voters, metadataDir, min, max, snapshotThreshold,
                ratisProperties, bootstrapServers, listenerAddress);
    }

    /** The same config with another automatic snapshot threshold. */
    public QuorumConfig withSnapshotThreshold(long entries) {
        return new QuorumConfig(processRoles, nodeId, clusterId, voters, metadataDir, electionTimeoutMin,
                electionTimeoutMax, entries, ratisProperties, bootstrapServers, listenerAddress);
    }

    /** The same config with one more Ratis setting, by Ratis' name. */
    public QuorumConfig withRatisProperty(String key, String value) {
        Map<String, String> more = new TreeMap<>(ratisProperties);
        more.put(key, value);
        return new QuorumConfig(processRoles, nodeId, clusterId, voters, metadataDir, electionTimeoutMin,
                electionTimeoutMax, snapshotThreshold, more, bootstrapServers, listenerAddress);
    }

    /**
     * Reads a node's properties; an empty {@code process.roles} means single-node Brook, which has
     * no quorum (an {@link IllegalArgumentException} here, as every other inconsistency).
     */
    public static QuorumConfig fromProperties(Map<String, String> props) {
        String roles = props.getOrDefault(PROCESS_ROLES, "").trim();
        if (roles.isEmpty()) {
            throw new IllegalArgumentException(PROCESS_ROLES + " is empty: this node runs single-node Brook");
        }
        Set<String> roleSet = new java.util.TreeSet<>();
        for (String r : roles.split(",", -1)) {
            String role = r.trim().toLowerCase(Locale.ROOT);
            if (!role.equals("broker") && !role.equals("controller")) {
                throw new IllegalArgumentException(PROCESS_ROLES + " holds an unknown role '" + r.trim() + "'");
            }
            roleSet.add(role);
        }
        int nodeId = parseInt(NODE_ID, required(props, NODE_ID));
        if (nodeId < 0) {
            throw new IllegalArgumentException(NODE_ID + " must not be negative: " + nodeId);
        }
        String voterList = props.getOrDefault(CONTROLLER_QUORUM_VOTERS, "").trim();
        String bootstrapList = props.getOrDefault(CONTROLLER_QUORUM_BOOTSTRAP_SERVERS, "").trim();
        if (voterList.isEmpty() && bootstrapList.isEmpty()) {
            throw new IllegalArgumentException(CONTROLLER_QUORUM_VOTERS + " or " + CONTROLLER_QUORUM_BOOTSTRAP_SERVERS
                    + " is required in cluster mode");
        }
        Map<Integer, InetSocketAddress> voters = voterList.isEmpty() ? Map.of() : parseVoters(voterList);
        List<InetSocketAddress> bootstrap = bootstrapList.isEmpty() ? List.of() : parseBootstrapServers(bootstrapList);
        InetSocketAddress own;
        if (voters.containsKey(nodeId)) {
            checkControllerListener(props, nodeId, voters.get(nodeId));
            own = voters.get(nodeId);
        } else if (roleSet.contains("controller") && bootstrap.isEmpty()) {
            throw new IllegalArgumentException("node " + nodeId + " has the controller role but is not in "
                    + CONTROLLER_QUORUM_VOTERS + " " + voters.keySet() + " (a controller that joins a running cluster"
                    + " names it with " + CONTROLLER_QUORUM_BOOTSTRAP_SERVERS + ")");
        } else {
            own = listenerAddress(props);
        }
        String logDirs = props.getOrDefault(LOG_DIRS, props.getOrDefault(LOG_DIR, "/tmp/kafka-logs"));
        Path metadataDir = Path.of(logDirs.split(",", -1)[0].trim(), "__cluster_metadata-0");
        int electionTimeoutMs = parseInt(ELECTION_TIMEOUT_MS,
                props.getOrDefault(ELECTION_TIMEOUT_MS, Integer.toString(DEFAULT_ELECTION_TIMEOUT_MS)));
        if (electionTimeoutMs < 1) {
            throw new IllegalArgumentException(ELECTION_TIMEOUT_MS + " must be positive: " + electionTimeoutMs);
        }
        return new QuorumConfig(roleSet, nodeId, props.get(CLUSTER_ID), voters, metadataDir,
                Duration.ofMillis(electionTimeoutMs), Duration.ofMillis(2L * electionTimeoutMs),
                DEFAULT_SNAPSHOT_THRESHOLD, Map.of(), bootstrap, own);
    }

    /** {@code host:port,...}, Kafka's format of {@code controller.quorum.bootstrap.servers}. */
    static List<InetSocketAddress> parseBootstrapServers(String value) {
        List<InetSocketAddress> out = new ArrayList<>();
        for (String v : value.split(",", -1)) {
            Matcher m = HOST_PORT.matcher(v.trim());
            int port = m.matches() ? parseInt(CONTROLLER_QUORUM_BOOTSTRAP_SERVERS, m.group(2)) : -1;
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException(CONTROLLER_QUORUM_BOOTSTRAP_SERVERS + ": '" + v.trim()
                        + "' is not of the form host:port");
            }
            out.add(InetSocketAddress.createUnresolved(m.group(1), port));
        }
        return out;
    }

    /**
     * A node that is not a voter: its {@code controller.listener.names} listener if {@code
     * listeners} has one, else port 0 (any free port) on the host of its first advertised or bound
     * listener that names one.
     */
    private static InetSocketAddress listenerAddress(Map<String, String> props) {
        String name = props.getOrDefault(CONTROLLER_LISTENER_NAMES, "").split(",", -1)[0].trim();
        String host = null;
        for (String key : List.of(ADVERTISED_LISTENERS, LISTENERS)) {
            for (String l : props.getOrDefault(key, "").split(",", -1)) {
                Matcher m = LISTENER.matcher(l.trim());
                if (!m.matches()) {
                    continue;
                }
                if (key.equals(LISTENERS) && m.group(1).equalsIgnoreCase(name)) {
                    String h = m.group(2).isEmpty() ? "0.0.0.0" : m.group(2);
                    return InetSocketAddress.createUnresolved(h, parseInt(LISTENERS, m.group(3)));
                }
                if (host == null && !m.group(2).isEmpty() && !m.group(2).equals("0.0.0.0")) {
                    host = m.group(2);
                }
            }
        }
        return InetSocketAddress.createUnresolved(host == null ? "127.0.0.1" : host, 0);
    }

    /** {@code id@host:port,...}, Kafka's format of {@code controller.quorum.voters}. */
    static Map<Integer, InetSocketAddress> parseVoters(String value) {
        Map<Integer, InetSocketAddress> voters = new TreeMap<>();
        for (String v : value.split(",", -1)) {
            Matcher m = VOTER.matcher(v.trim());
            if (!m.matches()) {
                throw new IllegalArgumentException(CONTROLLER_QUORUM_VOTERS + ": '" + v.trim()
                        + "' is not of the form id@host:port");
            }
            int id = parseInt(CONTROLLER_QUORUM_VOTERS, m.group(1));
            int port = parseInt(CONTROLLER_QUORUM_VOTERS, m.group(3));
            if (port > 65535) {
                throw new IllegalArgumentException(CONTROLLER_QUORUM_VOTERS + ": port out of range in '" + v.trim() + "'");
            }
            if (voters.put(id, InetSocketAddress.createUnresolved(m.group(2), port)) != null) {
                throw new IllegalArgumentException(CONTROLLER_QUORUM_VOTERS + " names voter " + id + " twice");
            }
        }
        return voters;
    }

    /** The first of {@code controller.listener.names} must be a listener on this voter's port. */
    private static void checkControllerListener(Map<String, String> props, int nodeId, InetSocketAddress voter) {
        String name = required(props, CONTROLLER_LISTENER_NAMES).split(",", -1)[0].trim();
        for (String l : List.of(props.getOrDefault(LISTENERS, "").split(",", -1))) {
            Matcher m = LISTENER.matcher(l.trim());
            if (m.matches() && m.group(1).equals(name)) {
                if (Integer.parseInt(m.group(3)) != voter.getPort()) {
                    throw new IllegalArgumentException("listener " + name + " of node " + nodeId + " is on port "
                            + m.group(3) + ", but " + CONTROLLER_QUORUM_VOTERS + " gives port " + voter.getPort());
                }
                return;
            }
        }
        throw new IllegalArgumentException(CONTROLLER_LISTENER_NAMES + " names " + name + ", which is not in "
                + LISTENERS);
    }

    private static String required(Map<String, String> props, String key) {
        String v = props.get(key);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(key + " is required in cluster mode");
        }
        return v.trim();
    }

    private static int parseInt(String key, String v) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + ": '" + v + "' is not a number", e);
        }
    }
}
