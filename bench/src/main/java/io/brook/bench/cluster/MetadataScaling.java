package io.brook.bench.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Measures what cluster mode's metadata costs as clusters grow (docs/scaling.md): the image's
 * heap per partition, encoded record sizes, snapshot size and its encode, write and load times,
 * log replay, the apply cost of fencing, a full image copy, the controller's cost of heartbeats,
 * ticks and topic creations, a Metadata response's size, a three-voter quorum's latency and
 * throughput, and the broker-side cost of an empty partition.
 *
 * <pre>
 * mvn -B -q -pl testkit,wire,storage,coordinator,server,cluster,bench package -DskipTests
 * java -Xmx3g -cp bench/target/benchmarks.jar io.brook.bench.cluster.MetadataScaling [figures file] [quick]
 * </pre>
 *
 * Writes the figures to stdout and to the file (default {@code bench/target/metadata-scaling.txt}).
 * {@code quick} measures only 10 and 100 brokers and fewer samples, to try the harness out;
 * {@code apply} measures only the apply and controller costs (fencing with the thread's CPU time
 * beside the wall time, so that a loaded machine still gives a usable figure), in about a minute.
 * Timings are medians of repeated runs on one JVM after warm-up, not JMH: they say where the
 * costs grow, to within tens of per cent, not the last nanosecond.
 */
public final class MetadataScaling {

    private MetadataScaling() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args.length > 0 ? args[0] : "bench/target/metadata-scaling.txt");
        boolean quick = args.length > 1 && args[1].equals("quick");
        boolean applyOnly = args.length > 1 && args[1].equals("apply");
        Path work = Files.createTempDirectory("brook-scaling");
        Figures out = new Figures();
        out.line("# Metadata scaling figures");
        out.line("machine: %d cores (Runtime.availableProcessors), %s %s, max heap %,d MiB, %s",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"), Runtime.getRuntime().maxMemory() >> 20, System.getProperty("os.name")
                        + " " + System.getProperty("os.version"));

        List<Integer> brokerCounts = quick ? List.of(10, 100) : List.of(10, 100, 1000);
        List<SyntheticCluster> big = brokerCounts.stream().map(b -> new SyntheticCluster(b, 100_000)).toList();
        ImageCosts image = new ImageCosts(out);
        if (applyOnly) {
            applyAndControllerCosts(image, big);
            out.writeTo(file);
            System.out.println("figures written to " + file.toAbsolutePath());
            return;
        }

        // first, while the heap holds nothing else the later sections leave behind
        new PartitionCosts(out, work).measure(quick ? 200 : 1000);

        image.recordSizes();
        List<SyntheticCluster> heapClusters = new java.util.ArrayList<>();
        for (int b : brokerCounts) {
            heapClusters.add(new SyntheticCluster(b, 10_000));
        }
        heapClusters.addAll(big);
        image.heap(heapClusters, quick ? 3 : 5);
        image.snapshotHeader();
        for (SyntheticCluster c : big) {
            image.snapshotAndReplay(c);
        }
        applyAndControllerCosts(image, big);
        image.metadataResponseHeader();
        for (SyntheticCluster c : big) {
            image.metadataResponse(c);
        }

        QuorumCosts quorum = new QuorumCosts(out, work);
        quorum.oneVoter(big.get(0), false); // warm-up: the first run pays for class loading and the JIT
        quorum.oneVoterHeader();
        for (SyntheticCluster c : big) {
            quorum.oneVoter(c, true);
        }
        quorum.threeVoters(quick ? 500 : 2000, quick ? 1000 : 5000);

        QuorumCosts.deleteTree(work);
        out.writeTo(file);
        System.out.println("figures written to " + file.toAbsolutePath());
    }

    /** The sections on applying metadata records to the image and on the controller, for each big cluster. */
    private static void applyAndControllerCosts(ImageCosts image, List<SyntheticCluster> big) throws Exception {
        image.applyHeader();
        for (SyntheticCluster c : big) {
            image.applyCosts(c);
        }
        image.controllerHeader();
        for (SyntheticCluster c : big) {
            image.controllerCosts(c);
        }
    }
}
