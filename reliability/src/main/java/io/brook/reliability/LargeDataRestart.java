package io.brook.reliability;

import io.brook.storage.file.DurableFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Time to ready after {@code kill -9} with a large data directory: a bulk producer (acks=1,
 * 1 MiB batches of 16 KiB records) fills 8 partitions with the given number of bytes, the broker
 * is killed as soon as the last record is acknowledged (nothing forced it to disk, so its
 * recovery starts far behind the end), restarted and timed to ready; then killed again right
 * after each ready, as often as asked. The page cache keeps the data (only the process dies),
 * so the figure is the broker's recovery work, not the disk's read speed.
 */
final class LargeDataRestart implements Scenario {
    static final String TOPIC = "bulk";
    private static final int PARTITIONS = 8;
    private static final int RECORD_BYTES = 16 * 1024;
    /** The goal for the time to ready with about 5 GB on disk, checked from 1 GiB up. */
    private static final double GOAL_MS = 1000;
    private static final long GOAL_FROM_BYTES = 1L << 30;

    private final long bytes;
    private final int kills;

    LargeDataRestart(long bytes, int kills) {
        this.bytes = bytes;
        this.kills = kills;
    }

    /** 5 GiB, three restarts (the "about 5 GB"). */
    static LargeDataRestart full() {
        return new LargeDataRestart(5L << 30, 3);
    }

    static LargeDataRestart quick() {
        return new LargeDataRestart(200L << 20, 2);
    }

    static LargeDataRestart test() {
        return new LargeDataRestart(8L << 20, 2);
    }

    @Override
    public String name() {
        return "large-data-restart";
    }

    @Override
    public String size() {
        return (bytes >> 20) + " MiB at acks=1 on " + PARTITIONS + " partitions, then " + kills + " kill -9 and restarts";
    }

    @Override
    public void run(Env env, ScenarioResult result) throws Exception {
        Path data = env.work().resolve("crash-large");
        DurableFiles.deleteRecursively(data);
        Files.createDirectories(data);
        int port = Env.freePort();
        Path log = env.out().resolve("crash-large-broker.log");
        String name = "large data dir (" + (bytes >> 20) + " MiB)";
        env.progress().phase("writing " + (bytes >> 20) + " MiB at acks=1 for the large-data restart");
        BrokerProcess broker = env.launcher().start(port, data, Map.of(), log);
        try (Admin admin = Clients.admin(broker.bootstrap())) {
            ReadyProbe.awaitReady(broker, Duration.ofSeconds(120));
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
            long start = System.nanoTime();
            long acked = BulkFill.fill(broker.bootstrap(), TOPIC, PARTITIONS, bytes, RECORD_BYTES);
            double seconds = (System.nanoTime() - start) / 1e9;
            result.figure(name + ": written at acks=1", acked * (double) RECORD_BYTES / (1 << 20) / seconds, "MiB/s");
            broker.kill();
            result.figure(name + ": size on disk", directorySize(data) / (double) (1 << 20), "MiB");

            List<Double> readyMs = new ArrayList<>();
            for (int k = 1; k <= kills; k++) {
                broker = env.launcher().start(port, data, Map.of(), log);
                double ms = ReadyProbe.awaitReady(broker, Duration.ofMinutes(10));
                readyMs.add(ms);
                result.figure(name + ": time to ready after kill " + k
                        + (k == 1 ? " (right after the acks=1 writes)" : " (right after the previous ready)"), ms, "ms");
                if (k == 1) {
                    long after = endOffsets(admin);
                    result.figure(name + ": acks=1 records acknowledged before the kill", acked, "");
                    result.figure(name + ": records after recovery", after, "");
                    result.check("every acks=1 record acknowledged before the kill -9 is there after the restart",
                            after >= acked, after + " records after recovery, " + acked + " acknowledged (the process"
                                    + " died, not the machine: their bytes were in the page cache)");
                }
                if (k < kills) {
                    broker.kill();
                }
            }
            if (kills > 1) {
                Stats.of(readyMs).addTo(result, name + ": time to ready after kill -9", "ms");
            }
            if (bytes >= GOAL_FROM_BYTES) {
                double worst = readyMs.stream().mapToDouble(Double::doubleValue).max().orElse(0);
                result.check("ready within " + GOAL_MS + " ms after every kill -9 (Kafka 4.4: 13.6–15.4 s here)",
                        worst <= GOAL_MS, "slowest " + Math.round(worst) + " ms");
            }
            broker.stop(60);
        } finally {
            broker.close();
            DurableFiles.deleteRecursively(data);
        }
    }

    private static long endOffsets(Admin admin) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            latest.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
        }
        return admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS).values().stream()
                .mapToLong(info -> info.offset()).sum();
    }

    private static long directorySize(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException e) {
                    return 0;
                }
            }).sum();
        }
    }
}
