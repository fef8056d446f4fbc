package io.brook.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.config.BrokerConfig;
import io.brook.server.config.Listener;
import io.brook.server.metrics.BrokerMetrics;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterView;
import io.brook.wire.message.MetadataRequest.MetadataRequestTopic;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Auto-creation in cluster mode asks the controller once per topic while that request is out, as
 * Kafka's broker does: a client that repeats Metadata for a missing topic every millisecond (as a
 * readiness probe or an impatient producer does) must not turn each repetition into a controller
 * request (RELIABILITY.md, finding 9).
 */
class ClusterAutoCreateTest {

    private final List<String> asked = new ArrayList<>();
    private final List<CompletableFuture<Void>> pending = new ArrayList<>();
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private boolean failNextCreation;
    private final BrokerContext broker = new BrokerContext(BrokerConfig.defaults(), "cluster",
            Map.of("PLAINTEXT", new Listener("PLAINTEXT", "node1", 9092)), null, null, null, null, null,
            new BrokerMetrics(false), cluster());

    /** A cluster with no topics that records each creation asked for and leaves it to the test to complete. */
    private ClusterView cluster() {
        return (ClusterView) Proxy.newProxyInstance(ClusterView.class.getClassLoader(), new Class<?>[] {ClusterView.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "topic" -> null;
                    case "createTopic" -> {
                        asked.add((String) args[0]);
                        if (failNextCreation) {
                            failNextCreation = false;
                            throw new IllegalStateException("this cluster member is closed");
                        }
                        CompletableFuture<Void> f = new CompletableFuture<>();
                        pending.add(f);
                        yield f;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private Set<String> metadataFor(String... topics) {
        List<MetadataRequestTopic> named = new ArrayList<>();
        for (String t : topics) {
            named.add(new MetadataRequestTopic().name(t));
        }
        return ClusterMetadata.autoCreate(broker, named, inFlight);
    }

    @Test
    void repeatedMetadataForAMissingTopicAsksTheControllerOnceWhileItsRequestIsOut() {
        for (int i = 0; i < 100; i++) {
            assertThat(metadataFor("orders")).containsExactly("orders");
        }
        assertThat(metadataFor("orders", "payments")).containsExactly("orders", "payments");

        assertThat(asked).containsExactly("orders", "payments");
    }

    @Test
    void aRequestThatCouldNotBeSentLeavesTheTopicFreeToBeAskedForAgain() {
        failNextCreation = true;
        assertThat(metadataFor("orders")).containsExactly("orders");
        assertThat(inFlight).isEmpty();

        metadataFor("orders");
        assertThat(asked).containsExactly("orders", "orders");
    }

    @Test
    void aTopicIsAskedForAgainOnceTheControllerAnswered() {
        metadataFor("orders");
        pending.get(0).completeExceptionally(new IllegalStateException("no controller took it in time"));
        metadataFor("orders");
        pending.get(1).complete(null);
        metadataFor("orders");

        assertThat(asked).containsExactly("orders", "orders", "orders");
        assertThat(inFlight).containsExactly("orders");
    }
}
