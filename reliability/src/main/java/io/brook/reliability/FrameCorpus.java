package io.brook.reliability;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Valid request frames to start mutating from: requests of 19 APIs encoded by kafka-clients at
 * every version it can write them, aimed at {@value #TOPIC} and {@value #GROUP} so that the
 * well-behaved clients' topic and group are out of their way. Requests that create, delete or
 * reconfigure topics, records or groups are left out: a mutated one could still be valid and
 * would then delete the data the scenario checks (or create thousands of partitions).
 */
final class FrameCorpus {
    static final String TOPIC = "fuzz-target";
    static final String GROUP = "fuzz-group";

    private FrameCorpus() {
    }

    /** Every seed frame, size prefix included. */
    static List<byte[]> seeds() {
        List<byte[]> out = new ArrayList<>();
        for (ApiMessage m : messages()) {
            ApiKeys api = ApiKeys.forId(m.apiKey());
            for (short v = api.oldestVersion(); v <= api.latestVersion(); v++) {
                try {
                    out.add(KafkaWire.frame(m, v, out.size() + 1));
                } catch (RuntimeException e) {
                    // a field this version cannot carry: the other variant of the message covers it
                }
            }
        }
        return out;
    }

    private static List<ApiMessage> messages() {
        byte[] value = "fuzz".getBytes(StandardCharsets.UTF_8);
        List<ApiMessage> m = new ArrayList<>();
        m.add(new ApiVersionsRequestData());
        m.add(new ApiVersionsRequestData().setClientSoftwareName("fuzz").setClientSoftwareVersion("1.0"));
        m.add(Requests.metadata(TOPIC, false));
        m.add(Requests.metadata(TOPIC, true));
        m.add(new MetadataRequestData().setTopics(null));
        for (short acks : new short[] {0, 1, -1}) {
            m.add(Requests.produce(TOPIC, 0, acks, "fuzz"));
        }
        ProduceRequestData gzip = Requests.produce(TOPIC, 0, (short) 1, "fuzz");
        gzip.topicData().iterator().next().partitionData().get(0).setRecords(MemoryRecords.withRecords(
                Compression.gzip().build(), new SimpleRecord(value), new SimpleRecord(value, value)));
        m.add(gzip);
        m.add(Requests.fetch(TOPIC, 0, 0, 64 * 1024, 0));
        m.add(new ListOffsetsRequestData().setReplicaId(-1).setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                .setName(TOPIC).setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                        .setPartitionIndex(0).setTimestamp(-1))))));
        m.add(new FindCoordinatorRequestData().setKey(GROUP));
        m.add(new FindCoordinatorRequestData().setCoordinatorKeys(List.of(GROUP)));
        m.add(new OffsetFetchRequestData().setGroupId(GROUP).setTopics(List.of(
                new OffsetFetchRequestData.OffsetFetchRequestTopic().setName(TOPIC).setPartitionIndexes(List.of(0)))));
        m.add(new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                .setGroupId(GROUP).setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                        .setName(TOPIC).setPartitionIndexes(List.of(0)))))));
        m.add(new OffsetCommitRequestData().setGroupId(GROUP).setGenerationIdOrMemberEpoch(-1).setMemberId("")
                .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(TOPIC).setPartitions(
                        List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0)
                                .setCommittedOffset(1).setCommittedMetadata("m"))))));
        JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(value));
        m.add(new JoinGroupRequestData().setGroupId(GROUP + "-join").setSessionTimeoutMs(6000).setRebalanceTimeoutMs(6000)
                .setMemberId("").setProtocolType("consumer").setProtocols(protocols));
        m.add(new HeartbeatRequestData().setGroupId(GROUP).setGenerationId(1).setMemberId("member"));
        m.add(new SyncGroupRequestData().setGroupId(GROUP).setGenerationId(1).setMemberId("member")
                .setProtocolType("consumer").setProtocolName("range"));
        m.add(new LeaveGroupRequestData().setGroupId(GROUP).setMemberId("member"));
        m.add(new LeaveGroupRequestData().setGroupId(GROUP).setMembers(List.of(
                new LeaveGroupRequestData.MemberIdentity().setMemberId("member"))));
        m.add(new DescribeGroupsRequestData().setGroups(List.of(GROUP)));
        m.add(new ListGroupsRequestData());
        m.add(new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(60_000));
        m.add(new DescribeConfigsRequestData().setResources(List.of(new DescribeConfigsRequestData.DescribeConfigsResource()
                .setResourceType((byte) 2).setResourceName(TOPIC))));
        m.add(new DescribeClusterRequestData());
        OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection epochs =
                new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
        epochs.add(new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(TOPIC).setPartitions(List.of(
                new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(0).setLeaderEpoch(0))));
        m.add(new OffsetForLeaderEpochRequestData().setReplicaId(-1).setTopics(epochs));
        m.add(new SaslHandshakeRequestData().setMechanism("PLAIN")); // ILLEGAL_SASL_STATE on a PLAINTEXT listener
        return m;
    }
}
