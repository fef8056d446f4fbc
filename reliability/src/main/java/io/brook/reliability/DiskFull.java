package io.brook.reliability;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ProduceResponse;

/**
 * The broker's data directory on a small file system that fills up. An idempotent acks=all
 * producer writes until the broker refuses; a raw probe records the exact error it answers.
 * Then: a reader must still read everything up to the end; a filler file placed on the same file
 * system beforehand is deleted, and writes must resume within a deadline without a restart;
 * finally the broker is restarted and every acknowledged record and committed offset must be
 * there, once, at its place. Skipped (with the reason) where no file system can be mounted.
 */
final class DiskFull implements Scenario {
    static final String TOPIC = "full";
    private static final int PARTITIONS = 4;
    static final String GROUP = "full-group";

    /** The checks of this scenario; its test asserts every one. */
    static final String NO_LOSS = "every acknowledged record present once, at its offset, after a restart";
    static final String RETRIABLE = "a full disk is answered with a retriable error";
    static final String COMMITS_KEPT = "committed offsets kept";
    static final String READS = "reads continue while the disk is full";
    static final String RESUMES = "writes resume without a restart once space is freed";

    /** {@code readTimeout}: how long a reader may take to read everything while the disk is full. */
    record Params(long fileSystemBytes, long fillerBytes, Duration fillTimeout, Duration readTimeout,
            Duration resumeTimeout) {

        static Params full() {
            return new Params(512L << 20, 64L << 20, Duration.ofMinutes(5), Duration.ofSeconds(30), Duration.ofSeconds(60));
        }

        static Params quick() {
            return new Params(256L << 20, 32L << 20, Duration.ofMinutes(3), Duration.ofSeconds(30), Duration.ofSeconds(30));
        }

        static Params test() {
            return new Params(64L << 20, 8L << 20, Duration.ofSeconds(60), Duration.ofSeconds(5), Duration.ofSeconds(5));
        }
    }

    private final Params params;

    DiskFull(Params params) {
        this.params = params;
    }

    @Override
    public String name() {
        return "disk-full";
    }

    @Override
    public String size() {
        return (params.fileSystemBytes >> 20) + " MiB file system with a " + (params.fillerBytes >> 20)
                + " MiB filler file; writes must resume within " + params.resumeTimeout.toSeconds() + " s";
    }

    @Override
    public void run(Env env, ScenarioResult result) throws Exception {
        SmallFileSystem fs;
        try {
            fs = SmallFileSystem.mount(env.work().resolve("disk-full-mnt"), env.work().resolve("disk-full.img"),
                    params.fileSystemBytes);
        } catch (SmallFileSystem.Unavailable e) {
            result.skip(e.getMessage());
            return;
        }
        try (fs) {
            result.note("file system: " + fs.kind() + "; broker: " + env.launcher().description());
            Path filler = fs.root().resolve("filler.bin");
            writeFiller(filler, params.fillerBytes);
            fillAndRecover(env, fs, filler, result);
        }
    }

    private void fillAndRecover(Env env, SmallFileSystem fs, Path filler, ScenarioResult result) throws Exception {
        Path data = fs.root().resolve("data");
        int port = Env.freePort();
        Map<String, String> overrides = Map.of("group.initial.rebalance.delay.ms", "0");
        Path log = env.out().resolve("disk-full-broker.log");
        BrokerProcess broker = env.launcher().start(port, data, overrides, log);
        AckLedger ledger = new AckLedger(1, PARTITIONS);
        IdProducers producers = null;
        CommittingConsumers consumers = null;
        Probe probe = new Probe(port);
        try (Admin admin = Clients.admin(broker.bootstrap())) {
            ReadyProbe.awaitReady(broker, Duration.ofSeconds(120));
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)
                    .configs(Map.of("segment.bytes", Integer.toString(4 << 20))))).all().get(30, TimeUnit.SECONDS);
            producers = new IdProducers(broker.bootstrap(), TOPIC, ledger, 1000, 2000).start();
            consumers = new CommittingConsumers(broker.bootstrap(), TOPIC, List.of(GROUP), 1).start();

            env.progress().phase("filling " + fs.kind());
            long fillStart = System.nanoTime();
            BrokerProcess filling = broker;
            boolean refused = Waits.holds(params.fillTimeout, () -> probe.produce() != Errors.NONE || !filling.alive());
            result.figure("time to fill", (System.nanoTime() - fillStart) / 1e9, "s");
            result.figure("free bytes when writes were first refused", fs.usableBytes(), "B");
            result.figure("records acknowledged before the disk was full", ledger.ackedCount(), "");
            if (!refused) {
                result.check(RETRIABLE, false, "writes were never refused within " + params.fillTimeout.toSeconds() + " s");
                return;
            }
            // the state while full, for a few more probes
            for (int i = 0; i < 20 && broker.alive(); i++) {
                probe.produce();
            }
            result.figure("broker answers while full", String.valueOf(probe.seen()));
            boolean allRetriable = probe.seen().keySet().stream().filter(k -> !k.equals(Errors.NONE.name()))
                    .allMatch(DiskFull::retriable);
            result.check(RETRIABLE, broker.alive() && allRetriable,
                    "broker " + (broker.alive() ? "alive" : "EXITED") + ", answers " + probe.seen());
            result.figure("broker log lines at WARN/ERROR while full", String.valueOf(problemLines(broker)));

            String reads = readToEnd(broker.bootstrap(), params.readTimeout);
            result.check(READS, reads.startsWith("read"), reads);

            long ackedWhenFull = ledger.ackedCount();
            Files.delete(filler);
            long freed = System.nanoTime();
            probe.clear();
            boolean resumed = Waits.holds(params.resumeTimeout, () -> probe.produce() == Errors.NONE);
            double resumeMs = (System.nanoTime() - freed) / 1e6;
            boolean producerResumed = resumed && Waits.holds(Duration.ofSeconds(10),
                    () -> ledger.ackedCount() > ackedWhenFull);
            result.check(RESUMES, resumed && producerResumed, resumed
                    ? "a probe produce succeeded " + Math.round(resumeMs) + " ms after the filler was deleted; the"
                    + " idempotent producer " + (producerResumed ? "resumed" : "did NOT resume within 10 s more")
                    : "still refused " + params.resumeTimeout.toSeconds() + " s after " + (params.fillerBytes >> 20)
                    + " MiB were freed; answers since: " + probe.seen());

            // records still in flight can only be answered if writes resumed
            producers.stop(Duration.ofSeconds(resumed ? 10 : 1));
            consumers.stop();
            result.figure("failed sends by exception", String.valueOf(producers.failures()));
            if (!producers.failures().isEmpty()) {
                result.figure("first message of each failed send's exception",
                        String.valueOf(producers.failures().firstMessages()));
            }
            result.figure("failed polls/commits by exception", String.valueOf(consumers.failures()));
            boolean clean = broker.stop(60);
            result.note("restart: the broker " + (clean ? "stopped on SIGTERM" : "did not stop within 60 s of SIGTERM"
                    + " and was killed") + ", then started again on the same file system");
            broker = env.launcher().start(port, data, overrides, log);
            ReadyProbe.awaitReady(broker, Duration.ofSeconds(120));
            ReadBack.Verification v = ReadBack.verify(broker.bootstrap(), TOPIC, ledger, Duration.ofSeconds(60));
            result.figure("records acknowledged", ledger.ackedCount(), "");
            result.check(NO_LOSS, v.ok(), v.summary());
            List<String> regressions = CommitFloors.regressions(consumers.floors().snapshot(), committed(admin));
            result.check(COMMITS_KEPT, regressions.isEmpty(), regressions.isEmpty()
                    ? consumers.commits() + " commits acknowledged, all there after the restart"
                    : String.join("; ", regressions));
            broker.stop(60);
        } finally {
            probe.close();
            if (producers != null) {
                producers.stop(Duration.ZERO);
            }
            if (consumers != null) {
                consumers.stop();
            }
            broker.close();
        }
    }

    private static boolean retriable(String error) {
        try {
            return Errors.valueOf(error).exception() instanceof org.apache.kafka.common.errors.RetriableException;
        } catch (IllegalArgumentException e) {
            return false; // a closed connection or an I/O error: not an answer a client can act on
        }
    }

    /** "read N records ..." if a reader gets every partition to its end offset in time, else what stopped it. */
    private static String readToEnd(String bootstrap, Duration timeout) {
        try (KafkaConsumer<byte[], byte[]> reader = Clients.reader(bootstrap, "reliability-full-reader", Map.of())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                tps.add(new TopicPartition(TOPIC, p));
            }
            reader.assign(tps);
            reader.seekToBeginning(tps);
            Map<TopicPartition, Long> end = reader.endOffsets(tps, timeout);
            long[] read = {0};
            boolean done = Waits.holds(timeout, () -> {
                read[0] += reader.poll(Duration.ofMillis(200)).count();
                return tps.stream().allMatch(tp -> reader.position(tp) >= end.get(tp));
            });
            long total = end.values().stream().mapToLong(Long::longValue).sum();
            return done ? "read " + read[0] + " records, every partition to its end offset (" + total + " in all)"
                    : "only " + read[0] + " of " + total + " records within " + timeout.toSeconds() + " s";
        } catch (RuntimeException e) {
            return "the reader failed: " + e;
        }
    }

    private static Map<String, Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata>> committed(
            Admin admin) throws Exception {
        return Map.of(GROUP, admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS));
    }

    /** The broker's log lines at WARN or ERROR (first few), to say what it did. */
    private static List<String> problemLines(BrokerProcess broker) {
        List<String> out = new ArrayList<>();
        for (String line : broker.logTail(2000).split("\n")) {
            if ((line.contains(" WARN ") || line.contains(" ERROR ")) && out.size() < 3) {
                out.add(line.length() > 300 ? line.substring(0, 300) + "..." : line);
            }
        }
        return out;
    }

    private static void writeFiller(Path file, long bytes) throws IOException {
        byte[] chunk = new byte[1 << 20];
        new Random(7).nextBytes(chunk);
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long n = 0; n < bytes; n += chunk.length) {
                out.write(chunk, 0, (int) Math.min(chunk.length, bytes - n));
            }
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }

    /**
     * One acks=all produce of one record to partition 0 per call over a raw connection, counting
     * the answers by error name ({@code CONNECTION_CLOSED} when the broker closed the connection).
     */
    private static final class Probe implements AutoCloseable {
        private final int port;
        private final Map<String, Integer> seen = new LinkedHashMap<>();
        private KafkaWire wire;

        Probe(int port) {
            this.port = port;
        }

        synchronized Errors produce() {
            try {
                if (wire == null) {
                    wire = KafkaWire.connect(port, Duration.ofSeconds(15));
                }
                ProduceResponse r = wire.send(Requests.produce(TOPIC, 0, (short) -1, "probe"), Requests.PRODUCE_VERSION);
                Errors e = Requests.produceError(r);
                seen.merge(e.name(), 1, Integer::sum);
                return e;
            } catch (IOException e) {
                seen.merge("CONNECTION_CLOSED", 1, Integer::sum);
                close();
                return Errors.NETWORK_EXCEPTION;
            }
        }

        synchronized Map<String, Integer> seen() {
            return new HashMap<>(seen);
        }

        synchronized void clear() {
            seen.clear();
        }

        @Override
        public synchronized void close() {
            if (wire != null) {
                try {
                    wire.close();
                } catch (IOException ignored) {
                    // nothing left to release
                }
                wire = null;
            }
        }
    }
}
