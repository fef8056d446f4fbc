package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code @platformatic/kafka}, a JavaScript client written apart from kafkajs and the Java
 * clients, with its own protocol code and newer request versions (Produce v11, Fetch v17,
 * Metadata v12): admin, an idempotent producer with and without gzip, a transactional producer
 * that commits and aborts, a consumer group that reads, commits and is described, a
 * read_committed consumer and ListOffsets ({@code src/test/node/platformatic.mjs}). Skipped
 * locally when node or the package is missing, failed in CI.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PlatformaticCompatTest {

    private static BrookCluster cluster;

    @BeforeAll
    static void start() {
        Tools.require(Tools.onPath("node") != null, "node");
        Tools.require(Tools.exists(KafkajsCompatTest.NODE_DIR.resolve("node_modules").resolve("@platformatic").resolve("kafka")),
                "@platformatic/kafka (run npm ci in compat-tests/src/test/node)");
        cluster = new BrookCluster(Groups.BROKER_CONFIGS);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void producesTransactsConsumesInAGroupAndListsOffsets() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        Tools.Result r = Tools.run(List.of(Tools.onPath("node").toString(), "platformatic.mjs", cluster.bootstrapServers(),
                suffix), KafkajsCompatTest.NODE_DIR, 100);
        assertThat(r.exit()).as("node exit; stderr: %s", r.err()).isZero();
        String out = r.out();

        assertThat(out).contains("\"created\":[{\"name\":\"plat-" + suffix + "\",\"partitions\":3}]");
        // record i went to partition i % 3 with key k<i>, value v<i> and header idx=<i>
        List<String> consumed = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            consumed.add((i % 3) + ":" + (i / 3) + ":k" + i + ":v" + i + ":" + i);
        }
        consumed.sort(null);
        assertThat(out).contains("\"consumed\":" + json(consumed));
        assertThat(out).contains("\"group\":{\"state\":\"STABLE\",\"protocolType\":\"consumer\",\"members\":1}");
        assertThat(out).contains("\"committed\":[\"0:4\",\"1:4\",\"2:4\"]");
        // the aborted a0 is not read; each transaction's end left a marker in its partitions
        assertThat(out).contains("\"readCommitted\":[\"c0\",\"c1\",\"c2\"]");
        assertThat(out).contains("\"latest\":{\"topic\":[4,4,4],\"txn\":[6,2]}");
    }

    private static String json(List<String> values) {
        return values.stream().map(v -> "\"" + v + "\"").collect(java.util.stream.Collectors.joining(",", "[", "]"));
    }
}
