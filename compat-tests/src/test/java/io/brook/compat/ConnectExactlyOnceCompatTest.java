package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.compat.connect.CountingSourceConnector;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka Connect's exactly-once source support (KIP-618) against the broker: a stock worker with
 * {@code exactly.once.source.support=enabled} writes a source task's records and its place in the
 * offset topic in one transaction per poll, under the transactional id
 * {@code <worker group>-<connector>-<task>}; when the connector's tasks get new configs, the
 * group's leader fences the task's earlier producers ({@code Admin.fenceProducers}, an
 * InitProducerId for the id) before the task starts again. A committed read then holds each record
 * once, across the restart. Runs against Kafka too ({@link BrookCluster}).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ConnectExactlyOnceCompatTest {

    @TempDir
    static Path dir;

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    private static ConnectWorker worker;

    @BeforeAll
    static void startWorker() throws Exception {
        worker = ConnectWorker.start(dir, cluster.bootstrapServers(), Groups.unique("connect-eos"),
                Map.of("exactly.once.source.support", "enabled"));
    }

    @AfterAll
    static void stopWorker() throws Exception {
        if (worker != null) {
            worker.close();
        }
    }

    private static List<String> records(int count) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            values.add("record-" + i);
        }
        return values;
    }

    private static Map<String, String> source(String topic, int records) {
        // required: the worker refuses the connector unless it can run it exactly once
        return Map.of("topic", topic, "records", Integer.toString(records), "exactly.once.support", "required");
    }

    private static TransactionDescription committed(Admin admin, String transactionalId) {
        TransactionDescription[] last = new TransactionDescription[1];
        worker.await(Duration.ofSeconds(60), transactionalId + " with its last transaction committed", () -> {
            try {
                last[0] = admin.describeTransactions(List.of(transactionalId)).description(transactionalId)
                        .get(30, TimeUnit.SECONDS);
                return last[0].state() == TransactionState.COMPLETE_COMMIT;
            } catch (Exception e) {
                return false;
            }
        });
        return last[0];
    }

    @Test
    void aSourceTaskWritesEachRecordOnceInTransactionsAndItsEarlierProducersAreFenced() throws Exception {
        String topic = worker.groupId() + "-data";
        String name = worker.groupId() + "-source";
        String transactionalId = worker.groupId() + "-" + name + "-0";
        Groups.createTopic(cluster.bootstrapServers(), topic, 2);

        worker.createConnector(name, CountingSourceConnector.class, source(topic, 100));
        worker.awaitRunning(name);
        worker.awaitSourceOffset(name, 100);
        try (Admin admin = Groups.admin(cluster.bootstrapServers())) {
            TransactionDescription first = committed(admin, transactionalId);
            assertThat(Groups.readValues(cluster.bootstrapServers(), topic, 2, true))
                    .containsExactlyInAnyOrderElementsOf(records(100));
            // each transaction's commit marker takes an offset of its own
            List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
            Map<TopicPartition, OffsetSpec> latest = Map.of(partitions.get(0), OffsetSpec.latest(),
                    partitions.get(1), OffsetSpec.latest());
            long end = admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values().stream()
                    .mapToLong(o -> o.offset()).sum();
            assertThat(end).isGreaterThan(100);

            // new task configs: the task's earlier producers are fenced, and it goes on from its stored place
            worker.reconfigure(name, CountingSourceConnector.class, source(topic, 150));
            worker.awaitSourceOffset(name, 150);
            TransactionDescription second = committed(admin, transactionalId);
            assertThat(second.producerEpoch()).as("the producer epoch after the fencing")
                    .isGreaterThan(first.producerEpoch());
            assertThat(Groups.readValues(cluster.bootstrapServers(), topic, 2, true))
                    .containsExactlyInAnyOrderElementsOf(records(150));
        }
    }
}
