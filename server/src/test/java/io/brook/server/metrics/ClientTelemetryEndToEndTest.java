package io.brook.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import io.brook.testkit.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * KIP-714 end to end: a stock kafka-clients producer (which pushes its metrics by default) and a
 * subscription created through Admin on a CLIENT_METRICS resource; the producer's metrics show up
 * on {@code /metrics} labelled with its client instance id and client id.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientTelemetryEndToEndTest {

    @Test
    void producerMetricsAppearOnThePrometheusEndpointLabelledByClient() throws Exception {
        try (Brook brook = Brook.builder().config("brook.http.listener", "127.0.0.1:0").start()) {
            brook.createTopic("telemetry", 1);
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers()))) {
                ConfigResource basic = new ConfigResource(ConfigResource.Type.CLIENT_METRICS, "basic");
                admin.incrementalAlterConfigs(Map.of(basic, List.of(
                        new AlterConfigOp(new ConfigEntry("metrics", "org.apache.kafka.producer."), AlterConfigOp.OpType.SET),
                        new AlterConfigOp(new ConfigEntry("interval.ms", "200"), AlterConfigOp.OpType.SET),
                        new AlterConfigOp(new ConfigEntry("match", "client_id=telemetry-.*"), AlterConfigOp.OpType.SET))))
                        .all().get();
                assertThat(admin.describeConfigs(List.of(basic)).all().get().get(basic).get("interval.ms").value())
                        .isEqualTo("200");
                assertThat(admin.listConfigResources(java.util.Set.of(ConfigResource.Type.CLIENT_METRICS),
                        new org.apache.kafka.clients.admin.ListConfigResourcesOptions()).all().get())
                        .containsExactly(basic);
            }
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
            p.put(ProducerConfig.CLIENT_ID_CONFIG, "telemetry-producer");
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
                producer.send(new ProducerRecord<>("telemetry", "k", "v")).get();
                String instanceId = producer.clientInstanceId(Duration.ofSeconds(10)).toString();
                // the exposition library writes labels sorted by name
                String labels = "{client_id=\"telemetry-producer\",client_instance_id=\"" + instanceId + "\"";
                Await.until("the producer's pushed metrics on /metrics", Duration.ofSeconds(20), () -> {
                    String text = Scrape.metrics(brook);
                    return text.lines().anyMatch(l -> l.startsWith("org_apache_kafka_producer_record_send_total" + labels));
                });
            }
        }
    }
}
