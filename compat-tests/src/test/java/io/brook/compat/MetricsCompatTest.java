package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.Brook;
import io.brook.testkit.Await;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kafka's metric names after a known workload of the stock Java clients, read where operators
 * read them: the platform MBean server (what jmx_exporter and JConsole see) and the Prometheus
 * text on the HTTP admin listener.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MetricsCompatTest {

    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();
    private static Brook brook;
    private static String bootstrap;

    @BeforeAll
    static void start() {
        Map<String, String> configs = new HashMap<>(Groups.BROKER_CONFIGS);
        configs.put("brook.http.listener", "127.0.0.1:0");
        brook = Brook.builder().port(0).config(configs).start();
        bootstrap = brook.bootstrapServers();
        awaitMBeans();
    }

    /** A broker publishes its MBeans on a thread of its own once it serves: waits for them. */
    static void awaitMBeans() {
        Await.until("the broker's MBeans are published", () -> {
            try {
                return JMX.isRegistered(new ObjectName("kafka.server:type=KafkaServer,name=BrokerState"));
            } catch (MalformedObjectNameException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @AfterAll
    static void stop() {
        brook.close();
    }

    @Test
    void countsRecordsBytesRequestsAndLagUnderKafkasNames() throws Exception {
        String topic = Groups.unique("metrics");
        String group = Groups.unique("metrics-group");
        Groups.createTopic(bootstrap, topic, 1);
        Groups.produce(bootstrap, topic, 1, 10);

        String t = ",topic=" + topic;
        assertThat(count("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec" + t)).isEqualTo(10);
        assertThat(count("kafka.server:type=BrokerTopicMetrics,name=TotalProduceRequestsPerSec" + t)).isPositive();
        assertThat(count("kafka.server:type=BrokerTopicMetrics,name=FailedProduceRequestsPerSec" + t)).isZero();
        assertThat(count("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec")).isGreaterThanOrEqualTo(10);
        String log = "kafka.log:type=Log,name=%s" + t + ",partition=0";
        long size = value(String.format(log, "Size"));
        // the log keeps the batches as they came: what came in is what the log holds
        assertThat(count("kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec" + t)).isEqualTo(size).isPositive();
        assertThat(value(String.format(log, "LogEndOffset"))).isEqualTo(10);
        assertThat(value(String.format(log, "LogStartOffset"))).isZero();
        assertThat(value(String.format(log, "NumLogSegments"))).isEqualTo(1);

        try (KafkaConsumer<String, String> consumer = Groups.consumer(Groups.consumerProps(bootstrap, group))) {
            consumer.subscribe(List.of(topic));
            int[] read = {0};
            Groups.pollUntil(Duration.ofSeconds(30), () -> read[0] + " of 10 records", () -> {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                read[0] += records.count();
            }, () -> read[0] >= 10);
            consumer.commitSync();
        }
        assertThat(count("kafka.server:type=BrokerTopicMetrics,name=BytesOutPerSec" + t)).isGreaterThanOrEqualTo(size);
        assertThat(count("kafka.server:type=BrokerTopicMetrics,name=TotalFetchRequestsPerSec" + t)).isPositive();

        // every answered Produce passed through the request metrics, under the version the client used
        assertThat(sumCounts("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce,version=*"))
                .isPositive();
        assertThat(count("kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce")).isPositive();
        assertThat(count("kafka.network:type=RequestMetrics,name=ErrorsPerSec,request=Fetch,error=NONE")).isPositive();
        assertThat(count("kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs")).isPositive();
        assertThat(value("kafka.server:type=KafkaServer,name=BrokerState")).isEqualTo(3);
        assertThat(value("kafka.server:type=ReplicaManager,name=PartitionCount")).isGreaterThanOrEqualTo(1);
        assertThat(value("kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions")).isZero();
        assertThat(value("kafka.controller:type=KafkaController,name=ActiveControllerCount")).isEqualTo(1);
        assertThat(value("kafka.controller:type=KafkaController,name=OfflinePartitionsCount")).isZero();
        assertThat(value("kafka.controller:type=KafkaController,name=GlobalPartitionCount"))
                .isEqualTo(value("kafka.server:type=ReplicaManager,name=PartitionCount"));
        assertThat(value("kafka.server:type=socket-server-metrics,name=connection-count,listener=PLAINTEXT"))
                .isGreaterThanOrEqualTo(0);
        assertThat(value("kafka.coordinator.group:type=GroupMetadataManager,name=NumGroups")).isGreaterThanOrEqualTo(1);
        assertThat(value("kafka.coordinator.group:type=GroupMetadataManager,name=NumOffsets")).isGreaterThanOrEqualTo(1);

        // seven records the group has not read: the broker's lag equals what Admin's offsets give
        Groups.produce(bootstrap, topic, 1, 10, 7);
        long adminLag;
        try (Admin admin = Groups.admin(bootstrap)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            long end = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get(30, TimeUnit.SECONDS).get(tp).offset();
            OffsetAndMetadata committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS).get(tp);
            adminLag = end - committed.offset();
        }
        assertThat(adminLag).isEqualTo(7);
        String lag = "brook.consumer:type=ConsumerLag,name=%s,group=" + group + t + ",partition=0";
        Groups.await(Duration.ofSeconds(10), "the broker's lag to follow the new records",
                () -> value(String.format(lag, "RecordsLag")) == adminLag);
        assertThat(value(String.format(lag, "TimeLagMs"))).isBetween(0L, 60_000L);
        assertThat(value("brook.consumer:type=ConsumerLag,name=RecordsLagSum,group=" + group)).isEqualTo(7);

        // a batch larger than the topic allows: its bytes are rejected, and (as in Kafka) that is
        // not a failed produce request, which counts only failures the client cannot cause
        String small = Groups.unique("metrics-small");
        try (Admin admin = Groups.admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(small, 1, (short) 1).configs(Map.of("max.message.bytes", "1000"))))
                    .all().get(30, TimeUnit.SECONDS);
        }
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>(small, "x".repeat(5000))).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(RecordTooLargeException.class);
        }
        String s = ",topic=" + small;
        assertThat(count("kafka.server:type=BrokerTopicMetrics,name=BytesRejectedPerSec" + s)).isGreaterThan(5000);
        assertThat(count("kafka.server:type=BrokerTopicMetrics,name=TotalProduceRequestsPerSec" + s)).isPositive();
        assertThat(count("kafka.server:type=BrokerTopicMetrics,name=FailedProduceRequestsPerSec" + s)).isZero();
        assertThat(count("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec" + s)).isZero();

        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + brook.httpPort();
        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
        assertThat(metrics.body())
                .contains("kafka_server_brokertopicmetrics_messagesinpersec_total{topic=\"" + topic + "\"} 17.0")
                .contains("kafka_log_log_logendoffset{partition=\"0\",topic=\"" + topic + "\"} 17.0")
                .contains("brook_consumer_consumerlag_recordslag{group=\"" + group + "\",partition=\"0\",topic=\""
                        + topic + "\"} 7.0")
                .contains("kafka_network_requestmetrics_totaltimems{request=\"Produce\",quantile=\"0.99\"}")
                .contains("kafka_server_kafkaserver_brokerstate 3.0")
                .contains("jvm_memory_used_bytes");
        assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/health")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/ready")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/nothing")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(404);
        HttpResponse<String> console = http.send(HttpRequest.newBuilder(URI.create(base + "/")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(console.statusCode()).isEqualTo(200);
        assertThat(console.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
        assertThat(console.body()).contains("<script src=\"console.js\">");
        HttpResponse<String> script = http.send(HttpRequest.newBuilder(URI.create(base + "/console.js")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(script.statusCode()).isEqualTo(200);
        assertThat(script.body()).contains("brook_consumer_consumerlag_recordslag");
        assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(405);
    }

    private static long count(String name) {
        return ((Number) attribute(name, "Count")).longValue();
    }

    private static long value(String name) {
        return ((Number) attribute(name, "Value")).longValue();
    }

    private static Object attribute(String name, String attribute) {
        try {
            return JMX.getAttribute(new ObjectName(name), attribute);
        } catch (Exception e) {
            throw new AssertionError("cannot read " + name + " " + attribute + ": " + e, e);
        }
    }

    private static long sumCounts(String pattern) throws Exception {
        Set<ObjectName> names = JMX.queryNames(new ObjectName(pattern), null);
        long sum = 0;
        for (ObjectName n : names) {
            sum += ((Number) JMX.getAttribute(n, "Count")).longValue();
        }
        return sum;
    }
}
