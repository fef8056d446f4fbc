package io.brook.bench.runner;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Incremental fetch sessions (KIP-227) against full fetches: a consumer tails every partition of
 * a many-partition topic while a producer writes a trickle of records round-robin, for a fixed
 * time, and the workload reports the bytes of a fetch request and the broker's CPU per fetch.
 *
 * <ul>
 *   <li>sessions on: the stock Java consumer ({@code assign()}, from the log end), which opens a
 *       session with its first fetch and then names only the partitions whose position moved.
 *       Bytes and requests from its per-node counters (the connection to the broker's node, not
 *       the bootstrap one; a few Metadata and ListOffsets requests count too);</li>
 *   <li>sessions off: what a client without sessions sends (kafka-clients' own Fetch request at
 *       the newest version, session epoch -1, every partition each time, with the same
 *       {@code max_wait_ms} and {@code min_bytes} as the consumer's defaults), over one socket,
 *       following each partition's position from the records it returns. Bytes are the frames
 *       sent, size prefix included, as the consumer's counters count them.</li>
 * </ul>
 *
 * The same broker serves both phases one after the other; the broker CPU of each phase is read
 * from {@code /proc}. A broker can also be started with {@code max.incremental.fetch.session.cache.slots=0}
 * to make even the stock consumer fetch without a session.
 */
final class FetchSessionWorkload {

    /** The consumer's defaults, used by both phases. */
    private static final int MAX_WAIT_MS = 500;
    private static final int MIN_BYTES = 1;
    /** Records per second the producer trickles in, round-robin over the partitions. */
    private static final int TRICKLE_PER_S = 200;

    private FetchSessionWorkload() {
    }

    static String name(int partitions, boolean sessions) {
        return "fetch sessions: " + partitions + "p tailing consumer, " + (sessions
                ? "sessions on (stock consumer)" : "sessions off (full fetch each time)");
    }

    /**
     * One phase, sessions on or off, on the topic {@code sessions-<partitions>p} (created and
     * primed through {@code workloads} by the first phase).
     */
    static Result run(Workloads workloads, String bootstrap, String broker, long pid, int clockTicks, int partitions,
            Duration duration, boolean sessions) throws Exception {
        String topic = "sessions-" + partitions + "p";
        if (!topicExists(bootstrap, topic)) {
            workloads.createTopic(topic, partitions);
        }
        AtomicBoolean stop = new AtomicBoolean();
        Thread trickle = new Thread(() -> trickle(bootstrap, topic, partitions, stop), "fetch-session-trickle");
        trickle.setDaemon(true);
        trickle.start();
        try {
            double[] measured = sessions ? withSessions(bootstrap, topic, partitions, duration, pid, clockTicks)
                    : withoutSessions(bootstrap, topic, partitions, duration, pid, clockTicks);
            double bytes = measured[0];
            double requests = measured[1];
            double cpu = measured[2];
            if (requests < 1) {
                throw new VerificationException("no fetch request was sent");
            }
            return Result.of(name(partitions, sessions), broker)
                    .put(Metric.FETCH_REQUEST_BYTES, bytes / requests)
                    .put(Metric.FETCHES_PER_S, requests / duration.toMillis() * 1000)
                    .put(Metric.BROKER_CPU_S, cpu)
                    .put(Metric.BROKER_CPU_MS_PER_FETCH, cpu * 1000 / requests)
                    .build();
        } finally {
            stop.set(true);
            trickle.join(10_000);
        }
    }

    private static boolean topicExists(String bootstrap, String topic) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic);
        }
    }

    private static void trickle(String bootstrap, String topic, int partitions, AtomicBoolean stop) {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Workloads.producerProps(bootstrap, "1",
                16 * 1024, 0))) {
            long start = System.nanoTime();
            for (long i = 0; !stop.get(); i++) {
                var unused = producer.send(new ProducerRecord<>(topic, (int) (i % partitions), null, new byte[100]));
                long due = start + i * TimeUnit.SECONDS.toNanos(1) / TRICKLE_PER_S;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait); // pacing the trickle, not synchronising
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {bytes sent, requests sent, broker CPU s} of the stock consumer tailing every partition. */
    private static double[] withSessions(String bootstrap, String topic, int partitions, Duration duration, long pid,
            int clockTicks) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, Integer.toString(MAX_WAIT_MS));
        p.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, Integer.toString(MIN_BYTES));
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> all = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                all.add(new TopicPartition(topic, i));
            }
            consumer.assign(all);
            consumer.seekToEnd(all);
            // settle: positions looked up, the session opened by the first full fetch
            long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (System.nanoTime() < settle) {
                consumer.poll(Duration.ofMillis(100));
            }
            double[] before = sent(consumer);
            CpuMeter meter = CpuMeter.start(pid, clockTicks);
            long end = System.nanoTime() + duration.toNanos();
            while (System.nanoTime() < end) {
                consumer.poll(Duration.ofMillis(100));
            }
            double cpu = meter.seconds();
            double[] after = sent(consumer);
            return new double[] {after[0] - before[0], after[1] - before[1], cpu};
        }
    }

    /** Bytes and requests the consumer sent to the broker's node (not the bootstrap connection). */
    private static double[] sent(KafkaConsumer<?, ?> consumer) {
        double bytes = 0;
        double requests = 0;
        for (Map.Entry<MetricName, ? extends org.apache.kafka.common.Metric> e : consumer.metrics().entrySet()) {
            MetricName n = e.getKey();
            String node = n.tags().get("node-id");
            if (!n.group().equals("consumer-node-metrics") || node == null || node.startsWith("node--")) {
                continue;
            }
            if (n.name().equals("outgoing-byte-total")) {
                bytes += (Double) e.getValue().metricValue();
            } else if (n.name().equals("request-total")) {
                requests += (Double) e.getValue().metricValue();
            }
        }
        return new double[] {bytes, requests};
    }

    /** {bytes sent, requests sent, broker CPU s} of sessionless full fetches of every partition. */
    private static double[] withoutSessions(String bootstrap, String topic, int partitions, Duration duration,
            long pid, int clockTicks) throws Exception {
        Uuid topicId;
        Map<TopicPartition, Long> ends = new LinkedHashMap<>();
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
            topicId = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).topicId();
            Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new LinkedHashMap<>();
            for (int i = 0; i < partitions; i++) {
                latest.put(new TopicPartition(topic, i), org.apache.kafka.clients.admin.OffsetSpec.latest());
            }
            admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS).forEach((tp, info) -> ends.put(tp, info.offset()));
        }
        String first = bootstrap.split(",")[0];
        int colon = first.lastIndexOf(':');
        short version = ApiKeys.FETCH.latestVersion();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(first.substring(0, colon), Integer.parseInt(first.substring(colon + 1))),
                    10_000);
            s.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            DataInputStream in = new DataInputStream(s.getInputStream());
            double bytes = 0;
            double requests = 0;
            CpuMeter meter = CpuMeter.start(pid, clockTicks);
            long end = System.nanoTime() + duration.toNanos();
            for (int correlation = 1; System.nanoTime() < end; correlation++) {
                Map<TopicPartition, FetchRequest.PartitionData> data = new LinkedHashMap<>();
                ends.forEach((tp, offset) -> data.put(tp,
                        new FetchRequest.PartitionData(topicId, offset, -1, 1 << 20, Optional.empty())));
                FetchRequest request = FetchRequest.Builder.forConsumer(version, MAX_WAIT_MS, MIN_BYTES, data)
                        .build(version);
                RequestHeader header = new RequestHeader(ApiKeys.FETCH, version, "bench-sessionless", correlation);
                ByteBuffer frame = request.serializeWithHeader(header);
                out.writeInt(frame.remaining());
                out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
                out.flush();
                bytes += 4 + frame.remaining();
                requests++;
                byte[] answer = new byte[in.readInt()];
                in.readFully(answer);
                FetchResponse response = (FetchResponse) AbstractResponse.parseResponse(ByteBuffer.wrap(answer), header);
                advance(response.data(), topic, ends);
            }
            return new double[] {bytes, requests, meter.seconds()};
        }
    }

    /** Moves each partition's position past the records its answer returned. */
    private static void advance(FetchResponseData data, String topic, Map<TopicPartition, Long> positions)
            throws IOException {
        if (data.errorCode() != 0) {
            throw new IOException("fetch failed: error " + data.errorCode());
        }
        for (FetchResponseData.FetchableTopicResponse t : data.responses()) {
            for (FetchResponseData.PartitionData p : t.partitions()) {
                if (p.errorCode() != 0) {
                    throw new IOException("fetch of partition " + p.partitionIndex() + " failed: error " + p.errorCode());
                }
                TopicPartition tp = new TopicPartition(topic, p.partitionIndex());
                for (RecordBatch batch : FetchResponse.recordsOrFail(p).batches()) {
                    positions.put(tp, Math.max(positions.get(tp), batch.nextOffset()));
                }
            }
        }
    }
}
