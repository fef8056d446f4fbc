package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.metrics.Scrape;
import io.brook.server.node.ClusterView.PartitionState;
import io.brook.testkit.Await;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's controller gauges on a cluster's nodes: exactly one node counts itself the active
 * controller, every node counts the brokers, topics and partitions of its image, and a broker
 * that stops answering becomes a fenced one whose partitions (one replica each) have no leader.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ClusterControllerMetricsTest {

    private static final String TOPIC = "orders";

    @TempDir
    Path dirs;

    private static double gauge(Brook node, String name) {
        return Scrape.value(Scrape.metrics(node), "kafka_controller_kafkacontroller_" + name);
    }

    private static boolean everyNode(List<Brook> nodes, String name, double value) {
        return nodes.stream().allMatch(n -> gauge(n, name) == value);
    }

    @Test
    void theControllerGaugesFollowTheImageOnEveryNode() throws Exception {
        try (InJvmCluster cluster = InJvmCluster.start(dirs, "metrics-cluster", 3,
                Map.of("brook.http.listener", "127.0.0.1:0"))) {
            List<Brook> nodes = cluster.nodes;
            assertThat(nodes.get(0).createTopic(TOPIC, 6)).isTrue();

            Await.until("every node to count 3 brokers, 1 topic and 6 partitions", InJvmCluster.WAIT,
                    () -> everyNode(nodes, "activebrokercount", 3) && everyNode(nodes, "fencedbrokercount", 0)
                            && everyNode(nodes, "globaltopiccount", 1) && everyNode(nodes, "globalpartitioncount", 6)
                            && everyNode(nodes, "offlinepartitionscount", 0));
            Await.until("one active controller", InJvmCluster.WAIT,
                    () -> nodes.stream().mapToDouble(n -> gauge(n, "activecontrollercount")).sum() == 1);

            Brook stopped = nodes.stream().filter(n -> gauge(n, "activecontrollercount") == 0).findFirst().orElseThrow();
            int stoppedId = nodes.indexOf(stopped) + 1;
            long onStopped = stopped.context().cluster().topic(TOPIC).partitions().stream()
                    .map(PartitionState::replicas).filter(r -> r.equals(List.of(stoppedId))).count();
            assertThat(onStopped).isPositive();
            stopped.crash();
            List<Brook> running = nodes.stream().filter(n -> n != stopped).toList();

            Await.until("the others to count node " + stoppedId + " fenced and its partitions offline",
                    InJvmCluster.WAIT, () -> everyNode(running, "activebrokercount", 2)
                            && everyNode(running, "fencedbrokercount", 1)
                            && everyNode(running, "offlinepartitionscount", onStopped)
                            && everyNode(running, "globalpartitioncount", 6));
            Await.until("one active controller among the others", InJvmCluster.WAIT,
                    () -> running.stream().mapToDouble(n -> gauge(n, "activecontrollercount")).sum() == 1);
        }
    }
}
