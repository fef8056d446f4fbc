package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Cluster mode with three nodes, each a process of its own started from the three-node example
 * of docs/cluster.md ({@link ProcessCluster}), and stock clients: kcat, kafka-clients and
 * {@code kafka-metadata-quorum.sh}. Partitions have one replica (replication comes later), so a
 * stopped node's partitions are unavailable until it returns. Every test leaves the three nodes
 * serving; a failed test prints the tails of the nodes' logs (kept under
 * {@code target/cluster-tests/}). Skipped against an external cluster ({@code -Dbootstrap.servers}):
 * it runs Brook's own processes.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ThreeNodeClusterCompatTest {

    @RegisterExtension
    static final ProcessClusterExtension NODES = new ProcessClusterExtension("three-nodes");

    private static ProcessCluster cluster;

    @BeforeAll
    static void cluster() {
        cluster = NODES.cluster();
    }

    @Test
    void kcatListsTheThreeBrokersAndTheController() throws Exception {
        Tools.require(Tools.onPath("kcat") != null, "kcat");
        Tools.Result r = Tools.run(List.of(Tools.onPath("kcat").toString(), "-b", cluster.bootstrapServers(1), "-L"),
                null, 60);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains(" 3 brokers:").contains("(controller)");
        for (int id : cluster.ids()) {
            assertThat(r.out()).contains("broker " + id + " at " + cluster.bootstrapServers(id));
        }
    }

    @Test
    void stockClientsProduceAndConsumeTwelvePartitionsSpreadOverEveryNode() throws Exception {
        cluster.awaitAllServing(Duration.ofSeconds(30));
        String topic = Groups.unique("spread");
        try (Admin admin = ProcessCluster.admin(cluster.bootstrapServers(2))) {
            admin.createTopics(List.of(new NewTopic(topic, 12, (short) 1))).all().get(30, TimeUnit.SECONDS);
            TopicDescription d = Groups.awaitTopic(admin, topic, 12);
            assertThat(leaders(d)).containsExactlyInAnyOrder(1, 2, 3);
        }
        // each client knows one node only and finds the others through Metadata
        List<String> written = Groups.produce(cluster.bootstrapServers(1), topic, 12, 10);
        List<String> read = Groups.readValues(cluster.bootstrapServers(3), topic, 12, false);
        assertThat(read).containsExactlyInAnyOrderElementsOf(written);
    }

    @Test
    void kafkaTopicsPlacesEachPartitionWhereItsReplicaAssignmentSaysAtCreationAndWhenItGrows() throws Exception {
        cluster.awaitAllServing(Duration.ofSeconds(30));
        String topic = Groups.unique("placed");
        Tools.Result r = Tools.kafkaTool(org.apache.kafka.tools.TopicCommand.class, "--bootstrap-server",
                cluster.bootstrapServers(1), "--create", "--topic", topic, "--replica-assignment", "3,1,2,3");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        try (Admin admin = ProcessCluster.admin(cluster.bootstrapServers(2))) {
            TopicDescription d = Groups.awaitTopic(admin, topic, 4);
            assertThat(d.partitions()).extracting(p -> p.leader().id()).containsExactly(3, 1, 2, 3);
            // partitions added the same way (the tool sends the new partitions' part of the list)
            r = Tools.kafkaTool(org.apache.kafka.tools.TopicCommand.class, "--bootstrap-server",
                    cluster.bootstrapServers(3), "--alter", "--topic", topic, "--partitions", "6",
                    "--replica-assignment", "3,1,2,3,2,2");
            assertThat(r.exit()).as(r.out() + r.err()).isZero();
            d = Groups.awaitTopic(admin, topic, 6);
            assertThat(d.partitions()).extracting(p -> p.leader().id()).containsExactly(3, 1, 2, 3, 2, 2);
            // two replicas a partition: refused (partitions have one replica), nothing created
            String twice = Groups.unique("twice");
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic(twice, Map.of(0, List.of(1, 2)))))
                    .all().get(30, TimeUnit.SECONDS)).cause().isInstanceOf(InvalidReplicationFactorException.class);
            // a broker that is not registered: Kafka's refusal
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic(twice, Map.of(0, List.of(9)))))
                    .all().get(30, TimeUnit.SECONDS)).cause().isInstanceOf(InvalidReplicaAssignmentException.class)
                    .hasMessageContaining("includes broker 9, but no such broker is registered");
        }
        List<String> written = Groups.produce(cluster.bootstrapServers(2), topic, 6, 5);
        assertThat(Groups.readValues(cluster.bootstrapServers(3), topic, 6, false))
                .containsExactlyInAnyOrderElementsOf(written);
    }

    @Test
    void aGroupWhoseCoordinatorIsNotOnItsPartitionsNodeConsumesAndCommits() throws Exception {
        String topic = Groups.unique("group-topic");
        int leader;
        try (Admin admin = ProcessCluster.admin(cluster.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            leader = Groups.awaitTopic(admin, topic, 1).partitions().get(0).leader().id();
        }
        List<String> written = Groups.produce(cluster.bootstrapServers(), topic, 1, 20);
        // a first group creates __consumer_offsets; then a group is chosen whose offsets
        // partition (Kafka's hash of the group id) is led by another node than the topic's
        consume(Groups.unique("warm-up"), topic, written.size());
        Map<Integer, Integer> offsetsLeaders;
        try (Admin admin = ProcessCluster.admin(cluster.bootstrapServers())) {
            offsetsLeaders = partitionLeaders(Groups.awaitTopic(admin, "__consumer_offsets",
                    admin.describeTopics(List.of("__consumer_offsets")).allTopicNames().get(30, TimeUnit.SECONDS)
                            .get("__consumer_offsets").partitions().size()));
        }
        String group = null;
        for (int i = 0; group == null; i++) {
            String candidate = "cross-node-group-" + i;
            if (offsetsLeaders.get(Groups.coordinatorPartition(candidate, offsetsLeaders.size())) != leader) {
                group = candidate;
            }
        }
        int coordinator = offsetsLeaders.get(Groups.coordinatorPartition(group, offsetsLeaders.size()));

        consume(group, topic, written.size());

        try (Admin admin = ProcessCluster.admin(cluster.bootstrapServers())) {
            assertThat(admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
                    .get(30, TimeUnit.SECONDS).coordinator().id()).as("the group's coordinator").isEqualTo(coordinator)
                    .isNotEqualTo(leader);
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            assertThat(committed.get(new TopicPartition(topic, 0)).offset()).isEqualTo(written.size());
        }
    }

    /** Subscribes as {@code group}, reads {@code count} records and commits them. */
    private static void consume(String group, String topic, int count) {
        Properties p = Groups.consumerProps(cluster.bootstrapServers(), group);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        AtomicInteger read = new AtomicInteger();
        try (KafkaConsumer<String, String> c = Groups.consumer(p)) {
            c.subscribe(List.of(topic));
            Groups.pollUntil(Duration.ofSeconds(60), () -> group + " read " + read.get() + " of " + count, () -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    read.incrementAndGet();
                }
            }, () -> read.get() >= count);
            c.commitSync(Duration.ofSeconds(30));
        }
    }

    @Test
    void aStoppedNodesPartitionsAreUnavailableWhileTheOthersServeAndItServesAgainOnItsReturn() throws Exception {
        cluster.awaitAllServing(Duration.ofSeconds(30));
        String topic = Groups.unique("node-down");
        int stopped = 3;
        List<String> before;
        try (Admin admin = ProcessCluster.admin(cluster.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, 12, (short) 1))).all().get(30, TimeUnit.SECONDS);
            Groups.awaitTopic(admin, topic, 12);
            before = Groups.produce(cluster.bootstrapServers(), topic, 12, 5);
        }
        Map<Integer, Integer> leaders;
        try (Admin admin = ProcessCluster.admin(cluster.bootstrapServers())) {
            leaders = partitionLeaders(Groups.awaitTopic(admin, topic, 12));
        }
        List<Integer> onStopped = partitionsOf(leaders, stopped);
        List<Integer> onOthers = new ArrayList<>(leaders.keySet());
        onOthers.removeAll(onStopped);
        assertThat(onStopped).isNotEmpty();

        cluster.stop(stopped);
        try {
            try (Admin admin = ProcessCluster.admin(cluster.bootstrapServersExcept(stopped))) {
                Groups.await(Duration.ofSeconds(30), "node " + stopped + " fenced and its partitions leaderless", () -> {
                    TopicDescription d = describe(admin, topic);
                    return ProcessCluster.brokerIds(admin).equals(List.of(1, 2)) && d != null
                            && onStopped.stream().allMatch(p -> noLeader(d.partitions().get(p)));
                });
            }
            // the other nodes' partitions keep taking writes and serving reads
            List<String> more = produceTo(cluster.bootstrapServersExcept(stopped), topic, onOthers, "while-down");
            List<String> read = readPartitions(cluster.bootstrapServersExcept(stopped), topic, onOthers);
            assertThat(read).containsAll(more);
        } finally {
            cluster.restart(stopped);
        }
        try (Admin admin = ProcessCluster.admin(cluster.bootstrapServers())) {
            Groups.await(Duration.ofSeconds(30), "node " + stopped + " leading its partitions again", () -> {
                TopicDescription d = describe(admin, topic);
                return d != null && onStopped.stream().allMatch(p -> !noLeader(d.partitions().get(p))
                        && d.partitions().get(p).leader().id() == stopped);
            });
        }
        List<String> after = produceTo(cluster.bootstrapServers(), topic, onStopped, "after-return");
        List<String> read = Groups.readValues(cluster.bootstrapServers(), topic, 12, false);
        assertThat(read).containsAll(before).containsAll(after);
    }

    @Test
    void aKilledControllerIsReplacedAndTopicCreationKeepsWorking() throws Exception {
        int controller = controllerSeenBy(cluster.bootstrapServers());
        assertThat(controller).isIn(cluster.ids());
        cluster.kill(controller);
        try {
            String survivors = cluster.bootstrapServersExcept(controller);
            AtomicInteger elected = new AtomicInteger(-1);
            Groups.await(Duration.ofSeconds(30), "another controller than " + controller, () -> {
                elected.set(controllerSeenBy(survivors));
                return elected.get() >= 0 && elected.get() != controller;
            });
            String topic = Groups.unique("after-failover");
            try (Admin admin = ProcessCluster.admin(survivors)) {
                try {
                    admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    // Right after a failover the admin client may time out on an attempt whose
                    // creation the new controller did decide, and its retry then finds the topic (as
                    // with Kafka): the topic exists either way, which is what is checked below.
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
                // a survivor that answers Metadata may learn of the topic a moment after the controller decided it
                assertThat(Groups.awaitTopic(admin, topic, 2).partitions()).hasSize(2);
            }
        } finally {
            cluster.restart(controller);
        }
        cluster.awaitAllServing(Duration.ofSeconds(30));
    }

    @Test
    void metadataQuorumToolDescribesTheLeaderAndThreeVoters() throws Exception {
        int controller = controllerSeenBy(cluster.bootstrapServers());
        Tools.Result status = Tools.kafkaTool(org.apache.kafka.tools.MetadataQuorumCommand.class,
                "--bootstrap-server", cluster.bootstrapServers(), "describe", "--status");
        assertThat(status.exit()).as(status.out() + status.err()).isZero();
        String voters = status.out().lines().filter(l -> l.startsWith("CurrentVoters:")).findFirst().orElse("");
        assertThat(status.out()).contains("LeaderId:               " + controller);
        assertThat(voters).contains("\"id\": 1").contains("\"id\": 2").contains("\"id\": 3");

        Tools.Result replication = Tools.kafkaTool(org.apache.kafka.tools.MetadataQuorumCommand.class,
                "--bootstrap-server", cluster.bootstrapServers(controller), "describe", "--replication");
        assertThat(replication.exit()).as(replication.out() + replication.err()).isZero();
        List<String> rows = replication.out().lines().skip(1).toList();
        assertThat(rows).hasSize(3);
        assertThat(rows).filteredOn(l -> l.trim().endsWith("Leader")).hasSize(1)
                .allMatch(l -> l.trim().startsWith(Integer.toString(controller)));
        assertThat(rows).filteredOn(l -> l.trim().endsWith("Follower")).hasSize(2);
    }

    @Test
    void aNodeOfAnotherClusterIsRefusedAndTheClusterKeepsServing() throws Exception {
        // a fourth voter, as an operator adds one, but with another cluster.id
        Properties p = extraNode(4);
        int controllerPort = ProcessCluster.freePort();
        p.setProperty("controller.quorum.voters", p.getProperty("controller.quorum.voters") + ",4@127.0.0.1:"
                + controllerPort);
        p.setProperty("listeners", p.getProperty("listeners") + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.setProperty("cluster.id", "another-cluster");
        String log = refused("wrong-cluster", p);
        assertThat(log).contains("another cluster").contains("cluster.id");
        assertStillServing();
    }

    @Test
    void aSecondNodeWithATakenNodeIdIsRefusedAndTheClusterKeepsServing() throws Exception {
        // node 2's properties copied for a new node and only its data directory and client port changed
        Properties p = extraNode(2);
        String voter2 = p.getProperty("controller.quorum.voters").replaceAll(".*\\b2@([^,]+).*", "$1");
        p.setProperty("listeners", p.getProperty("listeners") + ",CONTROLLER://" + voter2);
        String log = refused("duplicate-id", p);
        assertThat(log).containsPattern("(?i)node 2\\b.*(already|in use|duplicate)");
        assertStillServing();
    }

    /**
     * Properties for a process beside the cluster: node 3's, as node {@code id}, with its own
     * client port and data directory and no controller listener yet.
     */
    private static Properties extraNode(int id) {
        Properties p = cluster.properties(3);
        int port = ProcessCluster.freePort();
        p.setProperty("node.id", Integer.toString(id));
        p.setProperty("log.dirs", cluster.log(3).resolveSibling("extra-" + id + "-" + port).resolve("data").toString());
        p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.setProperty("brook.http.listener", "none");
        p.remove("advertised.listeners");
        return p;
    }

    /** Starts the misconfigured node, waits until it exits with a failure, returns its output. */
    private static String refused(String name, Properties p) throws IOException, InterruptedException {
        Process process = cluster.startExtra(name, p);
        try {
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(name + " exits").isTrue();
            String log = ProcessCluster.tail(cluster.log(1).resolveSibling(name + ".log"), 200);
            assertThat(process.exitValue()).as(log).isNotZero();
            return log;
        } finally {
            process.destroyForcibly();
        }
    }

    private static void assertStillServing() throws Exception {
        try (Admin admin = ProcessCluster.admin(cluster.bootstrapServers())) {
            assertThat(ProcessCluster.brokerIds(admin)).containsExactly(1, 2, 3);
        }
        String topic = Groups.unique("still-serving");
        Groups.createTopic(cluster.bootstrapServers(), topic, 3);
        List<String> written = Groups.produce(cluster.bootstrapServers(), topic, 3, 2);
        assertThat(Groups.readValues(cluster.bootstrapServers(), topic, 3, false))
                .containsExactlyInAnyOrderElementsOf(written);
    }

    /** The controller id of a DescribeCluster answer, -1 when none is known or nobody answers. */
    private static int controllerSeenBy(String bootstrap) {
        try (Admin admin = ProcessCluster.admin(bootstrap)) {
            Node c = admin.describeCluster().controller().get(10, TimeUnit.SECONDS);
            return c == null || c.isEmpty() ? -1 : c.id();
        } catch (Exception e) {
            return -1;
        }
    }

    private static TopicDescription describe(Admin admin, String topic) {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
        } catch (Exception e) {
            return null;
        }
    }

    private static boolean noLeader(TopicPartitionInfo p) {
        return p.leader() == null || p.leader().isEmpty();
    }

    private static Set<Integer> leaders(TopicDescription d) {
        Set<Integer> ids = new TreeSet<>();
        d.partitions().forEach(p -> ids.add(p.leader().id()));
        return ids;
    }

    private static Map<Integer, Integer> partitionLeaders(TopicDescription d) {
        Map<Integer, Integer> leaders = new java.util.TreeMap<>();
        d.partitions().forEach(p -> leaders.put(p.partition(), p.leader().id()));
        return leaders;
    }

    private static List<Integer> partitionsOf(Map<Integer, Integer> leaders, int node) {
        List<Integer> partitions = new ArrayList<>();
        leaders.forEach((p, l) -> {
            if (l == node) {
                partitions.add(p);
            }
        });
        return partitions;
    }

    /** Writes one record to each of {@code partitions} with acks=all; returns the values. */
    private static List<String> produceTo(String bootstrap, String topic, List<Integer> partitions, String tag)
            throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("key.serializer", org.apache.kafka.common.serialization.StringSerializer.class.getName());
        p.put("value.serializer", org.apache.kafka.common.serialization.StringSerializer.class.getName());
        p.put("acks", "all");
        List<String> values = new ArrayList<>();
        try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<String, String>(p)) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int partition : partitions) {
                String v = tag + "-" + partition;
                values.add(v);
                sent.add(producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, partition, null, v)));
            }
            for (java.util.concurrent.Future<?> f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        return values;
    }

    /** Every value of the given partitions up to their end, read from the beginning. */
    private static List<String> readPartitions(String bootstrap, String topic, List<Integer> partitions) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> c = Groups.consumer(Groups.consumerProps(bootstrap, Groups.unique("r")))) {
            List<TopicPartition> tps = partitions.stream().map(p -> new TopicPartition(topic, p)).toList();
            c.assign(tps);
            c.seekToBeginning(tps);
            AtomicReference<Map<TopicPartition, Long>> end = new AtomicReference<>(c.endOffsets(tps));
            Set<TopicPartition> done = new HashSet<>();
            Groups.pollUntil(Duration.ofSeconds(30), () -> "the end of " + end.get(), () -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    values.add(r.value());
                }
                tps.stream().filter(tp -> c.position(tp) >= end.get().get(tp)).forEach(done::add);
            }, () -> done.size() == tps.size());
        }
        return values;
    }
}
