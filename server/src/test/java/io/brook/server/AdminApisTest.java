package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.topic.TopicConfigResolver;
import io.brook.wire.message.AlterConfigsRequest;
import io.brook.wire.message.AlterConfigsResponse;
import io.brook.wire.message.CreatePartitionsRequest;
import io.brook.wire.message.CreatePartitionsRequest.CreatePartitionsAssignment;
import io.brook.wire.message.CreatePartitionsRequest.CreatePartitionsTopic;
import io.brook.wire.message.CreatePartitionsResponse;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopicConfig;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.CreateTopicsResponse.CreatableTopicResult;
import io.brook.wire.message.DeleteTopicsRequest;
import io.brook.wire.message.DeleteTopicsRequest.DeleteTopicState;
import io.brook.wire.message.DeleteTopicsResponse;
import io.brook.wire.message.DescribeClusterRequest;
import io.brook.wire.message.DescribeClusterResponse;
import io.brook.wire.message.DescribeConfigsRequest;
import io.brook.wire.message.DescribeConfigsRequest.DescribeConfigsResource;
import io.brook.wire.message.DescribeConfigsResponse;
import io.brook.wire.message.DescribeConfigsResponse.DescribeConfigsResourceResult;
import io.brook.wire.message.IncrementalAlterConfigsRequest;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterConfigsResource;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterableConfig;
import io.brook.wire.message.IncrementalAlterConfigsResponse;
import io.brook.wire.message.InitProducerIdRequest;
import io.brook.wire.message.InitProducerIdResponse;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataRequest.MetadataRequestTopic;
import io.brook.wire.message.MetadataResponse;
import io.brook.wire.protocol.Errors;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Topic administration and cluster APIs over raw sockets against an embedded broker. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AdminApisTest {

    @TempDir
    Path tmp;
    private Brook brook;
    private ProtocolClient client;

    @BeforeEach
    void start() throws Exception {
        brook = Brook.builder().dataDir(tmp.resolve("data")).config("num.partitions", "3")
                .config("log.retention.hours", "48").start();
        client = new ProtocolClient(brook.bootstrapServers());
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        brook.close();
    }

    private CreatableTopicResult create(CreatableTopic topic, boolean validateOnly, short version) throws Exception {
        CreateTopicsResponse r = client.call(new CreateTopicsRequest().topics(List.of(topic)).timeoutMs(1000)
                .validateOnly(validateOnly), version);
        return r.topics().get(0);
    }

    private static CreatableTopic topic(String name, int partitions, int rf) {
        return new CreatableTopic().name(name).numPartitions(partitions).replicationFactor((short) rf);
    }

    private int partitionsOf(String name) throws Exception {
        MetadataResponse m = client.call(new MetadataRequest().topics(List.of(new MetadataRequestTopic().name(name)))
                .allowAutoTopicCreation(false), (short) 12);
        return m.topics().get(0).errorCode() == 0 ? m.topics().get(0).partitions().size() : -1;
    }

    @Test
    void shouldCreateTopicWithDefaultsAndReportConfigsAndId() throws Exception {
        CreatableTopicResult r = create(topic("events", -1, -1), false, (short) 7);
        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(r.numPartitions()).isEqualTo(3);
        assertThat(r.replicationFactor()).isEqualTo((short) 1);
        assertThat(r.topicId()).isNotEqualTo(new UUID(0, 0));
        assertThat(r.configs()).anySatisfy(c -> {
            assertThat(c.name()).isEqualTo("retention.ms");
            assertThat(c.value()).isEqualTo(Long.toString(48L * 3_600_000L));
            assertThat(c.configSource()).isEqualTo(TopicConfigResolver.SOURCE_STATIC_BROKER);
        });
        assertThat(partitionsOf("events")).isEqualTo(3);
    }

    @Test
    void shouldOnlyValidateWhenAsked() throws Exception {
        CreatableTopicResult r = create(topic("dry", 5, 1), true, (short) 5);
        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(r.numPartitions()).isEqualTo(5);
        assertThat(partitionsOf("dry")).isEqualTo(-1);
    }

    @Test
    void shouldRejectWhatASingleNodeCannotDo() throws Exception {
        assertThat(create(topic("rf3", 1, 3), false, (short) 7).errorCode())
                .isEqualTo(Errors.INVALID_REPLICATION_FACTOR.code());
        assertThat(create(topic("bad/name", 1, 1), false, (short) 7).errorCode())
                .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
        assertThat(create(topic("zero", 0, 1), false, (short) 7).errorCode())
                .isEqualTo(Errors.INVALID_PARTITIONS.code());
        CreatableTopic badConfig = topic("cfg", 1, 1).configs(List.of(
                new CreatableTopicConfig().name("cleanup.policy").value("shred")));
        CreatableTopicResult r = create(badConfig, false, (short) 7);
        assertThat(r.errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(r.errorMessage()).contains("cleanup.policy");
        assertThat(create(topic("once", 1, 1), false, (short) 2).errorCode()).isZero();
        assertThat(create(topic("once", 1, 1), false, (short) 2).errorCode())
                .isEqualTo(Errors.TOPIC_ALREADY_EXISTS.code());
    }

    @Test
    void shouldRejectNamesThatCollideOnceDotAndUnderscoreAreAlike() throws Exception {
        assertThat(create(topic("orders.eu", 1, 1), false, (short) 7).errorCode()).isZero();
        CreatableTopicResult r = create(topic("orders_eu", 1, 1), false, (short) 7);
        assertThat(r.errorCode()).isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
        assertThat(r.errorMessage()).isEqualTo("Topic 'orders_eu' collides with existing topic: orders.eu");
        assertThat(create(topic("orders_eu", 1, 1), true, (short) 7).errorCode())
                .as("validate only").isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
        MetadataResponse m = client.call(new MetadataRequest().topics(List.of(new MetadataRequestTopic()
                .name("orders_eu"))).allowAutoTopicCreation(true), (short) 12);
        assertThat(m.topics().get(0).errorCode()).as("auto-creation").isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
        assertThat(partitionsOf("orders_eu")).isEqualTo(-1);
        assertThat(create(topic("orders.eu", 1, 1), false, (short) 7).errorCode())
                .as("the same name still exists").isEqualTo(Errors.TOPIC_ALREADY_EXISTS.code());
        client.call(new DeleteTopicsRequest().topicNames(List.of("orders.eu")).timeoutMs(1000), (short) 4);
        assertThat(create(topic("orders_eu", 1, 1), false, (short) 7).errorCode())
                .as("free once the other is deleted").isZero();
    }

    @Test
    void shouldDeleteTopicsByNameAndById() throws Exception {
        create(topic("a", 1, 1), false, (short) 7);
        UUID bId = create(topic("b", 1, 1), false, (short) 7).topicId();
        DeleteTopicsResponse byName = client.call(new DeleteTopicsRequest().topicNames(List.of("a", "missing"))
                .timeoutMs(1000), (short) 4);
        assertThat(byName.responses()).extracting(DeleteTopicsResponse.DeletableTopicResult::errorCode)
                .containsExactly(Errors.NONE.code(), Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        DeleteTopicsResponse byId = client.call(new DeleteTopicsRequest().topics(List.of(
                new DeleteTopicState().name(null).topicId(bId))).timeoutMs(1000), (short) 6);
        assertThat(byId.responses()).singleElement().satisfies(t -> {
            assertThat(t.errorCode()).isZero();
            assertThat(t.name()).isEqualTo("b");
        });
        assertThat(partitionsOf("a")).isEqualTo(-1);
        assertThat(partitionsOf("b")).isEqualTo(-1);
    }

    @Test
    void shouldGrowButNeverShrinkPartitions() throws Exception {
        create(topic("grow", 2, 1), false, (short) 7);
        CreatePartitionsResponse r = client.call(new CreatePartitionsRequest().topics(List.of(
                new CreatePartitionsTopic().name("grow").count(4).assignments(null),
                new CreatePartitionsTopic().name("missing").count(4).assignments(null))).timeoutMs(1000), (short) 3);
        assertThat(r.results()).extracting(CreatePartitionsResponse.CreatePartitionsTopicResult::errorCode)
                .containsExactly(Errors.NONE.code(), Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(partitionsOf("grow")).isEqualTo(4);
        CreatePartitionsResponse shrink = client.call(new CreatePartitionsRequest().topics(List.of(
                new CreatePartitionsTopic().name("grow").count(3).assignments(null))).timeoutMs(1000), (short) 0);
        assertThat(shrink.results().get(0).errorCode()).isEqualTo(Errors.INVALID_PARTITIONS.code());
        CreatePartitionsResponse elsewhere = client.call(new CreatePartitionsRequest().topics(List.of(
                new CreatePartitionsTopic().name("grow").count(5).assignments(List.of(
                        new CreatePartitionsAssignment().brokerIds(List.of(7)))))).timeoutMs(1000), (short) 2);
        assertThat(elsewhere.results().get(0).errorCode()).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT.code());
    }

    private Map<String, DescribeConfigsResourceResult> describeTopic(String name) throws Exception {
        DescribeConfigsResponse r = client.call(new DescribeConfigsRequest().resources(List.of(
                new DescribeConfigsResource().resourceType((byte) 2).resourceName(name).configurationKeys(null)))
                .includeSynonyms(true), (short) 4);
        assertThat(r.results().get(0).errorCode()).isZero();
        Map<String, DescribeConfigsResourceResult> m = new java.util.HashMap<>();
        for (DescribeConfigsResourceResult c : r.results().get(0).configs()) {
            m.put(c.name(), c);
        }
        return m;
    }

    @Test
    void shouldDescribeAndAlterTopicConfigsWithSources() throws Exception {
        create(topic("conf", 1, 1).configs(List.of(new CreatableTopicConfig().name("segment.bytes").value("1048576"))),
                false, (short) 7);
        Map<String, DescribeConfigsResourceResult> before = describeTopic("conf");
        assertThat(before.get("segment.bytes").value()).isEqualTo("1048576");
        assertThat(before.get("segment.bytes").configSource()).isEqualTo(TopicConfigResolver.SOURCE_TOPIC);
        assertThat(before.get("retention.ms").configSource()).isEqualTo(TopicConfigResolver.SOURCE_STATIC_BROKER);
        assertThat(before.get("delete.retention.ms").configSource()).isEqualTo(TopicConfigResolver.SOURCE_DEFAULT);
        assertThat(before.get("cleanup.policy").configType()).isEqualTo(TopicConfigResolver.TYPE_LIST);

        IncrementalAlterConfigsResponse alter = client.call(new IncrementalAlterConfigsRequest().resources(List.of(
                new AlterConfigsResource().resourceType((byte) 2).resourceName("conf").configs(List.of(
                        new AlterableConfig().name("segment.bytes").configOperation((byte) 1).value(null),
                        new AlterableConfig().name("cleanup.policy").configOperation((byte) 2).value("compact"),
                        new AlterableConfig().name("retention.ms").configOperation((byte) 0).value("1000")))))
                .validateOnly(false), (short) 1);
        assertThat(alter.responses().get(0).errorCode()).isZero();
        Map<String, DescribeConfigsResourceResult> after = describeTopic("conf");
        assertThat(after.get("segment.bytes").configSource()).isEqualTo(TopicConfigResolver.SOURCE_DEFAULT);
        assertThat(after.get("cleanup.policy").value()).isEqualTo("delete,compact");
        assertThat(after.get("retention.ms").value()).isEqualTo("1000");

        IncrementalAlterConfigsResponse invalid = client.call(new IncrementalAlterConfigsRequest().resources(List.of(
                new AlterConfigsResource().resourceType((byte) 2).resourceName("conf").configs(List.of(
                        new AlterableConfig().name("retention.ms").configOperation((byte) 0).value("soon")))))
                .validateOnly(false), (short) 0);
        assertThat(invalid.responses().get(0).errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(describeTopic("conf").get("retention.ms").value()).isEqualTo("1000");

        AlterConfigsResponse replace = client.call(new AlterConfigsRequest().resources(List.of(
                new AlterConfigsRequest.AlterConfigsResource().resourceType((byte) 2).resourceName("conf").configs(
                        List.of(new AlterConfigsRequest.AlterableConfig().name("max.message.bytes").value("2000")))))
                .validateOnly(false), (short) 1);
        assertThat(replace.responses().get(0).errorCode()).isZero();
        Map<String, DescribeConfigsResourceResult> replaced = describeTopic("conf");
        assertThat(replaced.get("max.message.bytes").value()).isEqualTo("2000");
        assertThat(replaced.get("retention.ms").configSource()).isEqualTo(TopicConfigResolver.SOURCE_STATIC_BROKER);
    }

    @Test
    void shouldDescribeBrokerConfigsReadOnly() throws Exception {
        DescribeConfigsResponse r = client.call(new DescribeConfigsRequest().resources(List.of(
                new DescribeConfigsResource().resourceType((byte) 4).resourceName("1").configurationKeys(
                        List.of("num.partitions", "auto.create.topics.enable")))), (short) 2);
        assertThat(r.results().get(0).configs()).extracting(DescribeConfigsResourceResult::name)
                .containsExactly("num.partitions", "auto.create.topics.enable");
        DescribeConfigsResourceResult np = r.results().get(0).configs().get(0);
        assertThat(np.value()).isEqualTo("3");
        assertThat(np.readOnly()).isTrue();
        assertThat(np.configSource()).isEqualTo(TopicConfigResolver.SOURCE_STATIC_BROKER);
        assertThat(r.results().get(0).configs().get(1).configSource()).isEqualTo(TopicConfigResolver.SOURCE_DEFAULT);
    }

    @Test
    void shouldDescribeClusterAsThisBroker() throws Exception {
        DescribeClusterResponse r = client.call(new DescribeClusterRequest(), (short) 2);
        assertThat(r.errorCode()).isZero();
        assertThat(r.clusterId()).isEqualTo(brook.clusterId());
        assertThat(r.controllerId()).isEqualTo(1);
        assertThat(r.brokers()).singleElement().satisfies(b -> assertThat(b.port()).isEqualTo(brook.port()));
    }

    @Test
    void shouldHandOutProducerIdsThatAreNeverReusedAcrossRestarts() throws Exception {
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            InitProducerIdResponse r = client.call(new InitProducerIdRequest().transactionalId(null)
                    .transactionTimeoutMs(60000), (short) 4);
            assertThat(r.errorCode()).isZero();
            assertThat(r.producerEpoch()).isZero();
            ids.add(r.producerId());
        }
        assertThat(ids).hasSize(5);
        client.close();
        brook.close();
        brook = Brook.builder().dataDir(tmp.resolve("data")).start();
        client = new ProtocolClient(brook.bootstrapServers());
        InitProducerIdResponse r = client.call(new InitProducerIdRequest().transactionalId(null), (short) 1);
        assertThat(ids).doesNotContain(r.producerId());
        assertThat(r.producerId()).isGreaterThan(ids.stream().mapToLong(Long::longValue).max().orElseThrow());
    }
}
