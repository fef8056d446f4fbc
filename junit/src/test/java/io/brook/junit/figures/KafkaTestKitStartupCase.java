package io.brook.junit.figures;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Kafka's own test kit used the way Kafka's tests use it: one combined broker and controller for
 * each test, formatted and started before it, topic "t" created with an Admin, and a first
 * produce. Run by {@link StartupFigures} on a class path with Kafka's test kit instead of Brook's.
 */
class KafkaTestKitStartupCase {
    private KafkaTestKit cluster;

    @BeforeEach
    void startCluster() throws Exception {
        cluster = KafkaTestKit.start();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
    }

    @AfterEach
    void stopCluster() throws Exception {
        cluster.close();
    }

    @RepeatedTest(StartupFigures.BROKERS_IN_SEQUENCE)
    void firstProduce() throws Exception {
        FirstProduce.produce(cluster.bootstrapServers());
    }
}
