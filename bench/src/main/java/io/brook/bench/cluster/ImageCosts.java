package io.brook.bench.cluster;

import io.brook.cluster.controller.Controller;
import io.brook.cluster.metadata.BrokerInfo;
import io.brook.cluster.metadata.MetadataCodec;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataRecord.Config;
import io.brook.cluster.metadata.MetadataRecord.FenceBroker;
import io.brook.cluster.metadata.MetadataRecord.PartitionChange;
import io.brook.cluster.metadata.MetadataRecord.ProducerIds;
import io.brook.cluster.metadata.MetadataRecord.RemoveTopic;
import io.brook.cluster.metadata.MetadataRecord.UnfenceBroker;
import io.brook.cluster.metadata.PartitionInfo;
import io.brook.cluster.metadata.TopicInfo;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * What the metadata costs in one JVM, without Raft: the image's heap, the encoded size of each
 * record, the snapshot's size and its encode and decode-and-apply times, the replay of the log
 * that built the image, the apply cost of fencing and unfencing a broker, a full copy of the
 * image, the controller's cost of a heartbeat, a tick and a topic creation, and the size of a
 * Metadata response for every topic.
 */
final class ImageCosts {
    private final Figures out;

    ImageCosts(Figures out) {
        this.out = out;
    }

    /** Bytes of heap the image retains per partition, for each cluster, over {@code runs} builds. */
    void heap(List<SyntheticCluster> clusters, int runs) {
        out.section("Heap of the MetadataImage (heap in use after full GCs, image built minus none; " + runs + " runs)");
        out.line("%-48s %14s %14s %14s %12s", "cluster", "min bytes", "median bytes", "max bytes", "B/partition");
        for (SyntheticCluster c : clusters) {
            long[] bytes = new long[runs];
            for (int i = 0; i < runs; i++) {
                long before = HeapMeter.usedAfterGc();
                MetadataImage image = c.image();
                long after = HeapMeter.usedAfterGc();
                bytes[i] = after - before;
                if (image.topics().size() != c.topics()) {
                    throw new IllegalStateException("image of " + c + " has " + image.topics().size() + " topics");
                }
            }
            java.util.Arrays.sort(bytes);
            out.line("%-48s %,14d %,14d %,14d %,12d", c, bytes[0], bytes[runs / 2], bytes[runs - 1],
                    bytes[runs / 2] / c.partitions());
        }
    }

    /** The encoded size of each record type, with its 6-byte record header (the batch adds 7 bytes once). */
    void recordSizes() {
        out.section("Encoded record sizes (MetadataCodec; per record incl. its 6-byte header; a batch adds 7 bytes)");
        UUID topic = SyntheticCluster.topicId(0);
        List<MetadataRecord> samples = List.of(
                SyntheticCluster.register(7, 42),
                new UnfenceBroker(7, 42),
                new FenceBroker(7, 42),
                new io.brook.cluster.metadata.MetadataRecord.Topic(SyntheticCluster.topicName(0), topic),
                new SyntheticCluster(10, 100).topicBatch(0).get(1),
                new PartitionChange(topic, 0, 1, List.of(1, 2)),
                new RemoveTopic(topic),
                new Config(MetadataRecord.RESOURCE_TOPIC, SyntheticCluster.topicName(0), "retention.ms", "604800000"),
                new ProducerIds(7, 42, 1000));
        for (MetadataRecord r : samples) {
            int bytes = MetadataCodec.encodeBatch(List.of(r)).length - 7;
            out.line("%-16s %4d bytes   %s", r.getClass().getSimpleName(), bytes, describe(r));
        }
        SyntheticCluster one = new SyntheticCluster(10, 100);
        out.line("%-16s %4d bytes   one topic of 100 partitions, RF 3, as one batch",
                "topic batch", MetadataCodec.encodeBatch(one.topicBatch(0)).length);
    }

    private static String describe(MetadataRecord r) {
        if (r instanceof io.brook.cluster.metadata.MetadataRecord.RegisterBroker) {
            return "one listener 'PLAINTEXT' broker-7.example.com:9092, rack 'rack-1'";
        } else if (r instanceof io.brook.cluster.metadata.MetadataRecord.Topic) {
            return "a 12-character name";
        } else if (r instanceof io.brook.cluster.metadata.MetadataRecord.Partition) {
            return "3 replicas, ISR of 3";
        } else if (r instanceof PartitionChange) {
            return "ISR of 2";
        } else if (r instanceof Config) {
            return "topic config retention.ms=604800000";
        }
        return "";
    }

    /** Snapshot size, encode and load (decode + apply) times, and the replay of the log that built the image. */
    void snapshotAndReplay(SyntheticCluster c) throws Exception {
        MetadataImage image = c.image();
        List<MetadataRecord> records = image.toRecords();
        byte[] snapshot = MetadataCodec.encodeBatch(records);
        long[] encode = Figures.time(2, 5, () -> MetadataCodec.encodeBatch(image.toRecords()));
        long[] load = Figures.time(2, 5, () -> {
            MetadataImage loaded = new MetadataImage();
            MetadataCodec.decodeBatch(ByteBuffer.wrap(snapshot)).forEach(loaded::apply);
        });
        List<byte[]> log = new ArrayList<>();
        long logBytes = 0;
        for (List<MetadataRecord> batch : c.log()) {
            byte[] b = MetadataCodec.encodeBatch(batch);
            log.add(b);
            logBytes += b.length;
        }
        long[] replay = Figures.time(2, 5, () -> {
            MetadataImage replayed = new MetadataImage();
            for (byte[] b : log) {
                MetadataCodec.decodeBatch(ByteBuffer.wrap(b)).forEach(replayed::apply);
            }
        });
        out.line("%-48s %,12d %,12d %10.1f %10.1f %10.1f", c, snapshot.length + 4, logBytes,
                Figures.ms(Figures.median(encode)), Figures.ms(Figures.median(load)), Figures.ms(Figures.median(replay)));
    }

    void snapshotHeader() {
        out.section("Snapshot and log replay in memory (median of 5 after 2 warm-ups; no I/O)");
        out.line("%-48s %12s %12s %10s %10s %10s", "cluster", "snapshot B", "log B", "encode ms", "load ms",
                "replay ms");
    }

    void applyHeader() {
        out.section("Apply cost of one record on an image (fence: median of 7 on fresh images; every voter and broker pays it)");
        out.line("%-48s %12s %12s %12s %12s %12s %14s %14s", "cluster", "fence ms", "fence cpu ms", "unfence ms",
                "unfence cpu", "p.change us", "copy image ms", "topic+100 ms");
    }

    /**
     * Fencing and unfencing one broker (its partitions, through the image's replica index), a
     * partition change, a full copy of the image. Fencing is timed by the wall clock and by this
     * thread's CPU time (which a loaded machine does not inflate).
     */
    void applyCosts(SyntheticCluster c) throws Exception {
        // fencing moves the broker's leaderships and takes it out of ISRs: each run on a fresh image
        int victim = c.brokers() / 2;
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long[] fence = new long[7];
        long[] unfence = new long[7];
        long[] fenceCpu = new long[7];
        long[] unfenceCpu = new long[7];
        for (int i = -2; i < 7; i++) {
            MetadataImage fresh = c.image();
            long ca = threads.getCurrentThreadCpuTime();
            long a = System.nanoTime();
            fresh.apply(new FenceBroker(victim, 1));
            long b = System.nanoTime();
            long cb = threads.getCurrentThreadCpuTime();
            fresh.apply(new UnfenceBroker(victim, 1));
            long d = System.nanoTime();
            long cd = threads.getCurrentThreadCpuTime();
            if (i >= 0) {
                fence[i] = b - a;
                unfence[i] = d - b;
                fenceCpu[i] = cb - ca;
                unfenceCpu[i] = cd - cb;
            }
        }
        java.util.Arrays.sort(fence);
        java.util.Arrays.sort(unfence);
        java.util.Arrays.sort(fenceCpu);
        java.util.Arrays.sort(unfenceCpu);
        MetadataImage image = c.image();
        UUID topic = SyntheticCluster.topicId(0);
        PartitionInfo p0 = image.topics().get(topic).partitions().get(0);
        int[] flip = {0};
        long[] change = Figures.time(1000, 10_001, () -> {
            List<Integer> isr = flip[0]++ % 2 == 0 ? p0.replicas().subList(0, 1) : p0.replicas();
            image.apply(new PartitionChange(topic, 0, p0.replicas().get(0), isr));
        });
        long[] copy = Figures.time(2, 5, () -> {
            MetadataImage copied = new MetadataImage();
            image.toRecords().forEach(copied::apply);
        });
        SyntheticCluster bigger = new SyntheticCluster(c.brokers(), c.partitions() + SyntheticCluster.PARTITIONS_PER_TOPIC);
        List<MetadataRecord> extra = bigger.topicBatch(c.topics());
        long[] topicCreate = Figures.time(5, 21, () -> {
            extra.forEach(image::apply);
            image.apply(new RemoveTopic(SyntheticCluster.topicId(c.topics())));
        });
        out.line("%-48s %12.3f %12.3f %12.3f %12.3f %12.2f %14.1f %14.2f", c, Figures.ms(Figures.median(fence)),
                Figures.ms(Figures.median(fenceCpu)), Figures.ms(Figures.median(unfence)),
                Figures.ms(Figures.median(unfenceCpu)), Figures.us(Figures.median(change)),
                Figures.ms(Figures.median(copy)), Figures.ms(Figures.median(topicCreate)));
    }

    void controllerHeader() {
        out.section("Controller decisions on an in-memory log (the decision and its apply; no Raft, no network)");
        out.line("%-48s %14s %12s %16s %16s", "cluster", "heartbeat us", "tick us", "createTopic ms",
                "hb CPU at 2 s");
    }

    /** A heartbeat of a live broker, a tick with nothing to fence, a topic of 100 partitions placed with the cluster present. */
    void controllerCosts(SyntheticCluster c) throws Exception {
        MetadataImage image = c.image();
        DirectMetadataLog log = new DirectMetadataLog(image);
        Controller controller = new Controller(Clock.systemUTC(), Controller.DEFAULT_SESSION_TIMEOUT_MS, log,
                UUID::randomUUID);
        int[] next = {0};
        long[] heartbeat = Figures.time(20_000, 100_001, () -> {
            int id = next[0]++ % c.brokers();
            controller.heartbeat(id, 1).get(10, TimeUnit.SECONDS);
        });
        long[] tick = Figures.time(1000, 10_001, () -> controller.tick().get(10, TimeUnit.SECONDS));
        int[] n = {0};
        long[] create = Figures.time(5, 31, () -> {
            String name = "placed-" + n[0]++;
            controller.createTopic(name, SyntheticCluster.PARTITIONS_PER_TOPIC, c.replicationFactor(), Map.of())
                    .get(10, TimeUnit.SECONDS);
            // keep the image at its size: the deletion is not timed apart, it is cheap (one map removal)
            controller.deleteTopic(name).get(10, TimeUnit.SECONDS);
        });
        double hbNs = Figures.median(heartbeat);
        // brokers heartbeat every broker.heartbeat.interval.ms = 2000: this fraction of one core
        double cpuShare = c.brokers() / 2.0 * hbNs / 1e9;
        out.line("%-48s %14.2f %12.2f %16.2f %15.4f%%", c, Figures.us(hbNs), Figures.us(Figures.median(tick)),
                Figures.ms(Figures.median(create)), cpuShare * 100);
        for (BrokerInfo b : image.brokers().values()) {
            if (b.fenced()) {
                throw new IllegalStateException("broker " + b.id() + " was fenced during the measurement");
            }
        }
    }

    void metadataResponseHeader() {
        out.section("Metadata response for every topic (Kafka's MetadataResponseData from kafka-clients, latest version)");
        out.line("%-48s %8s %14s %12s", "cluster", "version", "bytes", "B/partition");
    }

    /** The size of the Metadata response a client gets when it asks for every topic (what a fresh client does). */
    void metadataResponse(SyntheticCluster c) {
        MetadataImage image = c.image();
        short version = ApiKeys.METADATA.latestVersion();
        MetadataResponseData data = new MetadataResponseData().setClusterId("brook-cluster-id-22chars")
                .setControllerId(0).setThrottleTimeMs(0);
        for (BrokerInfo b : image.brokers().values()) {
            data.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(b.id())
                    .setHost(b.listeners().get(0).host()).setPort(b.listeners().get(0).port()).setRack(b.rack()));
        }
        for (TopicInfo t : image.topics().values()) {
            MetadataResponseData.MetadataResponseTopic topic = new MetadataResponseData.MetadataResponseTopic()
                    .setName(t.name()).setTopicId(new org.apache.kafka.common.Uuid(t.id().getMostSignificantBits(),
                            t.id().getLeastSignificantBits()));
            t.partitions().forEach((index, p) -> topic.partitions().add(
                    new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(index)
                            .setLeaderId(p.leader()).setLeaderEpoch(p.leaderEpoch()).setReplicaNodes(p.replicas())
                            .setIsrNodes(p.isr()).setOfflineReplicas(List.of())));
            data.topics().add(topic);
        }
        int bytes = data.size(new ObjectSerializationCache(), version);
        out.line("%-48s %8d %,14d %12.1f", c, version, bytes, bytes / (double) c.partitions());
    }
}
