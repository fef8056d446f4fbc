package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import io.brook.wire.message.CreatePartitionsRequest;
import io.brook.wire.message.CreatePartitionsResponse;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopicConfig;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.CreateTopicsResponse.CreatableTopicResult;
import io.brook.wire.message.ListOffsetsRequest;
import io.brook.wire.message.ListOffsetsRequest.ListOffsetsPartition;
import io.brook.wire.message.ListOffsetsRequest.ListOffsetsTopic;
import io.brook.wire.message.ListOffsetsResponse;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker whose process may open only 700 files (started by {@code bash} after {@code ulimit -n
 * 700}, as an operator's limit would be): clients cannot make it spend the descriptors it keeps
 * free (a tenth of the limit, at least 128). A topic creation or growth that would is refused with
 * POLICY_VIOLATION and creates nothing; a topic set to roll a segment every millisecond stops
 * rolling once the process is short of descriptors, and every produce still succeeds; and the
 * broker, killed, starts again under the same limit with everything it acknowledged. Before,
 * creations took descriptors until an open failed, rolls until a log went offline, and the
 * start after that could refuse for want of descriptors.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FileDescriptorLimitTest {
    private static final int LIMIT = 700;

    @TempDir
    Path tmp;

    private Process start(int port) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String command = "ulimit -n " + LIMIT + " && exec \"$0\" -Xmx256m -cp \"$1\" io.brook.server.BrookMain"
                + " --port \"$2\" --data-dir \"$3\"";
        return new ProcessBuilder("bash", "-c", command, java, System.getProperty("java.class.path"),
                Integer.toString(port), tmp.resolve("data").toString())
                .redirectErrorStream(true).redirectOutput(tmp.resolve("broker.log").toFile()).start();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static ProtocolClient connect(Process broker, int port) {
        ProtocolClient[] client = new ProtocolClient[1];
        Await.until("the broker listens", Duration.ofSeconds(60), () -> {
            assertThat(broker.isAlive()).as("broker alive").isTrue();
            try {
                client[0] = new ProtocolClient("127.0.0.1:" + port);
                return true;
            } catch (IOException e) {
                return false;
            }
        });
        return client[0];
    }

    private static CreatableTopicResult create(ProtocolClient c, String topic, int partitions, CreatableTopicConfig... configs)
            throws Exception {
        CreateTopicsResponse r = c.call(new CreateTopicsRequest().timeoutMs(30_000).topics(List.of(new CreatableTopic()
                .name(topic).numPartitions(partitions).replicationFactor((short) 1).configs(List.of(configs)))), (short) 7);
        return r.topics().get(0);
    }

    private static long openFiles(Process broker) throws IOException {
        // the JVM is bash's exec'd image: same pid
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(broker.pid()), "fd"))) {
            return fds.count();
        }
    }

    /** Record {@code i}, stamped 2 ms after record {@code i - 1}: with segment.ms=1 each wants a segment of its own. */
    private static ProduceRequest produce(String topic, long firstTimestamp, int i) {
        return new ProduceRequest().acks((short) 1).timeoutMs(30_000).topicData(List.of(new TopicProduceData()
                .name(topic).partitionData(List.of(new PartitionProduceData().index(0).records(BufferRecords.wrap(
                        new RecordBatchBuilder(Compression.NONE).append(firstTimestamp + 2L * i, null,
                                ("record-" + i).getBytes()).build()))))));
    }

    private static long endOffset(ProtocolClient c, String topic) throws Exception {
        ListOffsetsResponse l = c.call(new ListOffsetsRequest().replicaId(-1).topics(List.of(new ListOffsetsTopic()
                .name(topic).partitions(List.of(new ListOffsetsPartition().partitionIndex(0).timestamp(-1)
                        .currentLeaderEpoch(-1))))), (short) 4);
        return l.topics().get(0).partitions().get(0).offset();
    }

    private long segmentFiles(String partitionDir) throws IOException {
        try (Stream<Path> files = Files.list(tmp.resolve("data").resolve(partitionDir))) {
            return files.filter(p -> p.toString().endsWith(".log")).count();
        }
    }

    private String brokerLog() {
        try {
            return Files.readString(tmp.resolve("broker.log"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void clientsCannotRunTheBrokerOutOfFileDescriptors() throws Exception {
        int port = freePort();
        Process broker = start(port);
        try (ProtocolClient c = connect(broker, port)) {
            assertThat(create(c, "fits", 300).errorCode()).isZero();

            CreatableTopicResult refused = create(c, "too-many", 300);
            assertThat(refused.errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code());
            assertThat(refused.errorMessage()).contains("ulimit -n");
            assertThat(new File(tmp.resolve("data").toString()).list((d, n) -> n.startsWith("too-many-"))).isEmpty();

            CreatePartitionsResponse grown = c.call(new CreatePartitionsRequest().timeoutMs(30_000).topics(List.of(
                    new CreatePartitionsRequest.CreatePartitionsTopic().name("fits").count(600).assignments(null))),
                    (short) 3);
            assertThat(grown.results().get(0).errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code());

            assertThat(create(c, "rolling", 1, new CreatableTopicConfig().name("segment.ms").value("1"))
                    .errorCode()).isZero();
            long firstTimestamp = System.currentTimeMillis();
            for (int i = 0; i < 500; i++) {
                ProduceResponse r = c.call(produce("rolling", firstTimestamp, i), (short) 9);
                assertThat(r.responses().get(0).partitionResponses().get(0).errorCode()).as("produce %d", i).isZero();
                if (i % 50 == 0) {
                    assertThat(openFiles(broker)).isLessThan(LIMIT);
                }
            }
            // rolled until the process was short of descriptors (about 200 segments), then no more
            assertThat(segmentFiles("rolling-0")).isBetween(100L, 400L);
            assertThat(Files.readString(tmp.resolve("broker.log"))).contains("short of file descriptors");
            assertThat(endOffset(c, "rolling")).isEqualTo(500);
        } finally {
            broker.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }

        Process again = start(port);
        try (ProtocolClient c = connect(again, port)) {
            Await.until("the rolling topic is back", Duration.ofSeconds(30), () -> {
                try {
                    return endOffset(c, "rolling") == 500;
                } catch (Exception e) {
                    return false;
                }
            });
            assertThat(create(c, "fits", 300).errorCode()).isEqualTo(Errors.TOPIC_ALREADY_EXISTS.code());
        } finally {
            again.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aCrowdOfConnectionsAtTheLimitIsToldInWordsAndNewClientsAreServedOnceItLeaves() throws Exception {
        int port = freePort();
        Process broker = start(port);
        try (ProtocolClient c = connect(broker, port)) {
            assertThat(create(c, "kept", 1).errorCode()).isZero();
            long firstTimestamp = System.currentTimeMillis();
            ProduceResponse first = c.call(produce("kept", firstTimestamp, 0), (short) 9);
            assertThat(first.responses().get(0).partitionResponses().get(0).errorCode()).isZero();

            // more connections than the process may open files: the ones it cannot accept wait in the backlog
            List<Socket> crowd = new ArrayList<>();
            try {
                for (int i = 0; i < LIMIT + 100; i++) {
                    Socket s = new Socket();
                    crowd.add(s);
                    s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
                }
                Await.until("the listener says it is out of descriptors", Duration.ofSeconds(30),
                        () -> brokerLog().contains("Listener PLAINTEXT cannot accept connections: this process has all the "
                                + LIMIT + " file descriptors it may open"));
                ProduceResponse r = c.call(produce("kept", firstTimestamp, 1), (short) 9);
                assertThat(r.responses().get(0).partitionResponses().get(0).errorCode()).isZero();
            } finally {
                for (Socket s : crowd) {
                    s.close();
                }
            }
            Await.until("a new client is served again", Duration.ofSeconds(30), () -> {
                try (ProtocolClient late = new ProtocolClient("127.0.0.1:" + port)) {
                    return endOffset(late, "kept") == 2;
                } catch (Exception e) {
                    return false;
                }
            });
            // once, not Netty's stack trace at the end of the pipeline every second
            String log = brokerLog();
            assertThat(log.split("cannot accept connections", -1)).hasSize(2);
            assertThat(log).doesNotContain("reached the tail of the pipeline");
        } finally {
            broker.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }
}
