package io.brook.server.launch;

import io.brook.wire.message.ApiMessages;
import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.message.ApiVersionsResponse.ApiVersion;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchRequest.FetchPartition;
import io.brook.wire.message.FetchRequest.FetchTopic;
import io.brook.wire.message.InitProducerIdRequest;
import io.brook.wire.message.InitProducerIdResponse;
import io.brook.wire.message.ListOffsetsRequest;
import io.brook.wire.message.ListOffsetsRequest.ListOffsetsPartition;
import io.brook.wire.message.ListOffsetsRequest.ListOffsetsTopic;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataRequest.MetadataRequestTopic;
import io.brook.wire.message.MetadataResponse;
import io.brook.wire.message.MetadataResponse.MetadataResponseTopic;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.ByteBufferWriter;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.RequestHeader;
import io.brook.wire.protocol.ResponseHeader;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The class-data-sharing training run's traffic ({@code --exit-after-start}): over loopback, the
 * requests a producer and a consumer start with, each at the highest version the broker
 * advertises — ApiVersions, Metadata that auto-creates a
 * topic, InitProducerId, an acks=all Produce, ListOffsets and Fetch — so that the classes and
 * lambdas of that path are loaded while the JVM records its archive, and a real broker's first
 * requests do not load them from the jar. Speaks the protocol with the wire module's messages (the
 * broker does not depend on a Kafka client). Blocking I/O with time-outs; one request at a time.
 */
public final class StartupExercise implements AutoCloseable {

    public static final String TOPIC = "brook-startup-training";
    private static final int TIMEOUT_MS = 10_000;
    private static final int MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
    /** The version Apache Kafka's 4.x clients send their first ApiVersions at. */
    private static final short FIRST_API_VERSIONS = 4;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final Map<ApiKey, Short> highest = new EnumMap<>(ApiKey.class);
    private int correlationId;

    private StartupExercise(InetSocketAddress address) throws IOException {
        socket = new Socket();
        try {
            socket.connect(address, TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            socket.setTcpNoDelay(true);
            in = new DataInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** Runs the exercise against the broker at {@code address}; throws when an answer is wrong. */
    public static void run(InetSocketAddress address) throws IOException {
        try (StartupExercise c = new StartupExercise(address)) {
            c.exercise();
        }
    }

    private void exercise() throws IOException {
        ApiVersionsResponse versions = call(new ApiVersionsRequest().clientSoftwareName("brook-training")
                .clientSoftwareVersion("1"), FIRST_API_VERSIONS);
        check("ApiVersions", versions.errorCode());
        for (ApiVersion v : versions.apiKeys()) {
            ApiKey key = ApiKey.forId(v.apiKey());
            if (key != null) {
                highest.put(key, (short) Math.min(v.maxVersion(), key.latestVersion()));
            }
        }
        MetadataResponse md = call(new MetadataRequest()
                .topics(List.of(new MetadataRequestTopic().name(TOPIC)))
                .allowAutoTopicCreation(true), version(ApiKey.METADATA));
        MetadataResponseTopic topic = md.topics().get(0);
        check("Metadata", topic.errorCode());
        UUID topicId = topic.topicId();
        InitProducerIdResponse pid = call(new InitProducerIdRequest().transactionalId(null)
                .transactionTimeoutMs(60_000).producerId(-1L).producerEpoch((short) -1),
                version(ApiKey.INIT_PRODUCER_ID));
        check("InitProducerId", pid.errorCode());
        ByteBuffer batch = new RecordBatchBuilder(Compression.NONE)
                .producer(pid.producerId(), pid.producerEpoch(), 0)
                .append(System.currentTimeMillis(), (byte[]) null, new byte[100])
                .build();
        ProduceResponse produced = call(new ProduceRequest().acks((short) -1).timeoutMs(TIMEOUT_MS)
                .topicData(List.of(new TopicProduceData().name(TOPIC).topicId(topicId)
                        .partitionData(List.of(new PartitionProduceData().index(0)
                                .records(BufferRecords.wrap(batch)))))),
                version(ApiKey.PRODUCE));
        check("Produce", produced.responses().get(0).partitionResponses().get(0).errorCode());
        call(new ListOffsetsRequest().replicaId(-1)
                .topics(List.of(new ListOffsetsTopic().name(TOPIC)
                        .partitions(List.of(new ListOffsetsPartition().partitionIndex(0).timestamp(-1L))))),
                version(ApiKey.LIST_OFFSETS));
        call(new FetchRequest().replicaId(-1).maxWaitMs(0).minBytes(1).maxBytes(1024 * 1024)
                .topics(List.of(new FetchTopic().topic(TOPIC).topicId(topicId)
                        .partitions(List.of(new FetchPartition().partition(0).fetchOffset(0)
                                .partitionMaxBytes(1024 * 1024))))),
                version(ApiKey.FETCH));
    }

    /** The highest version of {@code key} that both the broker and this client speak. */
    private short version(ApiKey key) throws IOException {
        Short v = highest.get(key);
        if (v == null) {
            throw new IOException("the broker does not serve " + key.displayName());
        }
        return v;
    }

    private static void check(String what, short errorCode) throws IOException {
        if (errorCode != Errors.NONE.code()) {
            throw new IOException(what + " failed with error code " + errorCode);
        }
    }

    @SuppressWarnings("unchecked")
    private <R extends ApiMessage> R call(ApiMessage request, short version) throws IOException {
        ApiKey key = request.apiKey();
        int id = ++correlationId;
        short headerVersion = key.requestHeaderVersion(version);
        RequestHeader header = new RequestHeader(key, version, id, "brook-training");
        int size = header.size(headerVersion) + request.size(version);
        ByteBuffer frame = ByteBuffer.allocate(4 + size).putInt(size);
        ByteBufferWriter w = new ByteBufferWriter(frame);
        header.write(w, headerVersion);
        request.write(w, version);
        out.write(frame.array(), 0, frame.position());
        out.flush();

        int length = in.readInt();
        if (length < 0 || length > MAX_RESPONSE_BYTES) {
            throw new IOException("bad response size " + length);
        }
        byte[] body = new byte[length];
        in.readFully(body);
        ByteBuffer b = ByteBuffer.wrap(body);
        ResponseHeader h = ResponseHeader.read(b, key.responseHeaderVersion(version));
        if (h.correlationId() != id) {
            throw new IOException("expected correlation id " + id + " but got " + h.correlationId());
        }
        return (R) ApiMessages.readResponse(key, version, b);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
