package io.brook.reliability;

import io.brook.storage.file.DurableFiles;
import io.brook.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
    static final String ALIVE = "broker alive (0 crashes)";
    static final String MEMORY = "broker memory stayed bounded";
    static final String READING = "broker kept reading every connection";
    static final String NAMES = "only legal topic names created";
    static final String VOLUME = "frames sent";

    private static final Pattern PARTITION_DIR = Pattern.compile("(.+)-(\\d+)");
    private static final Pattern LEGAL_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    record Params(int connections, long frames, Duration maxDuration, Duration maxGoodClientPause) {

        static Params full() {
            return new Params(50, 1_000_000, Duration.ofMinutes(10), Duration.ofSeconds(10));
        }

        static Params quick() {
            return new Params(50, 100_000, Duration.ofMinutes(2), Duration.ofSeconds(10));
        }

        static Params test() {
            return new Params(8, 15_000, Duration.ofSeconds(20), Duration.ofSeconds(10));
        }
    }

    private final Params params;

    WireFuzz(Params params) {
        this.params = params;
    }

    @Override
    public String name() {
        return "wire-fuzz";
    }

    @Override
    public String size() {
        return params.connections + " connections, " + params.frames + " frames or " + params.maxDuration.toSeconds()
                + " s, whichever comes first";
    }

    @Override
    public void run(Env env, ScenarioResult result) throws Exception {
        Path data = env.work().resolve("wire-fuzz");
        DurableFiles.deleteRecursively(data);
        Files.createDirectories(data);
        int port = Env.freePort();
        BrokerProcess broker = env.launcher().start(port, data, Map.of("group.initial.rebalance.delay.ms", "0"),
                env.out().resolve("wire-fuzz-broker.log"));
        List<Thread> fuzzers = new ArrayList<>();
        try (Admin admin = Clients.admin(broker.bootstrap()); RssSampler rss = new RssSampler(broker.pid())) {
            ReadyProbe.awaitReady(broker, Duration.ofSeconds(120));
            admin.createTopics(List.of(new NewTopic(FrameCorpus.TOPIC, 1, (short) 1), new NewTopic("fuzz-good", 2, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
            GoodClients good = new GoodClients(broker.bootstrap(), "fuzz-good", 2, "good-group").start(Duration.ofSeconds(60));

            List<byte[]> seeds = FrameCorpus.seeds();
            result.note("seed " + env.seed() + "; " + seeds.size() + " valid seed frames of 19 APIs; broker: "
                    + env.launcher().description() + ", --override group.initial.rebalance.delay.ms=0");
            FuzzClient.Counters counters = new FuzzClient.Counters();
            AtomicLong budget = new AtomicLong(params.frames);
            long start = System.nanoTime();
            long deadline = start + params.maxDuration.toNanos();
            for (int i = 0; i < params.connections; i++) {
                Thread t = new Thread(new FuzzClient(port, seeds, env.seed() + i, budget, deadline, counters), "fuzz-" + i);
                t.setDaemon(true);
                fuzzers.add(t);
                t.start();
            }
            Await.until("the fuzzing threads to finish", params.maxDuration.plusSeconds(60), () -> {
                env.progress().update(counters.frames.get() + " frames, " + counters.connections.get() + " connections, "
                        + good.acked() + " good records acknowledged");
                return fuzzers.stream().noneMatch(Thread::isAlive) || !broker.alive();
            });
            double seconds = (System.nanoTime() - start) / 1e9;
            boolean alive = broker.alive();

            result.figure("frames sent", counters.frames.get(), "");
            result.figure("frames per second", counters.frames.get() / seconds, "");
            result.figure("fuzzing time", seconds, "s");
            result.figure("bytes sent", counters.bytesSent.get(), "B");
            result.figure("bytes received", counters.bytesReceived.get(), "B");
            result.figure("connections opened", counters.connections.get(), "");
            result.figure("connections closed by the broker", counters.closedByBroker.get(), "");
            result.figure("connections refused", counters.connectFailures.get(), "");
            result.figure("frames left unanswered for " + FuzzClient.ANSWER_WAIT_MS + " ms", counters.unanswered.get(), "");
            result.check(VOLUME, counters.frames.get() >= params.frames, counters.frames.get() + " of " + params.frames
                    + " in " + Math.round(seconds) + " s");
            result.check(ALIVE, alive, alive ? "serving after " + Math.round(seconds) + " s of fuzzing"
                    : "EXITED with status " + broker.exitValue() + "; last lines:\n" + broker.logTail(20));
            result.check(READING, counters.stalls.get() == 0, counters.stalls.get() + " writes could not complete within "
                    + FuzzClient.STALL_SECONDS + " s");
            if (!alive) {
                return;
            }
            ThreadDump dump = ThreadDump.take(broker.pid(), env.out().resolve("wire-fuzz-jstack.txt"));
            result.figure("broker threads at the end (jstack)", dump.threads(), "");
            result.figure("of them BLOCKED", dump.blocked(), "");
            good.finish(result, params.maxGoodClientPause);
            List<String> illegal = illegalTopicDirectories(data);
            result.figure("topics on disk", topicCount(data), "");
            result.check(NAMES, illegal.isEmpty(), illegal.isEmpty() ? "every partition directory is <legal name>-<n>"
                    : illegal.size() + " directories: " + illegal.subList(0, Math.min(5, illegal.size())));
            rss.report(result, MEMORY, 2 * env.launcher().heapMaxBytes() + (512L << 20), true);
            BrokerLog.check(broker, result);
            broker.stop(60);
        } finally {
            fuzzers.forEach(Thread::interrupt);
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
