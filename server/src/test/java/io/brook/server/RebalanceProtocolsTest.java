package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code group.coordinator.rebalance.protocols}: leaving {@code consumer} out turns KIP-848's
 * protocol off as in Kafka (its heartbeats and group descriptions answered UNSUPPORTED_VERSION,
 * which the Java consumer reports as "does not support the new CONSUMER group protocol"), while
 * classic groups are served as before; leaving {@code classic} out, or naming an unknown
 * protocol, stops the start with Kafka's reasons.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RebalanceProtocolsTest {

    private static final String KEY = "group.coordinator.rebalance.protocols";

    private static KafkaConsumer<String, String> consumer(Brook brook, String group, String protocol) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    private static Admin admin(Brook brook) {
        return Admin.create(Map.<String, Object>of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers()));
    }

    /** Polls until the consumer holds an assignment; fails after 30 s. */
    private static void awaitAssignment(KafkaConsumer<String, String> c) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (c.assignment().isEmpty()) {
            assertThat(System.nanoTime()).as("assigned within 30 s").isLessThan(deadline);
            c.poll(Duration.ofMillis(100));
        }
    }

    private static ConsumerGroupDescribeResponseData describeRaw(Brook brook, String group) throws Exception {
        try (RawClient raw = new RawClient(new InetSocketAddress("127.0.0.1", brook.port()))) {
            RequestHeader header = new RequestHeader(ApiKeys.CONSUMER_GROUP_DESCRIBE, (short) 1, "raw", 7);
            raw.sendFrame(new ConsumerGroupDescribeRequest.Builder(new ConsumerGroupDescribeRequestData()
                    .setGroupIds(List.of(group))).build((short) 1).serializeWithHeader(header));
            ByteBuffer answer = raw.readFrame();
            return ((ConsumerGroupDescribeResponse) AbstractResponse.parseResponse(answer, header)).data();
        }
    }

    @Test
    void shouldRefuseTheConsumerProtocolWhenLeftOutAndServeClassicGroups() throws Exception {
        try (Brook brook = Brook.builder().port(0).config(KEY, "classic").start();
                Admin admin = admin(brook)) {
            admin.createTopics(List.of(new NewTopic("t", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);

            try (KafkaConsumer<String, String> modern = consumer(brook, "modern", "consumer")) {
                modern.subscribe(List.of("t"));
                assertThatThrownBy(() -> {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (System.nanoTime() < deadline) {
                        modern.poll(Duration.ofMillis(100));
                    }
                }).isInstanceOf(UnsupportedVersionException.class)
                        .hasMessageContaining("does not support the new CONSUMER group protocol");
            }

            try (KafkaConsumer<String, String> classic = consumer(brook, "old", "classic")) {
                classic.subscribe(List.of("t"));
                awaitAssignment(classic);
                ConsumerGroupDescription d = admin.describeConsumerGroups(List.of("old")).all()
                        .get(30, TimeUnit.SECONDS).get("old");
                assertThat(d.type()).isEqualTo(GroupType.CLASSIC);
                assertThat(d.members()).hasSize(1);
                ConsumerGroupDescribeResponseData.DescribedGroup raw = describeRaw(brook, "old").groups().get(0);
                assertThat(raw.groupId()).isEqualTo("old");
                assertThat(raw.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
                assertThat(raw.errorMessage()).contains(KEY);
            }
        }
    }

    @Test
    void shouldServeTheConsumerProtocolByDefault() throws Exception {
        try (Brook brook = Brook.builder().port(0).config("group.consumer.heartbeat.interval.ms", "500")
                        .config("group.consumer.min.heartbeat.interval.ms", "500").start();
                Admin admin = admin(brook)) {
            admin.createTopics(List.of(new NewTopic("t", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            try (KafkaConsumer<String, String> modern = consumer(brook, "modern", "consumer")) {
                modern.subscribe(List.of("t"));
                awaitAssignment(modern);
                assertThat(describeRaw(brook, "modern").groups().get(0).errorCode()).isEqualTo(Errors.NONE.code());
            }
        }
    }

    @Test
    void shouldRefuseToStartWithoutClassicOrWithAnUnknownProtocol() {
        assertThatThrownBy(() -> Brook.builder().port(0).config(KEY, "consumer").start())
                .hasMessageContaining(KEY).hasMessageContaining("must include classic");
        assertThatThrownBy(() -> Brook.builder().port(0).config(KEY, "classic,Consumer").start())
                .hasMessageContaining(KEY).hasMessageContaining("Consumer is not one of consumer, classic, share, streams");
    }
}
