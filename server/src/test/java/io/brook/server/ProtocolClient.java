package io.brook.server;

import io.brook.testkit.Await;
import io.brook.wire.message.ApiMessages;
import io.brook.wire.message.InitProducerIdRequest;
import io.brook.wire.message.InitProducerIdResponse;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.ByteBufferWriter;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.RequestHeader;
import io.brook.wire.protocol.ResponseHeader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/** Sends typed requests over a {@link RawClient} and decodes the typed responses. */
public final class ProtocolClient implements AutoCloseable {

    private final RawClient raw;
    private int nextCorrelationId = 1;

    public ProtocolClient(InetSocketAddress address) throws IOException {
        this(address, null);
    }

    /** Connects from {@code from} (null: any local address). */
    public ProtocolClient(InetSocketAddress address, InetAddress from) throws IOException {
        this.raw = new RawClient(address, from);
    }

    public ProtocolClient(String hostPort) throws IOException {
        this(new InetSocketAddress(hostPort.substring(0, hostPort.lastIndexOf(':')),
                Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1))));
    }

    public RawClient raw() {
        return raw;
    }

    public static ByteBuffer encode(ApiMessage request, short version, int correlationId) {
        ApiKey key = request.apiKey();
        short hv = key.requestHeaderVersion(version);
        RequestHeader h = new RequestHeader(key, version, correlationId, "brook-test");
        ByteBuffer b = ByteBuffer.allocate(h.size(hv) + request.size(version));
        ByteBufferWriter w = new ByteBufferWriter(b);
        h.write(w, hv);
        request.write(w, version);
        return b.flip();
    }

    public int send(ApiMessage request, short version) throws IOException {
        int id = nextCorrelationId++;
        raw.sendFrame(encode(request, version, id));
        return id;
    }

    @SuppressWarnings("unchecked")
    public <R extends ApiMessage> R receive(ApiKey key, short version, int correlationId) throws IOException {
        ByteBuffer frame = raw.readFrame();
        ResponseHeader h = ResponseHeader.read(frame, key.responseHeaderVersion(version));
        if (h.correlationId() != correlationId) {
            throw new IOException("expected correlation id " + correlationId + " but got " + h.correlationId());
        }
        R r = (R) ApiMessages.readResponse(key, version, frame);
        if (frame.hasRemaining()) {
            throw new IOException(frame.remaining() + " bytes left after " + key.displayName() + " v" + version);
        }
        return r;
    }

    public <R extends ApiMessage> R call(ApiMessage request, short version) throws IOException {
        int id = send(request, version);
        return receive(request.apiKey(), version, id);
    }

    /**
     * InitProducerId for transactional id {@code id}, asked again while the transaction
     * coordinator still loads its partition after a start (COORDINATOR_LOAD_IN_PROGRESS, which
     * clients retry); returns the first other answer.
     */
    public InitProducerIdResponse initProducerIdPastLoad(String id, short version) {
        InitProducerIdResponse[] r = new InitProducerIdResponse[1];
        Await.until("InitProducerId past the coordinator's load", () -> {
            try {
                r[0] = call(new InitProducerIdRequest().transactionalId(id).transactionTimeoutMs(60_000)
                        .producerId(-1).producerEpoch((short) -1), version);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return r[0].errorCode() != Errors.COORDINATOR_LOAD_IN_PROGRESS.code();
        });
        return r[0];
    }

    @Override
    public void close() throws IOException {
        raw.close();
    }
}
