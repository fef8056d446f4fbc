package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import io.brook.wire.message.AlterClientQuotasRequest;
import io.brook.wire.message.AlterClientQuotasResponse;
import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.DescribeClientQuotasRequest;
import io.brook.wire.message.DescribeClientQuotasResponse;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataResponse;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Client quotas end to end: set and described with the stock Admin client, kept across a
 * restart, and enforced on produce: throttle_time_ms in the answer, the connection held for that
 * time, and a client that waits as told bounded to its byte rate (on a clock moved by hand); a
 * consumer's answer bounded by what its byte rate allows over the measured span.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClientQuotasApiTest {

    private final MutableClock clock = new MutableClock(1_000_000L);
    private Brook brook;

    @BeforeEach
    void start() {
        brook = Brook.builder().clock(clock).start();
    }

    @AfterEach
    void stop() {
        brook.close();
    }

    private Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        return Admin.create(p);
    }

    private static ClientQuotaEntity entity(String type, String name) {
        Map<String, String> m = new HashMap<>();
        m.put(type, name);
        return new ClientQuotaEntity(m);
    }

    private static void alter(Admin admin, ClientQuotaEntity entity, String key, Double value) throws Exception {
        admin.alterClientQuotas(List.of(new ClientQuotaAlteration(entity,
                List.of(new ClientQuotaAlteration.Op(key, value))))).all().get();
    }

    @Test
    void adminSetsDescribesAndRemovesQuotasThatSurviveARestart() throws Exception {
        ClientQuotaEntity alice = entity(ClientQuotaEntity.USER, "alice");
        ClientQuotaEntity anyClient = entity(ClientQuotaEntity.CLIENT_ID, null);
        try (Admin admin = admin()) {
            alter(admin, alice, "producer_byte_rate", 1024.0);
            alter(admin, alice, "request_percentage", 12.5);
            alter(admin, anyClient, "consumer_byte_rate", 2048.0);
            Map<ClientQuotaEntity, Map<String, Double>> all =
                    admin.describeClientQuotas(ClientQuotaFilter.all()).entities().get();
            assertThat(all).containsEntry(alice, Map.of("producer_byte_rate", 1024.0, "request_percentage", 12.5))
                    .containsEntry(anyClient, Map.of("consumer_byte_rate", 2048.0)).hasSize(2);
            assertThat(admin.describeClientQuotas(ClientQuotaFilter.containsOnly(List.of(
                    ClientQuotaFilterComponent.ofDefaultEntity(ClientQuotaEntity.CLIENT_ID)))).entities().get())
                    .containsOnlyKeys(anyClient);
            assertThatThrownBy(() -> alter(admin, alice, "producer_byte_rate", 10.5))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("cannot be a fractional value");
            assertThatThrownBy(() -> alter(admin, alice, "request_percentage", Double.NaN))
                    .hasCauseInstanceOf(InvalidRequestException.class).hasMessageContaining("must be a finite number");
            assertThatThrownBy(() -> alter(admin, entity(ClientQuotaEntity.IP, "192.0.2.1"), "producer_byte_rate", 1.0))
                    .hasCauseInstanceOf(InvalidRequestException.class);
            alter(admin, alice, "request_percentage", null);
        }
        brook.restart();
        try (Admin admin = admin()) {
            assertThat(admin.describeClientQuotas(ClientQuotaFilter.all()).entities().get())
                    .containsEntry(alice, Map.of("producer_byte_rate", 1024.0))
                    .containsEntry(anyClient, Map.of("consumer_byte_rate", 2048.0)).hasSize(2);
        }
    }

    @Test
    void aStockProducerOverItsByteRateSeesThrottleTime() throws Exception {
        try (Admin admin = admin()) {
            alter(admin, entity(ClientQuotaEntity.CLIENT_ID, "slow"), "producer_byte_rate", 1000.0);
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "slow");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "65536");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            // 20 kB is twice what 1000 B/s allows over the 10 s the rate is measured on
            producer.send(new ProducerRecord<>("quota-topic", new byte[20_000])).get();
            double avg = metric(producer.metrics(), "produce-throttle-time-avg");
            double max = metric(producer.metrics(), "produce-throttle-time-max");
            assertThat(avg).isGreaterThan(0);
            assertThat(max).isBetween(9_000.0, 11_000.0); // (2000 - 1000) / 1000 * 10 s
            producer.close(java.time.Duration.ZERO);
        }
    }

    private static double metric(Map<MetricName, ? extends Metric> metrics, String name) {
        for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics")) {
                return ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        throw new AssertionError("no metric " + name);
    }

    @Test
    void aThrottledConnectionIsHeldAndAClientThatWaitsIsBoundedToItsRate() throws Exception {
        int quota = 10_000;
        try (Admin admin = admin()) {
            alter(admin, entity(ClientQuotaEntity.CLIENT_ID, "brook-test"), "producer_byte_rate", (double) quota);
        }
        try (ProtocolClient c = new ProtocolClient(brook.bootstrapServers());
                ProtocolClient other = new ProtocolClient(brook.bootstrapServers())) {
            c.call(new CreateTopicsRequest().topics(List.of(new CreatableTopic().name("t").numPartitions(1)
                    .replicationFactor((short) 1))), (short) 7);
            RecordBatchBuilder b = new RecordBatchBuilder(Compression.NONE);
            b.append(0, null, new byte[2_000]);
            ByteBuffer batch = b.build();
            long start = clock.millis();
            long end = start + 120_000;
            long bytes = 0;
            boolean heldChecked = false;
            while (clock.millis() < end) {
                ProduceRequest request = new ProduceRequest().acks((short) 1).timeoutMs(10_000).topicData(List.of(
                        new TopicProduceData().name("t").partitionData(List.of(new PartitionProduceData().index(0)
                                .records(BufferRecords.wrap(batch.duplicate()))))));
                bytes += ProtocolClient.encode(request, (short) 9, 0).remaining();
                ProduceResponse r = c.call(request, (short) 9);
                assertThat(r.responses().get(0).partitionResponses().get(0).errorCode()).isZero();
                int throttle = r.throttleTimeMs();
                if (throttle == 0) {
                    clock.advance(10);
                    continue;
                }
                if (!heldChecked) {
                    // KIP-219: the connection is not read until the throttle time has passed
                    int id = c.send(new MetadataRequest().topics(Collections.emptyList()), (short) 12);
                    other.call(new ApiVersionsRequest(), (short) 3);
                    c.raw().setReadTimeout(50);
                    assertThatThrownBy(c.raw()::readFrame).isInstanceOf(java.net.SocketTimeoutException.class);
                    c.raw().setReadTimeout(30_000);
                    clock.advance(throttle);
                    MetadataResponse m = c.receive(ApiKey.METADATA, (short) 12, id);
                    assertThat(m.throttleTimeMs()).isZero();
                    heldChecked = true;
                    continue;
                }
                clock.advance(throttle);
            }
            double rate = bytes * 1000.0 / (clock.millis() - start);
            assertThat(heldChecked).isTrue();
            assertThat(rate).isBetween(quota * 0.9, quota * 1.1);
        }
    }

    @Test
    void aConsumerUnderAByteRateGetsAtMostWhatTheQuotaAllowsInOneAnswer() throws Exception {
        try (ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            c.call(new CreateTopicsRequest().topics(List.of(new CreatableTopic().name("t").numPartitions(1)
                    .replicationFactor((short) 1))), (short) 7);
            RecordBatchBuilder b = new RecordBatchBuilder(Compression.NONE);
            b.append(0, null, new byte[2_000]);
            ByteBuffer batch = b.build();
            for (int i = 0; i < 25; i++) {
                // acks=all: answered once forced, so the fetch below sees all 25 batches
                c.call(new ProduceRequest().acks((short) -1).timeoutMs(10_000).topicData(List.of(
                        new TopicProduceData().name("t").partitionData(List.of(new PartitionProduceData().index(0)
                                .records(BufferRecords.wrap(batch.duplicate())))))), (short) 9);
            }
            FetchRequest fetch = new FetchRequest().maxWaitMs(0).minBytes(1).maxBytes(1 << 20).sessionEpoch(-1)
                    .topics(List.of(new FetchRequest.FetchTopic().topic("t").partitions(List.of(
                            new FetchRequest.FetchPartition().partition(0).fetchOffset(0).partitionMaxBytes(1 << 20)))));
            // without a quota one answer holds all 25 batches (once the last is visible to consumers)
            Await.until("25 batches in one answer", () -> {
                try {
                    FetchResponse all = c.call(fetch, (short) 12);
                    return all.responses().get(0).partitions().get(0).records().sizeInBytes() > 50_000;
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try (Admin admin = admin()) {
                alter(admin, entity(ClientQuotaEntity.CLIENT_ID, "brook-test"), "consumer_byte_rate", 1_000.0);
            }
            // 1000 B/s over the 10 windows of 1 s that the rate is measured on: 10 000 bytes, whole batches
            FetchResponse capped = c.call(fetch, (short) 12);
            assertThat(capped.responses().get(0).partitions().get(0).records().sizeInBytes()).isPositive()
                    .isLessThanOrEqualTo(10_000);
        }
    }

    @Test
    void aClientOverItsRequestPercentageSeesThrottleTimeAndIsHeld() throws Exception {
        try (Admin admin = admin()) {
            // a thousandth of a percent of one thread: 100 µs of handling over the 10 s measured
            alter(admin, entity(ClientQuotaEntity.CLIENT_ID, "brook-test"), "request_percentage", 0.001);
        }
        try (ProtocolClient c = new ProtocolClient(brook.bootstrapServers());
                ProtocolClient other = new ProtocolClient(brook.bootstrapServers())) {
            int throttle = 0;
            for (int i = 0; i < 100_000 && throttle == 0; i++) {
                MetadataResponse m = c.call(new MetadataRequest().topics(Collections.emptyList()), (short) 12);
                throttle = m.throttleTimeMs();
            }
            assertThat(throttle).as("throttled, at most one quota window").isBetween(1, 1000);
            int id = c.send(new MetadataRequest().topics(Collections.emptyList()), (short) 12);
            other.call(new ApiVersionsRequest(), (short) 3);
            c.raw().setReadTimeout(50);
            assertThatThrownBy(c.raw()::readFrame).isInstanceOf(java.net.SocketTimeoutException.class);
            c.raw().setReadTimeout(30_000);
            clock.advance(throttle);
            MetadataResponse held = c.receive(ApiKey.METADATA, (short) 12, id);
            assertThat(held.throttleTimeMs()).as("still over: throttled again").isPositive();
        }
    }

    /**
     * Kafka lists an entity's client id before its user and the values in its hash maps' order;
     * the answers to AlterClientQuotas and DescribeClientQuotas do the same, whatever order the
     * request named them in (clients that compare answers as lists see Kafka's lists).
     */
    @Test
    void answersListTheEntityAndItsValuesInKafkasOrder() throws Exception {
        try (ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            AlterClientQuotasRequest.EntryData entry = new AlterClientQuotasRequest.EntryData()
                    .entity(List.of(new AlterClientQuotasRequest.EntityData().entityType("user").entityName("User1"),
                            new AlterClientQuotasRequest.EntityData().entityType("client-id").entityName("Client1")))
                    .ops(List.of(new AlterClientQuotasRequest.OpData().key("producer_byte_rate").value(1000),
                            new AlterClientQuotasRequest.OpData().key("consumer_byte_rate").value(1000),
                            new AlterClientQuotasRequest.OpData().key("request_percentage").value(0.5)));
            AlterClientQuotasResponse altered = c.call(new AlterClientQuotasRequest().entries(List.of(entry)), (short) 1);
            assertThat(altered.entries().get(0).entity()).extracting(AlterClientQuotasResponse.EntityData::entityType)
                    .containsExactly("client-id", "user");

            DescribeClientQuotasResponse described = c.call(new DescribeClientQuotasRequest().components(List.of(
                    new DescribeClientQuotasRequest.ComponentData().entityType("user").matchType((byte) 0).match("User1"))),
                    (short) 1);
            DescribeClientQuotasResponse.EntryData e = described.entries().get(0);
            assertThat(e.entity()).extracting(DescribeClientQuotasResponse.EntityData::entityType)
                    .containsExactly("client-id", "user");
            assertThat(e.values()).extracting(DescribeClientQuotasResponse.ValueData::key)
                    .containsExactly("consumer_byte_rate", "request_percentage", "producer_byte_rate");
        }
    }
}
