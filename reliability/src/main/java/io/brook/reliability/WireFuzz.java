package io.brook.reliability;

import io.brook.storage.file.DurableFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Many connections send mutated and random Kafka frames ({@link FrameMutator} over
 * {@link FrameCorpus}) while well-behaved clients ({@link GoodClients}) work beside them and must
 * see no error and no stall. Checked: the broker stays alive, keeps reading every connection,
 * stays within its memory, creates only topics with legal names, and the good clients' data is
 * intact. A thread dump is taken at the end.
 */
final class WireFuzz implements Scenario {
    static final String NAMES = "only legal topic names created";

    private static final Pattern PARTITION_DIR = Pattern.compile("(.+)-(\\d+)");
    private static final Pattern LEGAL_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    static Fuzzers.Size full() {
        return new Fuzzers.Size(50, 1_000_000, Duration.ofMinutes(10), Duration.ofSeconds(10));
    }

    static Fuzzers.Size quick() {
        return new Fuzzers.Size(50, 100_000, Duration.ofMinutes(2), Duration.ofSeconds(10));
    }

    static Fuzzers.Size test() {
        return new Fuzzers.Size(8, 15_000, Duration.ofSeconds(20), Duration.ofSeconds(10));
    }

    private final Fuzzers.Size size;

    WireFuzz(Fuzzers.Size size) {
        this.size = size;
    }

    @Override
    public String name() {
        return "wire-fuzz";
    }

    @Override
    public String size() {
        return size.describe();
    }

    @Override
    public void run(Env env, ScenarioResult result) throws Exception {
        Path data = env.work().resolve("wire-fuzz");
        DurableFiles.deleteRecursively(data);
        Files.createDirectories(data);
        int port = Env.freePort();
        BrokerProcess broker = env.launcher().start(port, data, Map.of("group.initial.rebalance.delay.ms", "0"),
                env.out().resolve("wire-fuzz-broker.log"));
        try (Admin admin = Clients.admin(broker.bootstrap()); RssSampler rss = new RssSampler(broker.pid())) {
            ReadyProbe.awaitReady(broker, Duration.ofSeconds(120));
            admin.createTopics(List.of(new NewTopic(FrameCorpus.TOPIC, 1, (short) 1), new NewTopic("fuzz-good", 2, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
            GoodClients good = new GoodClients(broker.bootstrap(), "fuzz-good", 2, "good-group").start(Duration.ofSeconds(60));

            List<byte[]> seeds = FrameCorpus.seeds();
            result.note("seed " + env.seed() + "; " + seeds.size() + " valid seed frames of 19 APIs; broker: "
                    + env.launcher().description() + ", --override group.initial.rebalance.delay.ms=0");
            boolean alive = Fuzzers.run(env, result, broker, port, FuzzPlan.mutating(seeds), size,
                    () -> good.acked() + " good records acknowledged");
            if (!alive) {
                return;
            }
            Fuzzers.finish(env, result, broker, good, size, rss, name());
            List<String> illegal = illegalTopicDirectories(data);
            result.figure("topics on disk", topicCount(data), "");
            result.check(NAMES, illegal.isEmpty(), illegal.isEmpty() ? "every partition directory is <legal name>-<n>"
                    : illegal.size() + " directories: " + illegal.subList(0, Math.min(5, illegal.size())));
            broker.stop(60);
        } finally {
            broker.close();
        }
        if (result.status() != ScenarioResult.Status.FAIL) {
            DurableFiles.deleteRecursively(data);
        } else {
            result.note("data directory kept for inspection: " + data);
        }
    }

    private static List<String> illegalTopicDirectories(Path data) throws Exception {
        List<String> out = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(data)) {
            for (Path d : (Iterable<Path>) dirs::iterator) {
                String name = d.getFileName().toString();
                if (name.equals("meta") || !Files.isDirectory(d)) {
                    continue;
                }
                var m = PARTITION_DIR.matcher(name);
                if (!m.matches() || !LEGAL_TOPIC.matcher(m.group(1)).matches()) {
                    out.add(name);
                }
            }
        }
        return out;
    }

    private static long topicCount(Path data) throws Exception {
        try (Stream<Path> dirs = Files.list(data)) {
            return dirs.map(d -> d.getFileName().toString()).filter(n -> PARTITION_DIR.matcher(n).matches())
                    .map(n -> n.substring(0, n.lastIndexOf('-'))).distinct().count();
        }
    }
}
