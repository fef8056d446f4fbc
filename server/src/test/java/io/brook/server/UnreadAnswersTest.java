package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchRequest.FetchPartition;
import io.brook.wire.message.FetchRequest.FetchTopic;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Consumers that send fetches and never read the answers (RELIABILITY.md, finding 3): each
 * connection gets about one answer queued, then is no longer read, so the broker's direct memory
 * stays bounded and other clients are served. Before, every answer was queued with a 64 KiB
 * buffer for its ~100 bytes of fields, and nothing paused such a client.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnreadAnswersTest {

    private static final int CONNECTIONS = 100;
    private static final int FETCHES_EACH = 20;
    private static final int RECORD_BYTES = 16 * 1024;

    private static long usedDirectMemory() {
        return ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric().usedDirectMemory();
    }

    @Test
    void shouldKeepMemoryBoundedWhenManyClientsPipelineFetchesAndNeverRead() throws Exception {
        try (Brook brook = Brook.builder().start();
                ProtocolClient admin = new ProtocolClient(brook.bootstrapServers())) {
            admin.call(new CreateTopicsRequest().topics(List.of(
                    new CreatableTopic().name("t").numPartitions(1).replicationFactor((short) 1))), (short) 7);
            for (int i = 0; i < 2 * 1024 * 1024 / RECORD_BYTES; i++) {
                ByteBuffer batch = new RecordBatchBuilder(Compression.NONE).append(i, null, new byte[RECORD_BYTES]).build();
                ProduceResponse r = admin.call(new ProduceRequest().acks((short) -1).timeoutMs(10_000).topicData(List.of(
                        new TopicProduceData().name("t").partitionData(List.of(
                                new PartitionProduceData().index(0).records(BufferRecords.wrap(batch)))))), (short) 9);
                assertThat(r.responses().get(0).partitionResponses().get(0).errorCode()).isZero();
            }
            byte[] fetches = pipelinedFetches();
            long before = usedDirectMemory();
            InetSocketAddress address = new InetSocketAddress("127.0.0.1", brook.port());
            List<Socket> sockets = new ArrayList<>();
            try {
                for (int i = 0; i < CONNECTIONS; i++) {
                    Socket s = new Socket();
                    s.setReceiveBufferSize(4096);
                    s.connect(address, 5_000);
                    s.getOutputStream().write(fetches);
                    sockets.add(s);
                }
                // every connection's first answer is on its way: the broker handled what it was going to
                Await.until("an answer started on every connection", () -> sockets.stream().allMatch(s -> {
                    try {
                        return s.getInputStream().available() > 0;
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }));
                long held = usedDirectMemory() - before;
                // 2000 answers queued with 64 KiB each held 125 MiB; about one answer per connection holds little
                assertThat(held).as("direct memory held for unread answers (%d bytes)", held).isLessThan(16L * 1024 * 1024);
                try (ProtocolClient fresh = new ProtocolClient(brook.bootstrapServers())) {
                    ApiVersionsResponse r = fresh.call(new ApiVersionsRequest().clientSoftwareName("t")
                            .clientSoftwareVersion("1"), (short) 3);
                    assertThat(r.errorCode()).isZero();
                }
            } finally {
                for (Socket s : sockets) {
                    s.close();
                }
            }
        }
    }

    /** {@value #FETCHES_EACH} Fetch v12 requests for up to 1 MiB each, as one write. */
    private static byte[] pipelinedFetches() {
        ByteBuffer all = ByteBuffer.allocate(FETCHES_EACH * 256);
        for (int i = 0; i < FETCHES_EACH; i++) {
            ByteBuffer frame = ProtocolClient.encode(new FetchRequest().maxWaitMs(500).minBytes(1).maxBytes(1 << 20)
                    .sessionId(0).sessionEpoch(-1).topics(List.of(new FetchTopic().topic("t").partitions(List.of(
                            new FetchPartition().partition(0).fetchOffset(0).partitionMaxBytes(1 << 20))))),
                    (short) 12, i + 1);
            all.putInt(frame.remaining()).put(frame);
        }
        return java.util.Arrays.copyOf(all.array(), all.position());
    }
}
