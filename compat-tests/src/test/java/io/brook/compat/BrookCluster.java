package io.brook.compat;

import io.brook.server.Brook;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The broker under test: an embedded Brook, or an external Kafka-compatible cluster when
 * {@code -Dbootstrap.servers=host:port} is given (so the same tests can run against Apache Kafka).
 *
 * <p>A test class that needs one broker for all its tests registers it on a static field:
 * <pre>{@code
 * @RegisterExtension
 * static final BrookCluster cluster = BrookCluster.perClass();
 * }</pre>
 * The broker then starts before the class's {@code @BeforeAll} methods (a failure to start fails
 * the class, not its loading) and closes after its {@code @AfterAll} methods. The constructors
 * instead start the broker at once and leave closing it to the caller.
 */
final class BrookCluster implements AutoCloseable, BeforeAllCallback, AfterAllCallback {

    private final Map<String, String> brokerConfigs;
    /** Whether the extension callbacks start and close the broker (false: the constructor started it). */
    private final boolean perClass;
    /** The class whose callbacks started the broker; a {@code @Nested} class inside it shares that broker. */
    private volatile ExtensionContext owner;
    private volatile Brook brook;
    private volatile String bootstrap;

    /** A broker with default settings, started now; the caller closes it. */
    BrookCluster() {
        this(Map.of());
    }

    /** With broker settings for the embedded Brook (an external cluster keeps its own), started now. */
    BrookCluster(Map<String, String> brokerConfigs) {
        this(brokerConfigs, false);
        start();
    }

    private BrookCluster(Map<String, String> brokerConfigs, boolean perClass) {
        this.brokerConfigs = Map.copyOf(brokerConfigs);
        this.perClass = perClass;
    }

    /** A broker with default settings that a test class registers; it starts in {@link #beforeAll}. */
    static BrookCluster perClass() {
        return perClass(Map.of());
    }

    /** {@link #perClass()} with broker settings for the embedded Brook (an external cluster keeps its own). */
    static BrookCluster perClass(Map<String, String> brokerConfigs) {
        return new BrookCluster(brokerConfigs, true);
    }

    private void start() {
        String external = System.getProperty("bootstrap.servers");
        if (external != null && !external.isBlank()) {
            bootstrap = external;
        } else {
            Brook b = Brook.builder().port(0).config(brokerConfigs).start();
            brook = b;
            bootstrap = b.bootstrapServers();
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (!perClass) {
            throw new IllegalStateException("this broker was started by its constructor; register "
                    + "BrookCluster.perClass() instead, whose broker starts before the class's tests");
        }
        if (owner != null) {
            return;
        }
        owner = context;
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (context == owner) {
            owner = null;
            close();
        }
    }

    /** True when the broker is the embedded Brook (tests that restart it need that). */
    boolean embedded() {
        requireStarted();
        return brook != null;
    }

    String bootstrapServers() {
        return requireStarted();
    }

    /** A stock Admin client of this broker, with a 30 s default API time-out; the caller closes it. */
    org.apache.kafka.clients.admin.Admin admin() {
        java.util.Properties p = new java.util.Properties();
        p.put(org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, requireStarted());
        p.put(org.apache.kafka.clients.admin.AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return org.apache.kafka.clients.admin.Admin.create(p);
    }

    private String requireStarted() {
        String b = bootstrap;
        if (b == null) {
            throw new IllegalStateException("the broker is not running (a perClass() broker runs only "
                    + "between its class's beforeAll and afterAll)");
        }
        return b;
    }

    @Override
    public void close() {
        Brook b = brook;
        brook = null;
        bootstrap = null;
        if (b != null) {
            b.close();
        }
    }
}
