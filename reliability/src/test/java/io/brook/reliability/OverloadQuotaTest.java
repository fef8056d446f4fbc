package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The overload scenario's request quota option: the load clients (every client id) get the
 * default request_percentage, the measuring producer a quota of its own that never binds; and the
 * runner's flag reaches the scenario.
 */
class OverloadQuotaTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void limitsEveryClientIdButTheMeasuringProducer() throws Exception {
        try (Brook brook = Brook.builder().start();
                Admin admin = Clients.admin(brook.bootstrapServers())) {
            Overload.limitLoadClients(admin, 5.0);
            Map<ClientQuotaEntity, Map<String, Double>> all = admin.describeClientQuotas(ClientQuotaFilter.all())
                    .entities().get(30, TimeUnit.SECONDS);
            Map<String, String> byDefault = new HashMap<>();
            byDefault.put(ClientQuotaEntity.CLIENT_ID, null);
            assertThat(all).containsEntry(new ClientQuotaEntity(byDefault), Map.of("request_percentage", 5.0))
                    .containsEntry(new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, Throughput.CLIENT_ID)),
                            Map.of("request_percentage", Overload.UNBOUNDED_PERCENTAGE))
                    .hasSize(2);
        }
    }

    @Test
    void theRunnerFlagReachesTheOverloadScenario() {
        List<Scenario> scenarios = ReliabilityRunner.scenarios(true, 5.0);
        Scenario overload = scenarios.stream().filter(s -> s.name().equals("overload")).findFirst().orElseThrow();
        assertThat(overload.size()).contains("default request_percentage 5.0 on the load clients");
        assertThat(ReliabilityRunner.scenarios(true, 0).stream().filter(s -> s.name().equals("overload"))
                .findFirst().orElseThrow().size()).doesNotContain("request_percentage");
    }
}
