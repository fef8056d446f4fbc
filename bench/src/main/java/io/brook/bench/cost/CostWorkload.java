package io.brook.bench.cost;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * One request, prepared once as a frame and sent again and again: a Produce of {@code partitions}
 * batches (the same bytes each time; the broker assigns the offsets) or a Fetch from the start of
 * a partition filled beforehand.
 */
final class CostWorkload {

    /** Produce by topic name (v13 names topics by id). */
    static final short PRODUCE_VERSION = 11;
    static final short FETCH_VERSION = 12;
    static final int RECORD_BYTES = 100;

    final String name;
    final ApiKeys key;
    final short version;
    final byte[] frame;
    /** Records a produce appends (0 for a fetch). */
    final int records;

    private CostWorkload(String name, ApiKeys key, short version, ApiMessage body, int records) {
        this.name = name;
        this.key = key;
        this.version = version;
        this.frame = RawConnection.frame("metrics-cost", key, version, body);
        this.records = records;
    }

    /**
     * A Produce to partitions {@code 0..partitions-1} of {@code topic}, each one batch of as
     * many {@value #RECORD_BYTES}-byte records as fit in {@code batchBytes} (or {@code records}
     * of them when {@code batchBytes} is 0).
     */
    static CostWorkload produce(String name, String topic, int partitions, int batchBytes, int records, short acks) {
        MemoryRecords batch = batchBytes > 0 ? fill(batchBytes) : batch(records);
        int perBatch = 0;
        for (var b : batch.batches()) {
            perBatch += b.countOrNull();
        }
        List<ProduceRequestData.PartitionProduceData> data = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            data.add(new ProduceRequestData.PartitionProduceData().setIndex(p).setRecords(batch));
        }
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(data));
        return new CostWorkload(name, ApiKeys.PRODUCE, PRODUCE_VERSION,
                new ProduceRequestData().setAcks(acks).setTimeoutMs(30_000).setTopicData(topics), perBatch * partitions);
    }

    /** A Fetch of up to {@code maxBytes} from offset 0 of partition 0 of {@code topic}, not waiting. */
    static CostWorkload fetch(String name, String topic, int maxBytes) {
        return new CostWorkload(name, ApiKeys.FETCH, FETCH_VERSION,
                new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1).setMaxBytes(maxBytes)
                        .setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1)
                        .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(
                                new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                                        .setPartitionMaxBytes(maxBytes))))), 0);
    }

    /** The largest batch of {@value #RECORD_BYTES}-byte records that fits in {@code bytes}. */
    private static MemoryRecords fill(int bytes) {
        int n = bytes / RECORD_BYTES;
        MemoryRecords b = batch(n);
        while (b.sizeInBytes() > bytes) {
            b = batch(--n);
        }
        return b;
    }

    private static MemoryRecords batch(int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(new byte[RECORD_BYTES]);
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }
}
