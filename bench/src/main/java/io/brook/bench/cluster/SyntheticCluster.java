package io.brook.bench.cluster;

import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataRecord.Partition;
import io.brook.cluster.metadata.MetadataRecord.RegisterBroker;
import io.brook.cluster.metadata.MetadataRecord.Topic;
import io.brook.cluster.metadata.MetadataRecord.UnfenceBroker;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * The metadata of a cluster of a given size, as the controller would have written it: every
 * broker registered (one listener, a rack of three) and unfenced, then topics of {@link
 * #PARTITIONS_PER_TOPIC} partitions, replication factor 3 (or the broker count if smaller),
 * replicas rotating over the brokers, each topic one batch (its Topic record and its Partition
 * records), as {@code Controller.createTopic} commits it.
 */
record SyntheticCluster(int brokers, int partitions) {

    static final int PARTITIONS_PER_TOPIC = 100;
    static final int REPLICATION_FACTOR = 3;

    SyntheticCluster {
        if (partitions % PARTITIONS_PER_TOPIC != 0) {
            throw new IllegalArgumentException(partitions + " is not a multiple of " + PARTITIONS_PER_TOPIC);
        }
    }

    int topics() {
        return partitions / PARTITIONS_PER_TOPIC;
    }

    int replicationFactor() {
        return Math.min(REPLICATION_FACTOR, brokers);
    }

    static String topicName(int t) {
        return String.format(Locale.ROOT, "topic-%06d", t);
    }

    static UUID topicId(int t) {
        return new UUID(0x5ca1eL, t + 1);
    }

    static RegisterBroker register(int id, long epoch) {
        return new RegisterBroker(id, new UUID(id, 1), epoch,
                List.of(new Endpoint("PLAINTEXT", "broker-" + id + ".example.com", 9092)), "rack-" + id % 3);
    }

    /** The batch that registers and unfences every broker (epoch 1 each). */
    List<MetadataRecord> brokerBatch() {
        List<MetadataRecord> out = new ArrayList<>();
        for (int id = 0; id < brokers; id++) {
            out.add(register(id, 1));
        }
        for (int id = 0; id < brokers; id++) {
            out.add(new UnfenceBroker(id, 1));
        }
        return out;
    }

    /** The batch that creates topic {@code t} with its partitions. */
    List<MetadataRecord> topicBatch(int t) {
        List<MetadataRecord> out = new ArrayList<>(PARTITIONS_PER_TOPIC + 1);
        UUID id = topicId(t);
        out.add(new Topic(topicName(t), id));
        for (int p = 0; p < PARTITIONS_PER_TOPIC; p++) {
            int first = (t * PARTITIONS_PER_TOPIC + p) % brokers;
            List<Integer> replicas = new ArrayList<>(replicationFactor());
            for (int r = 0; r < replicationFactor(); r++) {
                replicas.add((first + r) % brokers);
            }
            out.add(new Partition(id, p, replicas, replicas, first, 0, 0));
        }
        return out;
    }

    /** Every batch of the metadata log that built this cluster, in order. */
    List<List<MetadataRecord>> log() {
        List<List<MetadataRecord>> batches = new ArrayList<>(topics() + 1);
        batches.add(brokerBatch());
        for (int t = 0; t < topics(); t++) {
            batches.add(topicBatch(t));
        }
        return batches;
    }

    /** The image after the whole log, built without keeping the records. */
    MetadataImage image() {
        MetadataImage image = new MetadataImage();
        brokerBatch().forEach(image::apply);
        for (int t = 0; t < topics(); t++) {
            topicBatch(t).forEach(image::apply);
        }
        return image;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%,d brokers, %,d partitions (%,d topics)", brokers, partitions, topics());
    }
}
