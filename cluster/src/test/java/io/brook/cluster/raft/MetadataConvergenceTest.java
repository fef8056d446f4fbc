package io.brook.cluster.raft;

import io.brook.testkit.FreePorts;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cluster.controller.Controller;
import io.brook.cluster.controller.ControllerException;
import io.brook.cluster.metadata.BrokerInfo;
import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.PartitionInfo;
import io.brook.cluster.metadata.TopicInfo;
import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The metadata property of cluster mode: whatever the controller decides, in whatever order,
 * every voter ends with the same image, and that image survives a snapshot. Three voters in this
 * JVM; a seeded {@link Random} drives broker registrations, heartbeats (unfencing), time passing
 * (fencing), topic creations and deletions, added partitions, config changes and producer-id
 * blocks through the {@link Controller} on the leader, with one voter stopped in the middle and
 * restarted (sometimes the leader, so that the controller moves). Decisions the controller
 * refuses (a name taken, too few live brokers, a stale epoch) are part of the run; any other
 * failure fails it. Snapshots every few entries with the log purged behind them, so a restarted
 * voter may catch up from the leader's snapshot instead of its log.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MetadataConvergenceTest {

    private static final String CLUSTER = "property-cluster";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final long SESSION_TIMEOUT_MS = Controller.DEFAULT_SESSION_TIMEOUT_MS;
    private static final int DECISIONS = 120;
    private static final int BROKER_IDS = 6;
    private static final int TOPIC_NAMES = 12;
    private static final List<String> CONFIG_KEYS = List.of("retention.ms", "cleanup.policy", "segment.bytes");

    @TempDir
    Path dir;

    private final Map<Integer, InetSocketAddress> voters = new HashMap<>();
    private final Map<Integer, MetadataQuorumNode> nodes = new TreeMap<>();
    private final MutableClock clock = new MutableClock(1_000_000);
    /** The epoch each broker was last registered with, as the brokers would remember it. */
    private final Map<Integer, Long> epochs = new HashMap<>();
    private final Map<Op, Integer> refused = new EnumMap<>(Op.class);
    private Controller controller;
    private MetadataQuorumNode controllerNode;

    private enum Op { REGISTER, HEARTBEAT, TIME_PASSES, CREATE_TOPIC, DELETE_TOPIC, CREATE_PARTITIONS, ALTER_CONFIG,
        PRODUCER_IDS }

    /** The mix: creations twice as likely as deletions, so that topics accumulate. */
    private static final List<Op> OPS = List.of(Op.REGISTER, Op.HEARTBEAT, Op.HEARTBEAT, Op.TIME_PASSES,
            Op.CREATE_TOPIC, Op.CREATE_TOPIC, Op.DELETE_TOPIC, Op.CREATE_PARTITIONS, Op.ALTER_CONFIG, Op.PRODUCER_IDS);

    @AfterEach
    void closeAll() throws Exception {
        for (MetadataQuorumNode n : nodes.values()) {
            n.close();
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {18, 1018, 2018})
    void everyVoterEndsWithTheSameImageAsTheSnapshotRestores(long seed) throws Exception {
        try {
            run(seed);
        } catch (Exception | AssertionError e) {
            throw new AssertionError("metadata property failed with seed " + seed + ": " + e.getMessage(), e);
        }
    }

    private void run(long seed) throws Exception {
        Random rnd = new Random(seed);
        AtomicLong topicIds = new AtomicLong();
        for (int id = 1; id <= 3; id++) {
            voters.put(id, InetSocketAddress.createUnresolved("127.0.0.1", FreePorts.next()));
        }
        for (int id = 1; id <= 3; id++) {
            start(id);
        }
        MetadataQuorumNode leader = awaitLeader();
        controllerNode = leader;
        controller = new Controller(clock, SESSION_TIMEOUT_MS, leader, () -> new UUID(seed, topicIds.incrementAndGet()));

        int stopAt = DECISIONS / 3 + rnd.nextInt(DECISIONS / 3);
        int restartAt = stopAt + 10 + rnd.nextInt(DECISIONS / 4);
        int stopped = -1;
        for (int i = 0; i < DECISIONS; i++) {
            if (i == stopAt) {
                stopped = 1 + rnd.nextInt(3);
                nodes.remove(stopped).close();
                if (stopped == controllerNode.nodeId()) {
                    leader = awaitLeader();
                    controllerNode = leader;
                    controller = new Controller(clock, SESSION_TIMEOUT_MS, leader,
                            () -> new UUID(seed, topicIds.incrementAndGet()));
                }
            } else if (i == restartAt) {
                start(stopped);
            }
            decide(rnd);
        }

        MetadataQuorumNode last = awaitLeader();
        // images compared as they are, each read under its own state machine's lock
        Await.until("every voter holds the leader's image", WAIT, () -> nodes.values().stream().allMatch(
                n -> last.stateMachine().read(mine -> n.stateMachine().read(mine::equals))));

        last.takeSnapshot();
        Path snapshot = last.stateMachine().getLatestSnapshot().getFile().getPath();
        MetadataImage restored = rebuild(MetadataSnapshotFile.read(snapshot));
        assertThat(last.stateMachine().read(restored::equals)).as("the image a snapshot restores equals the leader's")
                .isTrue();
        MetadataImage expected = restored;
        checkInvariants(expected);
        // the run did something: topics exist and brokers came and went
        assertThat(expected.topics()).isNotEmpty();
        assertThat(expected.brokers()).isNotEmpty();
    }

    private void decide(Random rnd) throws Exception {
        Op op = OPS.get(rnd.nextInt(OPS.size()));
        int broker = 1 + rnd.nextInt(BROKER_IDS);
        // mostly a topic that exists (for deletes, partitions, configs) or one that does not (for creations)
        List<String> existing = controllerNode.stateMachine().read(img -> img.topics().values().stream()
                .map(TopicInfo::name).toList());
        String topic = "topic-" + rnd.nextInt(TOPIC_NAMES);
        boolean wantExisting = (op != Op.CREATE_TOPIC) == (rnd.nextInt(5) != 0);
        for (int tries = 0; tries < TOPIC_NAMES && existing.contains(topic) != wantExisting; tries++) {
            topic = "topic-" + rnd.nextInt(TOPIC_NAMES);
        }
        CompletableFuture<?> decision = switch (op) {
            case REGISTER -> controller.registerBroker(broker, new UUID(broker, rnd.nextInt(4) == 0 ? 1 : 0),
                            List.of(new Endpoint("PLAINTEXT", "127.0.0.1", 9000 + broker)),
                            rnd.nextBoolean() ? "rack-" + broker % 2 : null)
                    .thenAccept(epoch -> epochs.put(broker, epoch));
            // most brokers heartbeat, each with the epoch it remembers (sometimes one it never had)
            case HEARTBEAT -> heartbeats(rnd);
            case TIME_PASSES -> {
                clock.advance(1 + rnd.nextInt((int) SESSION_TIMEOUT_MS / 2));
                yield controller.tick();
            }
            case CREATE_TOPIC -> controller.createTopic(topic, 1 + rnd.nextInt(12), 1 + rnd.nextInt(3),
                    rnd.nextBoolean() ? Map.of() : Map.of("retention.ms", Integer.toString(rnd.nextInt(100_000))));
            case DELETE_TOPIC -> controller.deleteTopic(topic);
            case CREATE_PARTITIONS -> controller.createPartitions(topic, partitionCount(topic) + rnd.nextInt(5));
            case ALTER_CONFIG -> controller.alterTopicConfig(topic, CONFIG_KEYS.get(rnd.nextInt(CONFIG_KEYS.size())),
                    rnd.nextInt(3) == 0 ? null : Integer.toString(rnd.nextInt(1000)));
            case PRODUCER_IDS -> controller.allocateProducerIds(broker, epochs.getOrDefault(broker, 0L));
        };
        try {
            decision.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof ControllerException)) {
                throw e;
            }
            refused.merge(op, 1, Integer::sum);
        }
    }

    private CompletableFuture<?> heartbeats(Random rnd) {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int id = 1; id <= BROKER_IDS; id++) {
            if (rnd.nextInt(4) != 0) {
                all.add(controller.heartbeat(id, rnd.nextInt(10) == 0 ? 0 : epochs.getOrDefault(id, 0L)));
            }
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    private int partitionCount(String topic) {
        return controllerNode.stateMachine().read(img -> {
            UUID id = img.topicId(topic);
            return id == null ? 1 : img.topics().get(id).partitions().size();
        });
    }

    private MetadataQuorumNode start(int id) throws Exception {
        QuorumConfig config = new QuorumConfig(Set.of("broker", "controller"), id, CLUSTER, voters,
                dir.resolve("node-" + id), Duration.ofMillis(300), Duration.ofMillis(600), 0, Map.of())
                .withSnapshotThreshold(15)
                .withRatisProperty("raft.server.log.segment.size.max", "2KB")
                .withRatisProperty("raft.server.log.purge.gap", "1")
                .withRatisProperty("raft.server.log.purge.upto.snapshot.index", "true");
        MetadataQuorumNode node = MetadataQuorumNode.start(config);
        nodes.put(id, node);
        return node;
    }

    private MetadataQuorumNode awaitLeader() {
        Await.until("one leader that every running voter knows", WAIT, () -> {
            long leaders = nodes.values().stream().filter(MetadataQuorumNode::isLeader).count();
            return leaders == 1 && nodes.values().stream().map(MetadataQuorumNode::leaderId).distinct().count() == 1
                    && nodes.values().iterator().next().leaderId().isPresent();
        });
        return nodes.values().stream().filter(MetadataQuorumNode::isLeader).findFirst().orElseThrow();
    }

    private static MetadataImage rebuild(List<MetadataRecord> records) {
        MetadataImage image = new MetadataImage();
        records.forEach(image::apply);
        return image;
    }

    /** What no sequence of decisions may break: leaders are live ISR members, replicas are registered brokers. */
    private void checkInvariants(MetadataImage image) {
        List<String> broken = new ArrayList<>();
        for (TopicInfo t : image.topics().values()) {
            assertThat(image.topicId(t.name())).isEqualTo(t.id());
            t.partitions().forEach((p, info) -> check(image, t.name() + "-" + p, info, broken));
        }
        assertThat(broken).as("partitions in a state the controller must never leave (refused: %s)", refused).isEmpty();
    }

    private static void check(MetadataImage image, String name, PartitionInfo p, List<String> broken) {
        if (p.leader() != MetadataRecord.NO_LEADER) {
            BrokerInfo leader = image.brokers().get(p.leader());
            if (leader == null || leader.fenced() || !p.isr().contains(p.leader())) {
                broken.add(name + " is led by " + p.leader() + ", not a live ISR member: " + p);
            }
        }
        if (!p.replicas().containsAll(p.isr()) || p.isr().isEmpty()) {
            broken.add(name + " has an ISR outside its replicas or none: " + p);
        }
    }
}
