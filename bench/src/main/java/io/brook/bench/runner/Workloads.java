package io.brook.bench.runner;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The workloads, run with stock kafka-clients against one running broker. Each measures the
 * broker process's CPU time over its measured phase and checks, per partition, that everything
 * acknowledged was read back — and nothing more.
 */
final class Workloads implements AutoCloseable {
    /** A read-back or a consumer that makes no progress for this long has failed. */
    static final Duration IDLE_LIMIT = Duration.ofSeconds(30);

    private final String bootstrap;
    private final String broker;
    private final long pid;
    private final int clockTicks;
    private final Progress progress;
    private final Admin admin;
    private final Duration idleLimit;
    private final Map<String, long[]> baseOffsets = new java.util.HashMap<>();

    private final Map<String, String> producerOverrides;
    private final Map<String, String> consumerOverrides;

    Workloads(String bootstrap, String broker, long pid, int clockTicks, Progress progress) {
        this(bootstrap, broker, pid, clockTicks, progress, IDLE_LIMIT, Map.of(), Map.of());
    }

    /**
     * @param producerOverrides producer settings applied last, to every workload's producer
     * @param consumerOverrides consumer settings applied last, to every consumer
     */
    Workloads(String bootstrap, String broker, long pid, int clockTicks, Progress progress, Duration idleLimit,
              Map<String, String> producerOverrides, Map<String, String> consumerOverrides) {
        this.idleLimit = idleLimit;
        this.producerOverrides = Map.copyOf(producerOverrides);
        this.consumerOverrides = Map.copyOf(consumerOverrides);
        this.bootstrap = bootstrap;
        this.broker = broker;
        this.pid = pid;
        this.clockTicks = clockTicks;
        this.progress = progress;
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        this.admin = Admin.create(p);
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(10));
    }

    /** The runner's admin client (for the workloads that change the broker's settings first). */
    Admin admin() {
        return admin;
    }

    // ---------------------------------------------------------------- names in the report

    static String consumeName() {
        return "consume " + Plan.CONSUME_PARTITIONS + "p " + Plan.size(Plan.CONSUME_RECORD_SIZE) + " (catch-up, assign)";
    }

    /**
     * The consume workload read by {@code consumers} consumers at once (each assigned every
     * {@code consumers}-th partition, in a thread of its own): the row that shows the broker when
     * one consumer's thread is the bottleneck. One consumer is {@link #consumeName()}.
     */
    static String consumeName(int consumers) {
        return consumers == 1 ? consumeName()
                : "consume " + Plan.CONSUME_PARTITIONS + "p " + Plan.size(Plan.CONSUME_RECORD_SIZE) + " (catch-up, assign, "
                        + consumers + " consumers)";
    }

    static String latencyName(int rate) {
        return String.format(java.util.Locale.ROOT, "latency %,d rec/s 1p %s acks=all", rate,
                Plan.size(Plan.LATENCY_RECORD_SIZE));
    }

    static String manyPartitionsName(int partitions) {
        return "many partitions: " + partitions + "p round-robin " + Plan.size(Plan.MANY_PARTITIONS_RECORD_SIZE)
                + " acks=all";
    }

    // ---------------------------------------------------------------- clients

    static Properties producerProps(String bootstrap, String acks, int batchSize, int lingerMs) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, acks);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(batchSize));
        p.put(ProducerConfig.LINGER_MS_CONFIG, Integer.toString(lingerMs));
        return p;
    }

    private KafkaProducer<byte[], byte[]> producer(String acks, int batchSize, int lingerMs) {
        return new KafkaProducer<>(producerSettings(acks, batchSize, lingerMs));
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        return new KafkaConsumer<>(consumerSettings());
    }

    void createTopic(String topic, int partitions) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
        // wait until every partition has a leader, so the first send measures the broker, not creation
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            org.apache.kafka.clients.admin.TopicDescription description = null;
            try {
                description = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
            } catch (ExecutionException e) {
                // a new topic reaches the broker's metadata a moment after CreateTopics returns
                if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)) {
                    throw e;
                }
            }
            if (description != null && description.partitions().size() == partitions
                    && description.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
                break;
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("topic " + topic + " has no leader for every partition after 60 s");
            }
            Thread.sleep(50); // polling the broker's metadata; bounded by the deadline
        }
        prime(topic, partitions);
    }

    /**
     * Untimed: one acknowledged record in every partition before a workload starts, so that its
     * clock measures writes to partitions that exist on disk and accept them (brokers create a
     * partition's log lazily, after CreateTopics has returned). Each attempt uses a fresh
     * producer. What the workload reads back starts at the log end offsets found afterwards.
     */
    private void prime(String topic, int partitions) throws Exception {
        progress.update("one record to each of " + partitions + " partitions (not timed)");
        byte[] value = payload(16);
        Exception last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            Properties props = producerProps(bootstrap, "all", 16 * 1024, 0);
            props.putAll(producerOverrides);
            props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
            props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
            Acks acks = new Acks(partitions);
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
                for (int p = 0; p < partitions; p++) {
                    var unused = producer.send(new ProducerRecord<>(topic, p, null, value), acks); // the callback sees the outcome
                }
                producer.flush();
            }
            if (acks.failure.get() == null) {
                last = null;
                break;
            }
            last = acks.failure.get();
            progress.note(broker + " | priming " + topic + " failed (" + last + "); trying again");
        }
        if (last != null) {
            throw new VerificationException("could not write one record to every partition of " + topic + ": " + last);
        }
        long[] base = new long[partitions];
        Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new java.util.HashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(topic, p), org.apache.kafka.clients.admin.OffsetSpec.latest());
        }
        admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS)
                .forEach((tp, info) -> base[tp.partition()] = info.offset());
        baseOffsets.put(topic, base);
    }

    /** Where each created topic's workload data begins: the log end offsets after priming. */
    private long[] base(String topic, int partitions) {
        long[] b = baseOffsets.get(topic);
        return b != null && b.length == partitions ? b : new long[partitions];
    }

    static byte[] payload(int size) {
        byte[] b = new byte[size];
        new Random(42).nextBytes(b); // incompressible; the same bytes for both brokers
        return b;
    }

    // ---------------------------------------------------------------- produce

    /** Counts acknowledgements per partition and keeps the first failure. */
    private static final class Acks implements Callback {
        final AtomicLongArray perPartition;
        final AtomicLong total = new AtomicLong();
        final AtomicReference<Exception> failure = new AtomicReference<>();

        Acks(int partitions) {
            perPartition = new AtomicLongArray(partitions);
        }

        @Override
        public void onCompletion(org.apache.kafka.clients.producer.RecordMetadata metadata, Exception e) {
            if (e != null) {
                failure.compareAndSet(null, e);
            } else {
                perPartition.incrementAndGet(metadata.partition());
                total.incrementAndGet();
            }
        }

        long[] counts() {
            long[] c = new long[perPartition.length()];
            for (int i = 0; i < c.length; i++) {
                c[i] = perPartition.get(i);
            }
            return c;
        }

        void check(long expected) throws Exception {
            Exception e = failure.get();
            if (e != null) {
                throw new VerificationException("produce failed: " + e);
            }
            if (total.get() != expected) {
                throw new VerificationException(expected + " records sent but " + total.get() + " acknowledged");
            }
        }
    }

    /**
     * Sends {@code records} records of {@code size} bytes as fast as the producer accepts them
     * and waits for every acknowledgement. {@code roundRobin} picks the partition explicitly
     * (record i to partition i mod n); otherwise the client's default partitioner does.
     */
    private Acks send(KafkaProducer<byte[], byte[]> producer, String topic, int partitions, long records, int size,
                      boolean roundRobin) throws Exception {
        byte[] value = payload(size); // the producer copies it into its batch inside send()
        Acks acks = new Acks(partitions);
        for (long i = 0; i < records; i++) {
            Integer partition = roundRobin ? (int) (i % partitions) : null;
            var unused = producer.send(new ProducerRecord<>(topic, partition, null, value), acks); // the callback sees the outcome
            if ((i & 0xFFFF) == 0) {
                if (acks.failure.get() != null) {
                    break;
                }
                progress.update(String.format(Locale.ROOT, "%,d / %,d records sent", i, records));
            }
        }
        producer.flush();
        return acks;
    }

    Result produce(Plan.ProduceCell cell, long records) throws Exception {
        String topic = "produce-" + cell.partitions() + "p-" + Plan.size(cell.recordSize()) + "-acks" + cell.acks()
                + "-" + Plan.size(cell.batchSize());
        createTopic(topic, cell.partitions());
        Acks acks;
        double seconds;
        double cpu;
        double clientCpu;
        double machineCpu;
        double batchBytes;
        double recordsPerRequest;
        try (KafkaProducer<byte[], byte[]> producer = producer(cell.acks(), cell.batchSize(), Plan.LINGER_MS)) {
            CpuMeter meter = CpuMeter.start(pid, clockTicks);
            long t0 = System.nanoTime();
            acks = send(producer, topic, cell.partitions(), records, cell.recordSize(), false);
            seconds = (System.nanoTime() - t0) / 1e9;
            cpu = meter.seconds();
            clientCpu = meter.clientSeconds();
            machineCpu = syncAndMeasure(meter);
            batchBytes = producerMetric(producer, "batch-size-avg");
            recordsPerRequest = producerMetric(producer, "records-per-request-avg");
        }
        acks.check(records);
        readBack(topic, acks.counts());
        deleteTopic(topic);
        long bytes = records * cell.recordSize();
        return Result.of(cell.name(), broker).throughput(records, bytes, seconds, cpu)
                .put(Metric.MACHINE_CPU_S_PER_GB, machineCpu / (bytes / 1e9))
                .put(Metric.CLIENT_CPU_S, clientCpu)
                .put(Metric.PRODUCER_BATCH_BYTES, batchBytes)
                .put(Metric.PRODUCER_RECORDS_PER_REQUEST, recordsPerRequest).build();
    }

    /** A figure of the producer's "producer-metrics" group, NaN when the client has none by that name. */
    private static double producerMetric(KafkaProducer<?, ?> producer, String name) {
        return producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().group().equals("producer-metrics") && e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .findFirst().orElse(Double.NaN);
    }

    /**
     * Runs {@code sync}, so that the kernel writes back what the broker left in the page cache
     * now rather than after the workload, and returns the machine's CPU seconds outside the
     * runner since {@code meter} started, that writeback included.
     */
    private double syncAndMeasure(CpuMeter meter) throws IOException, InterruptedException {
        progress.update("sync: the data written reaches the disk");
        Process sync = new ProcessBuilder("sync").redirectErrorStream(true).start();
        sync.getInputStream().readAllBytes();
        if (!sync.waitFor(120, TimeUnit.SECONDS)) {
            sync.destroyForcibly();
            throw new IOException("sync did not finish within 120 s");
        }
        return meter.machineSecondsWithoutClient();
    }

    /**
     * Untimed: produce and fetch rounds of the shapes the workloads use (many small acks=all
     * requests, then large batches), so that both brokers' hot paths are compiled before anything
     * is measured and the first cells do not pay for the JIT.
     */
    void warmUp(long records) throws Exception {
        createTopic("warm-up-small", 8);
        Acks small;
        try (KafkaProducer<byte[], byte[]> producer = producer("all", 16 * 1024, Plan.LINGER_MS)) {
            small = send(producer, "warm-up-small", 8, records * 10, 100, false);
        }
        small.check(records * 10);
        readBack("warm-up-small", small.counts());
        deleteTopic("warm-up-small");
        readBack("warm-up", fill("warm-up", 8, records, 1024));
        deleteTopic("warm-up");
    }

    /** Deletes a topic whose figures are taken, so that a full run does not fill the disk. */
    private void deleteTopic(String topic) throws Exception {
        admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
    }

    // ---------------------------------------------------------------- for workloads of their own files

    /** The settings of every workload's producer, {@code --producer} overrides applied. */
    Properties producerSettings(String acks, int batchSize, int lingerMs) {
        Properties p = producerProps(bootstrap, acks, batchSize, lingerMs);
        p.putAll(producerOverrides);
        return p;
    }

    /** The settings of every workload's consumer, {@code --consumer} overrides applied. */
    Properties consumerSettings() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.putAll(consumerOverrides);
        return p;
    }

    /** Where a topic made by {@link #createTopic} begins: its log end offsets after priming. */
    long[] firstOffsets(String topic, int partitions) {
        return base(topic, partitions).clone();
    }

    /** The log end offsets of the topic's partitions. */
    Map<TopicPartition, Long> endOffsets(String topic, int partitions) throws Exception {
        Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new java.util.HashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(topic, p), org.apache.kafka.clients.admin.OffsetSpec.latest());
        }
        Map<TopicPartition, Long> out = new java.util.HashMap<>();
        admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS).forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    void dropTopic(String topic) throws Exception {
        deleteTopic(topic);
    }

    void progressUpdate(String text) {
        progress.update(text);
    }

    /** Creates the topic and writes records to it, untimed; returns what was acknowledged per partition. */
    long[] fill(String topic, int partitions, long records, int size) throws Exception {
        createTopic(topic, partitions);
        Acks acks;
        try (KafkaProducer<byte[], byte[]> producer = producer("1", 256 * 1024, Plan.LINGER_MS)) {
            acks = send(producer, topic, partitions, records, size, false);
        }
        acks.check(records);
        return acks.counts();
    }

    // ---------------------------------------------------------------- consume

    /** Fills a topic (not timed), then times a consumer that catches up from offset 0 with assign(). */
    Result consume(long records) throws Exception {
        return consume(records, 1);
    }

    /**
     * Fills a topic (not timed), then times {@code consumers} consumers that catch up from offset 0
     * with assign(), each on its own thread and its own share of the partitions.
     */
    Result consume(long records, int consumers) throws Exception {
        String topic = "consume-" + Plan.CONSUME_PARTITIONS + "p-" + Plan.size(Plan.CONSUME_RECORD_SIZE);
        long[] expected = fill(topic, Plan.CONSUME_PARTITIONS, records, Plan.CONSUME_RECORD_SIZE);
        progress.update("topic filled; consuming");
        CpuMeter meter = CpuMeter.start(pid, clockTicks);
        long t0 = System.nanoTime();
        TopicReader.ReadCounts read = reader().read(topic, expected, consumers);
        double seconds = (System.nanoTime() - t0) / 1e9;
        double cpu = meter.seconds();
        double clientCpu = meter.clientSeconds();
        verify(topic, expected, read.perPartition());
        deleteTopic(topic);
        return Result.of(consumeName(consumers), broker)
                .throughput(read.records(), read.bytes(), seconds, cpu).put(Metric.CLIENT_CPU_S, clientCpu).build();
    }

    /** A reader of the workloads' topics with this runner's consumer settings. */
    private TopicReader reader() {
        return new TopicReader(this::consumer, this::base, idleLimit, progress);
    }

    /** Reads the whole topic back and fails unless every partition holds exactly what was acknowledged. */
    void readBack(String topic, long[] expected) throws Exception {
        progress.update("reading back");
        verify(topic, expected, reader().read(topic, expected, 1).perPartition());
    }

    static void verify(String topic, long[] expected, long[] actual) throws VerificationException {
        StringBuilder problems = new StringBuilder();
        for (int p = 0; p < expected.length; p++) {
            long got = p < actual.length ? actual[p] : 0;
            if (got != expected[p]) {
                problems.append(String.format(Locale.ROOT, " %s-%d: acknowledged %,d, read back %,d;", topic, p, expected[p], got));
            }
        }
        if (problems.length() > 0) {
            throw new VerificationException("read-back mismatch:" + problems);
        }
    }

    // ---------------------------------------------------------------- end-to-end latency

    /**
     * One producer sends small records to one partition at a fixed rate; a consumer in the same
     * JVM (so both read the same {@link System#nanoTime} clock) records, per record, the time
     * from its intended send time (written into the first 8 bytes of the value) to its arrival.
     * Records meant to be sent during the warm-up are counted but not recorded.
     */
    Result latency(int rate, Duration duration, Duration warmup) throws Exception {
        String topic = "latency-" + rate;
        createTopic(topic, 1);
        long records = rate * duration.toSeconds() + rate * (duration.toMillis() % 1000) / 1000;
        LatencyRecorder recorder = new LatencyRecorder();
        AtomicLong received = new AtomicLong();
        AtomicLong sentTotal = new AtomicLong(-1); // set once the producer is done
        AtomicReference<Throwable> consumerFailure = new AtomicReference<>();
        CountDownLatch consumerReady = new CountDownLatch(1);
        AtomicLong warmupEnd = new AtomicLong(Long.MAX_VALUE);
        long[] readCounts = new long[1];
        TopicPartition tp = new TopicPartition(topic, 0);

        Thread consumerThread = new Thread(() -> {
            try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
                consumer.assign(List.of(tp));
                consumer.seek(tp, base(topic, 1)[0]);
                consumer.poll(Duration.ofMillis(100)); // connects and fetches metadata before the clock starts
                consumerReady.countDown();
                long lastProgress = System.nanoTime();
                while (true) {
                    long target = sentTotal.get();
                    if (target >= 0 && received.get() >= target) {
                        break;
                    }
                    ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
                    long now = System.nanoTime();
                    if (batch.isEmpty()) {
                        if (target >= 0 && now - lastProgress > idleLimit.toNanos()) {
                            break;
                        }
                        continue;
                    }
                    lastProgress = now;
                    for (ConsumerRecord<byte[], byte[]> r : batch) {
                        long intended = ByteBuffer.wrap(r.value()).getLong(0);
                        if (intended - warmupEnd.get() >= 0) {
                            recorder.record(intended, now);
                        }
                        readCounts[0]++;
                    }
                    received.set(readCounts[0]);
                }
            } catch (Throwable t) {
                consumerFailure.set(t);
                consumerReady.countDown();
            }
        }, "latency-consumer");

        Acks acks;
        double seconds;
        double cpu;
        double clientCpu;
        try (KafkaProducer<byte[], byte[]> producer = producer("all", 16 * 1024, 0)) {
            producer.partitionsFor(topic); // metadata before the clock starts
            consumerThread.start();
            if (!consumerReady.await(60, TimeUnit.SECONDS) || consumerFailure.get() != null) {
                throw new IllegalStateException("latency consumer did not start", consumerFailure.get());
            }
            byte[] value = payload(Plan.LATENCY_RECORD_SIZE);
            ByteBuffer stamp = ByteBuffer.wrap(value);
            acks = new Acks(1);
            CpuMeter meter = CpuMeter.start(pid, clockTicks);
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10);
            warmupEnd.set(start + warmup.toNanos());
            Schedule schedule = new Schedule(start, rate);
            for (long i = 0; i < records; i++) {
                long intended = schedule.intendedNanos(i);
                long wait;
                // parking, not spinning: the broker needs the machine's cores more than a precise sender
                while ((wait = intended - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(wait);
                }
                stamp.putLong(0, intended);
                var unused = producer.send(new ProducerRecord<>(topic, 0, null, value), acks); // the callback sees the outcome
                if ((i & 0x3FF) == 0) {
                    if (acks.failure.get() != null) {
                        break;
                    }
                    progress.update(String.format(Locale.ROOT, "%,d / %,d records at %,d/s; %,d received", i, records, rate,
                            received.get()));
                }
            }
            producer.flush();
            seconds = (System.nanoTime() - start) / 1e9;
            sentTotal.set(acks.total.get());
            consumerThread.join(idleLimit.toMillis() + 30_000);
            cpu = meter.seconds();
            clientCpu = meter.clientSeconds();
        } finally {
            sentTotal.compareAndSet(-1, 0);
        }
        if (consumerThread.isAlive()) {
            consumerThread.interrupt();
            throw new IllegalStateException("latency consumer did not finish");
        }
        if (consumerFailure.get() != null) {
            throw new IllegalStateException("latency consumer failed", consumerFailure.get());
        }
        acks.check(records);
        verify(topic, acks.counts(), readCounts);
        readBack(topic, acks.counts());
        return Result.of(latencyName(rate), broker)
                .throughput(records, records * Plan.LATENCY_RECORD_SIZE, seconds, cpu).put(Metric.CLIENT_CPU_S, clientCpu)
                .put(Metric.P50_MS, recorder.percentileMillis(50))
                .put(Metric.P99_MS, recorder.percentileMillis(99))
                .put(Metric.P999_MS, recorder.percentileMillis(99.9))
                .put(Metric.MAX_MS, recorder.maxMillis())
                .build();
    }

    // ---------------------------------------------------------------- many partitions

    Result manyPartitions(int partitions, long records) throws Exception {
        String topic = "many-" + partitions + "p";
        createTopic(topic, partitions);
        Acks acks;
        double seconds;
        double cpu;
        double clientCpu;
        double machineCpu;
        double batchBytes;
        double recordsPerRequest;
        try (KafkaProducer<byte[], byte[]> producer = producer("all", 16 * 1024, Plan.LINGER_MS)) {
            CpuMeter meter = CpuMeter.start(pid, clockTicks);
            long t0 = System.nanoTime();
            acks = send(producer, topic, partitions, records, Plan.MANY_PARTITIONS_RECORD_SIZE, true);
            seconds = (System.nanoTime() - t0) / 1e9;
            cpu = meter.seconds();
            clientCpu = meter.clientSeconds();
            machineCpu = syncAndMeasure(meter);
            batchBytes = producerMetric(producer, "batch-size-avg");
            recordsPerRequest = producerMetric(producer, "records-per-request-avg");
        }
        acks.check(records);
        readBack(topic, acks.counts());
        long bytes = records * Plan.MANY_PARTITIONS_RECORD_SIZE;
        return Result.of(manyPartitionsName(partitions), broker)
                .throughput(records, bytes, seconds, cpu)
                .put(Metric.MACHINE_CPU_S_PER_GB, machineCpu / (bytes / 1e9))
                .put(Metric.CLIENT_CPU_S, clientCpu)
                .put(Metric.PRODUCER_BATCH_BYTES, batchBytes)
                .put(Metric.PRODUCER_RECORDS_PER_REQUEST, recordsPerRequest).build();
    }

    // ---------------------------------------------------------------- start-up

    /**
     * A producer made before the broker is launched, that retries its connection every few
     * milliseconds, so that the first acknowledgement marks when the broker became useful rather
     * than when this JVM finished loading client classes.
     */
    static KafkaProducer<byte[], byte[]> startupProducer(String bootstrap) {
        Properties p = producerProps(bootstrap, "all", 16 * 1024, 0);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, "5");
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "20");
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "5");
        p.put("retry.backoff.max.ms", "20");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "120000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false"); // one record: no producer id round trip
        return new KafkaProducer<>(p);
    }

    /**
     * Sends one record (to partition 0 of an auto-created topic) and returns the wall-clock time
     * of its acknowledgement, failing early if the broker process dies.
     */
    static long firstAck(KafkaProducer<byte[], byte[]> producer, Broker.Running running) throws Exception {
        var future = producer.send(new ProducerRecord<>("start-up", 0, null, payload(100)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            try {
                future.get(20, TimeUnit.MILLISECONDS);
                return System.currentTimeMillis();
            } catch (TimeoutException e) {
                if (!running.alive()) {
                    throw new IllegalStateException("the broker exited during start-up");
                }
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("no acknowledged produce within 120 s of launch");
                }
            } catch (ExecutionException e) {
                throw new IllegalStateException("first produce failed: " + e.getCause(), e.getCause());
            }
        }
    }
}
