package io.brook.reliability;

import io.brook.storage.file.DurableFiles;
import io.brook.testkit.Await;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Exactly-once through power cuts: an idempotent producer writes an input topic without pause, a
 * {@link TransactionalCopier} copies it in transactions that carry its group's offsets to an
 * output topic and to a compacted one (aborting some transactions on purpose, and dropping its clients mid-transaction before every
 * other kill), and the broker is killed with {@code kill -9} at random
 * points, each kill followed by a power cut of its data directory ({@link PowerCuts}: every
 * unforced write undone, every other cut torn), and started again. At the end, read with
 * read_committed: the output holds every record of the input exactly once (as many times as the
 * input holds it: a retried unanswered batch may be there twice), nothing else; the compacted
 * topic holds, for every key, the value of that key's last input record; and no transaction is
 * left open in either (last stable offset = high watermark). So the transaction coordinator's
 * state, the markers, the group's transactional offsets and compaction of transactional data all
 * come through cuts. The compacted topic rolls and is cleaned every fraction of a second, so
 * that the cleaner works on aborted and committed transactions between the cuts.
 */
final class TransactionalPowerCut implements Scenario {
    static final String INPUT = "txn-in";
    static final String OUTPUT = "txn-out";
    static final String COMPACTED = "txn-compacted";
    static final int PARTITIONS = 4;
    private static final int KEYS = 16;
    /** Input records written and not yet copied at most: the copier always has work, the input a bound. */
    private static final int MAX_BACKLOG = 20_000;
    private static final int ABORT_ONE_IN = 5;

    /** {@code cuts} kills, each {@code minDelayMs}–{@code maxDelayMs} after ready. */
    record Params(int cuts, int minDelayMs, int maxDelayMs, Duration drainTimeout) {
        static Params full() {
            return new Params(30, 500, 3000, Duration.ofMinutes(5));
        }

        static Params quick() {
            return new Params(8, 500, 2000, Duration.ofMinutes(3));
        }

        static Params test() {
            return new Params(4, 300, 1000, Duration.ofSeconds(90));
        }
    }

    private final Params params;

    TransactionalPowerCut(Params params) {
        this.params = params;
    }

    @Override
    public String name() {
        return "txn-power-cut";
    }

    @Override
    public String size() {
        return params.cuts + " kills, each followed by a power cut (every other one torn), "
                + params.minDelayMs + "–" + params.maxDelayMs + " ms after ready; one transactional copier aborting one"
                + " transaction in " + ABORT_ONE_IN + " on purpose and crashing before every other kill, " + PARTITIONS + " partitions";
    }

    @Override
    public void run(Env env, ScenarioResult result) throws Exception {
        Path data = env.work().resolve(name());
        Path disk = env.work().resolve(name() + "-disk");
        DurableFiles.deleteRecursively(data);
        DurableFiles.deleteRecursively(disk); // kept by a failed run
        Files.createDirectories(data);
        Random random = new Random(env.seed());
        PowerCuts cuts;
        try {
            cuts = new PowerCuts(PowerCutFileSystem.prepare(disk, data, env.out().resolve(name() + "-fuse.log")),
                    PowerCutFileSystem.Names.STRICT, random);
        } catch (PowerCutFileSystem.Unavailable e) {
            result.skip(e.getMessage());
            return;
        }
        try {
            run(env, result, data, random, cuts);
        } finally {
            cuts.close();
        }
        if (result.status() != ScenarioResult.Status.FAIL) {
            DurableFiles.deleteRecursively(data);
            DurableFiles.deleteRecursively(cuts.disk().getParent());
        } else {
            result.note("data directory kept for inspection: " + cuts.disk());
        }
    }

    private void run(Env env, ScenarioResult result, Path data, Random random, PowerCuts cuts) throws Exception {
        cuts.next();
        int port = Env.freePort();
        Map<String, String> overrides = new TreeMap<>(Map.of("group.initial.rebalance.delay.ms", "0",
                "log.cleaner.backoff.ms", "100"));
        result.note("seed " + env.seed() + "; broker: " + env.launcher().description() + ", overrides " + overrides);
        Path log = env.out().resolve(name() + "-broker.log");
        BrokerProcess broker = env.launcher().start(port, data, overrides, log);
        InputWriter writer = null;
        TransactionalCopier copier = null;
        try (Admin admin = Clients.admin(broker.bootstrap())) {
            ReadyProbe.awaitReady(broker, Duration.ofMinutes(2));
            admin.createTopics(List.of(new NewTopic(INPUT, PARTITIONS, (short) 1),
                    new NewTopic(OUTPUT, PARTITIONS, (short) 1),
                    new NewTopic(COMPACTED, PARTITIONS, (short) 1).configs(Map.of("cleanup.policy", "compact",
                            "segment.ms", "200", "min.cleanable.dirty.ratio", "0.01", "delete.retention.ms", "500"))))
                    .all().get(30, TimeUnit.SECONDS);
            Semaphore backlog = new Semaphore(MAX_BACKLOG);
            writer = new InputWriter(broker.bootstrap(), backlog).start();
            copier = new TransactionalCopier(broker.bootstrap(), INPUT, OUTPUT, COMPACTED, ABORT_ONE_IN, random.nextLong(),
                    backlog::release).start();
            int stalls = 0;
            for (int cut = 1; cut <= params.cuts; cut++) {
                long before = copier.commits();
                long delayNanos = TimeUnit.MILLISECONDS.toNanos(
                        params.minDelayMs + random.nextInt(params.maxDelayMs - params.minDelayMs + 1));
                long from = System.nanoTime();
                TransactionalCopier c = copier;
                if (!Waits.holds(Duration.ofNanos(delayNanos).plusSeconds(60),
                        () -> System.nanoTime() - from >= delayNanos && c.commits() > before)) {
                    stalls++;
                }
                if (cut % 2 == 0) {
                    copier.crash(); // an open transaction the next producer must end, before or after the cut
                }
                broker.kill();
                cuts.cut();
                cuts.next();
                broker = env.launcher().start(port, data, overrides, log);
                double ms = ReadyProbe.awaitReady(broker, Duration.ofMinutes(2));
                env.progress().update("cut " + cut + "/" + params.cuts + ", ready after " + Math.round(ms) + " ms, "
                        + copier.commits() + " transactions committed, " + copier.restarts() + " copier restarts");
            }
            writer.stop();
            Map<TopicPartition, Long> inputEnd = ends(admin, INPUT, OffsetSpec.latest());
            boolean drained = Waits.holds(params.drainTimeout, () -> caughtUp(admin, inputEnd));
            copier.stop();
            result.check("the copier caught up with the input after the last cut", drained,
                    drained ? "its group's offsets reached " + inputEnd : "not within " + params.drainTimeout);

            // the input's last value of each key, keyed as the copier keys the compacted topic
            Map<ByteBuffer, String> newest = new HashMap<>();
            Map<String, Long> input = values(broker.bootstrap(), INPUT, IsolationLevel.READ_UNCOMMITTED,
                    r -> TransactionalCopier.compactedKey(r.partition(), r.key()), newest);
            Map<String, Long> output = values(broker.bootstrap(), OUTPUT, IsolationLevel.READ_COMMITTED,
                    ConsumerRecord::key, new HashMap<>());
            Map<ByteBuffer, String> compacted = new HashMap<>();
            values(broker.bootstrap(), COMPACTED, IsolationLevel.READ_COMMITTED, ConsumerRecord::key, compacted);

            long inputRecords = input.values().stream().mapToLong(Long::longValue).sum();
            result.figure("input records", inputRecords, "");
            result.figure("input records acknowledged", writer.acked(), "");
            result.figure("transactions committed (commit returned)", copier.commits(), "");
            result.figure("records copied in them", copier.copied(), "");
            result.figure("transactions aborted on purpose", copier.aborts(), "");
            result.figure("copier crashes (clients dropped mid-transaction)", copier.crashes(), "");
            result.figure("copier restarts after a failure", copier.restarts(), "");
            result.figure("copier failures by exception", String.valueOf(copier.failures()));
            cuts.addTo(result);
            List<String> wrong = new ArrayList<>();
            for (Map.Entry<String, Long> e : input.entrySet()) {
                long n = output.getOrDefault(e.getKey(), 0L);
                if (n != e.getValue() && wrong.size() < 10) {
                    wrong.add(e.getKey() + ": " + n + " in the output, " + e.getValue() + " in the input");
                }
            }
            output.keySet().stream().filter(v -> !input.containsKey(v)).limit(10)
                    .forEach(v -> wrong.add(v + ": in the output, not in the input"));
            result.check("the output holds every input record exactly once (read_committed)", wrong.isEmpty(),
                    wrong.isEmpty() ? input.size() + " distinct values, " + inputRecords + " records" : String.valueOf(wrong));
            List<String> stale = new ArrayList<>();
            newest.forEach((k, v) -> {
                if (!v.equals(compacted.get(k)) && stale.size() < 10) {
                    stale.add(v + " expected, " + compacted.get(k) + " read");
                }
            });
            if (compacted.size() != newest.size()) {
                stale.add(compacted.size() + " keys read, " + newest.size() + " expected");
            }
            result.check("the compacted topic holds each key's last input value (read_committed)", stale.isEmpty(),
                    stale.isEmpty() ? newest.size() + " keys" : String.valueOf(stale));
            List<String> open = new ArrayList<>();
            for (String topic : List.of(OUTPUT, COMPACTED)) {
                Map<TopicPartition, Long> stable = ends(admin, topic, OffsetSpec.latest(), IsolationLevel.READ_COMMITTED);
                Map<TopicPartition, Long> end = ends(admin, topic, OffsetSpec.latest());
                if (!stable.equals(end)) {
                    open.add(topic + ": last stable offsets " + stable + ", high watermarks " + end);
                }
            }
            result.check("no transaction left open", open.isEmpty(), open.isEmpty() ? "in " + OUTPUT + " and " + COMPACTED
                    : String.valueOf(open));
            result.check("the copier progressed before every cut", stalls == 0,
                    stalls == 0 ? "a new commit before every kill" : stalls + " cycles without a commit within 60 s");
            if (!broker.stop(60)) {
                result.note("the broker did not stop within 60 s of SIGTERM at the end and was killed");
            }
        } finally {
            if (writer != null) {
                writer.stop();
            }
            if (copier != null) {
                copier.stop();
            }
            broker.close();
        }
    }

    private static boolean caughtUp(Admin admin, Map<TopicPartition, Long> inputEnd) {
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(TransactionalCopier.GROUP)
                    .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
            return inputEnd.entrySet().stream().allMatch(e -> committed.get(e.getKey()) != null
                    && committed.get(e.getKey()).offset() >= e.getValue());
        } catch (Exception e) {
            return false;
        }
    }

    private static Map<TopicPartition, Long> ends(Admin admin, String topic, OffsetSpec spec) {
        return ends(admin, topic, spec, IsolationLevel.READ_UNCOMMITTED);
    }

    private static Map<TopicPartition, Long> ends(Admin admin, String topic, OffsetSpec spec, IsolationLevel level) {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            request.put(new TopicPartition(topic, p), spec);
        }
        Map<TopicPartition, Long> out = new TreeMap<>((a, b) -> Integer.compare(a.partition(), b.partition()));
        Await.until("the end offsets of " + topic, Duration.ofSeconds(60), () -> {
            try {
                admin.listOffsets(request, new org.apache.kafka.clients.admin.ListOffsetsOptions(level)).all()
                        .get(10, TimeUnit.SECONDS).forEach((tp, info) -> out.put(tp, info.offset()));
                return true;
            } catch (Exception e) {
                return false;
            }
        });
        return out;
    }

    /**
     * Reads {@code topic} whole at {@code level}: how often each value occurs, and the last value
     * of each key (as {@code keyOf} names it) into {@code latest}.
     */
    private static Map<String, Long> values(String bootstrap, String topic, IsolationLevel level,
            Function<ConsumerRecord<byte[], byte[]>, byte[]> keyOf, Map<ByteBuffer, String> latest) {
        Map<String, Long> counts = new HashMap<>();
        read(bootstrap, topic, level, r -> {
            String v = new String(r.value(), StandardCharsets.UTF_8);
            counts.merge(v, 1L, Long::sum);
            latest.put(ByteBuffer.wrap(keyOf.apply(r)), v);
        });
        return counts;
    }

    private static void read(String bootstrap, String topic, IsolationLevel level,
            Consumer<ConsumerRecord<byte[], byte[]>> each) {
        Map<String, String> settings = Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                level == IsolationLevel.READ_COMMITTED ? "read_committed" : "read_uncommitted");
        try (KafkaConsumer<byte[], byte[]> c = Clients.reader(bootstrap, "txn-check", settings)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                tps.add(new TopicPartition(topic, p));
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            Await.until("reading " + topic + " to " + end, Duration.ofMinutes(2), () -> {
                c.poll(Duration.ofMillis(200)).forEach(each);
                return tps.stream().allMatch(tp -> c.position(tp) >= end.get(tp));
            });
        }
    }

    /**
     * Writes the input as fast as the copier takes it: unique values, keys from a small set, each
     * partition in turn, at most a thousand records unanswered and {@code backlog}'s permits
     * ahead of the copier; failures are left to the producer's retries (what lands is read back at
     * the end, not taken from the acknowledgements).
     */
    private static final class InputWriter {
        private final String bootstrap;
        private final Semaphore backlog;
        private final AtomicLong acked = new AtomicLong();
        private final Semaphore window = new Semaphore(1000);
        private volatile boolean running = true;
        private Thread thread;

        InputWriter(String bootstrap, Semaphore backlog) {
            this.bootstrap = bootstrap;
            this.backlog = backlog;
        }

        InputWriter start() {
            thread = new Thread(this::run, "txn-input");
            thread.setDaemon(true);
            thread.start();
            return this;
        }

        private void run() {
            long seq = 0;
            while (running) {
                try (KafkaProducer<byte[], byte[]> p = Clients.idempotentProducer(bootstrap, "txn-input")) {
                    while (running) {
                        if (!backlog.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                            continue;
                        }
                        if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                            backlog.release();
                            continue;
                        }
                        long s = seq++;
                        byte[] key = ("k" + (s / PARTITIONS % KEYS)).getBytes(StandardCharsets.UTF_8);
                        var unused = p.send(new ProducerRecord<>(INPUT, (int) (s % PARTITIONS), key,
                                ("v" + s).getBytes(StandardCharsets.UTF_8)), (md, e) -> {
                                    window.release();
                                    if (e == null) {
                                        acked.incrementAndGet();
                                    }
                                });
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (RuntimeException e) {
                    // a producer that gave up: a new one carries on
                }
            }
        }

        long acked() {
            return acked.get();
        }

        void stop() throws InterruptedException {
            running = false;
            if (thread != null) {
                thread.join(TimeUnit.MINUTES.toMillis(1));
            }
        }
    }
}
