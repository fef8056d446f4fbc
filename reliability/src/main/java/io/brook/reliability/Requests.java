package io.brook.reliability;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceResponse;

/** The few requests the runner's probes and raw clients send, as kafka-clients message objects. */
final class Requests {
    /** Produce v9: the first flexible version, topics by name. */
    static final short PRODUCE_VERSION = 9;
    /** Metadata v12: flexible, topics by name. */
    static final short METADATA_VERSION = 12;
    /** Fetch v12: the last version with topic names. */
    static final short FETCH_VERSION = 12;

    private Requests() {
    }

    static MetadataRequestData metadata(String topic, boolean autoCreate) {
        return new MetadataRequestData().setAllowAutoTopicCreation(autoCreate)
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(topic)));
    }

    /** One batch of one record to {@code topic}-{@code partition}. */
    static ProduceRequestData produce(String topic, int partition, short acks, String value) {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(value.getBytes(StandardCharsets.UTF_8)));
        return new ProduceRequestData().setAcks(acks).setTimeoutMs(10_000)
                .setTopicData(new ProduceRequestData.TopicProduceDataCollection(List.of(
                        new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(List.of(
                                new ProduceRequestData.PartitionProduceData().setIndex(partition)
                                        .setRecords(records)))).iterator()));
    }

    static FetchRequestData fetch(String topic, int partition, long offset, int maxBytes, int maxWaitMs) {
        return new FetchRequestData().setReplicaId(-1).setMaxWaitMs(maxWaitMs).setMinBytes(1).setMaxBytes(maxBytes)
                .setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(
                        new FetchRequestData.FetchPartition().setPartition(partition).setFetchOffset(offset)
                                .setPartitionMaxBytes(maxBytes).setLogStartOffset(-1)))));
    }

    /** The error of the one partition a {@link #produce} request wrote to. */
    static Errors produceError(ProduceResponse response) {
        return Errors.forCode(response.data().responses().iterator().next().partitionResponses().get(0).errorCode());
    }

    /** NONE if {@code topic} has partition {@code partition} with a leader, else the error that stands in the way. */
    static Errors leaderError(MetadataResponse response, String topic, int partition) {
        MetadataResponseData.MetadataResponseTopic t = response.data().topics().find(topic);
        if (t == null) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        if (t.errorCode() != Errors.NONE.code()) {
            return Errors.forCode(t.errorCode());
        }
        for (MetadataResponseData.MetadataResponsePartition p : t.partitions()) {
            if (p.partitionIndex() == partition) {
                return p.errorCode() != Errors.NONE.code() ? Errors.forCode(p.errorCode())
                        : p.leaderId() < 0 ? Errors.LEADER_NOT_AVAILABLE : Errors.NONE;
            }
        }
        return Errors.UNKNOWN_TOPIC_OR_PARTITION;
    }
}
