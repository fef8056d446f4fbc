package io.brook.compat;

import java.util.Map;
import java.util.Properties;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * A test class's three-node {@link ProcessCluster}: started before the class's first test, under
 * {@code target/cluster-tests/<name>/}, and closed after its last; a failed test prints the tails
 * of the nodes' logs. The class is skipped against an external cluster ({@code -Dbootstrap.servers}):
 * it runs Brook's own processes. Registered on a static field:
 * <pre>{@code
 * @RegisterExtension
 * static final ProcessClusterExtension NODES = new ProcessClusterExtension("name");
 * }</pre>
 * and read with {@link #cluster()} from the class's tests (or its {@code @BeforeAll} methods,
 * which run after the cluster started).
 */
final class ProcessClusterExtension implements BeforeAllCallback, AfterAllCallback, TestWatcher {

    /**
     * Every node's overrides: fencing after 3 s instead of Kafka's 9 (heartbeats every 500 ms
     * instead of 2 s), so that a stopped node's partitions lose their leader quickly, and no
     * initial rebalance delay.
     */
    static final Map<String, String> OVERRIDES = Map.of(
            "broker.session.timeout.ms", "3000",
            "broker.heartbeat.interval.ms", "500",
            "group.initial.rebalance.delay.ms", "0");

    private final String name;
    private final BiConsumer<Integer, Properties> perNode;
    private volatile ProcessCluster cluster;

    ProcessClusterExtension(String name) {
        this(name, (id, p) -> { });
    }

    /** A cluster whose nodes' properties {@code perNode} changes, given each node's id, after the overrides. */
    ProcessClusterExtension(String name, BiConsumer<Integer, Properties> perNode) {
        this.name = name;
        this.perNode = perNode;
    }

    /** The running cluster; only between the class's start and its end. */
    ProcessCluster cluster() {
        ProcessCluster c = cluster;
        if (c == null) {
            throw new IllegalStateException("the " + name + " cluster is not running");
        }
        return c;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        String external = System.getProperty("bootstrap.servers");
        Assumptions.assumeTrue(external == null || external.isBlank(),
                "starts Brook nodes of its own: nothing to run against an external cluster");
        cluster = ProcessCluster.start(name, 3, OVERRIDES, perNode);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        ProcessCluster c = cluster;
        cluster = null;
        if (c != null) {
            c.close();
        }
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        ProcessCluster c = cluster;
        if (c != null) {
            System.err.println(context.getDisplayName() + " failed; the nodes' logs end with:\n" + c.logTails(80));
        }
    }
}
