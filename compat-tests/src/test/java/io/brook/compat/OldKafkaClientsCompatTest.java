package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.brook.server.Brook;
import io.brook.server.RecordedRequest;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Stock kafka-clients releases older than the test class path's (2.8, 3.7, 3.9 beside 4.4) run
 * the same round — admin create/describe, idempotent acks=all produce, group consume with commit
 * and seek, committed offsets listed, topic deleted — each in a class loader of its own ({@link
 * OldClients}), so {@link OldClientScenario} links against the old client.
 *
 * <p>Against the embedded Brook the broker's request log (the fault hooks' {@code
 * recordRequests()}) shows which API versions each client picked: each must pick, per API, the
 * newest version both it and the broker support — for Produce and Fetch below what 4.4 picks, so
 * the older request versions are exercised end to end. With {@code -Dbootstrap.servers} (e.g.
 * Apache Kafka) the round runs the same and only the request-log checks are skipped.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OldKafkaClientsCompatTest {

    private static final int COUNT = 40;
    private static final String CURRENT = OldClients.CURRENT;
    /** The newest Produce and Fetch versions each older release sends (Kafka's message definitions). */
    private static final Map<String, Map<ApiKeys, Short>> CLIENT_MAX = Map.of(
            "2.8.2", Map.of(ApiKeys.PRODUCE, (short) 9, ApiKeys.FETCH, (short) 12),
            "3.7.0", Map.of(ApiKeys.PRODUCE, (short) 10, ApiKeys.FETCH, (short) 16),
            "3.9.1", Map.of(ApiKeys.PRODUCE, (short) 11, ApiKeys.FETCH, (short) 17),
            // the only release that sends Produce v12
            "4.0.1", Map.of(ApiKeys.PRODUCE, (short) 12, ApiKeys.FETCH, (short) 17));

    private static Brook brook;
    private static String bootstrap;
    /** What the current client picked, per API key: the baseline the older ones are compared with. */
    private static Map<Short, Short> currentPicks;

    @BeforeAll
    static void start() {
        String external = System.getProperty("bootstrap.servers");
        if (external != null && !external.isBlank()) {
            bootstrap = external;
        } else {
            brook = Brook.builder().port(0).config(Groups.BROKER_CONFIGS).faults(true).start();
            brook.faults().recordRequests();
            bootstrap = brook.bootstrapServers();
        }
    }

    @AfterAll
    static void stop() {
        if (brook != null) {
            brook.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {CURRENT, "2.8.2", "3.7.0", "3.9.1", "4.0.1"}) // the current first: it is the baseline
    void stockClientProducesConsumesCommitsAndAdministers(String version) throws Exception {
        String clientId = Groups.unique("clients-" + version);
        Map<String, String> out = runScenario(version, clientId);

        if (!version.equals(CURRENT)) {
            assertThat(out.get("clientVersion")).isEqualTo(version);
        }
        OldClients.assertCompleteRound(out, COUNT);

        if (brook == null) {
            return; // the request log is the embedded broker's
        }
        Map<Short, Short> picked = picks(clientId);
        System.out.println("kafka-clients " + out.get("clientVersion") + " picked " + named(picked));
        if (version.equals(CURRENT)) {
            setCurrentPicks(picked);
            return;
        }
        Map<Short, Short> baseline = currentPicks();
        for (Map.Entry<ApiKeys, Short> max : CLIENT_MAX.get(version).entrySet()) {
            short key = max.getKey().id;
            short expectedVersion = (short) Math.min(max.getValue(), baseline.get(key));
            assertThat(picked.get(key)).as("%s version of kafka-clients %s", max.getKey(), version)
                    .isEqualTo(expectedVersion);
        }
    }

    private static synchronized void setCurrentPicks(Map<Short, Short> picked) {
        currentPicks = picked;
    }

    /** The current client's picks, running its round once if this class has not yet. */
    private static synchronized Map<Short, Short> currentPicks() throws Exception {
        if (currentPicks == null) {
            String clientId = Groups.unique("clients-baseline");
            runScenario(CURRENT, clientId);
            currentPicks = picks(clientId);
        }
        return currentPicks;
    }

    /** The newest version of each API key the clients named {@code clientId-*} sent. */
    private static Map<Short, Short> picks(String clientId) {
        assumeTrue(brook != null, "the request log is the embedded Brook's");
        Map<Short, Short> max = new TreeMap<>();
        for (RecordedRequest r : brook.faults().recordedRequests()) {
            if (r.clientId() != null && r.clientId().startsWith(clientId + "-")) {
                max.merge(r.apiKey(), r.apiVersion(), (a, b) -> (short) Math.max(a, b));
            }
        }
        return max;
    }

    private static Map<String, Short> named(Map<Short, Short> byKey) {
        Map<String, Short> out = new TreeMap<>();
        byKey.forEach((k, v) -> out.put(ApiKeys.forId(k).name, v));
        return out;
    }

    private static Map<String, String> runScenario(String version, String clientId) throws Exception {
        return OldClients.runScenario(version, Map.of("bootstrap", bootstrap, "topic", clientId, "group", clientId,
                "clientId", clientId, "count", String.valueOf(COUNT)));
    }
}
