package io.brook.reliability;

import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * A blocking Kafka connection that speaks one request at a time, encoded and decoded with
 * kafka-clients' own message classes: the runner's probes see the exact error codes a broker
 * answers, which the producer and consumer clients hide behind their retries. Not thread-safe.
 */
final class KafkaWire implements Closeable {
    static final String CLIENT_ID = "brook-reliability";

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private int correlationId;

    private KafkaWire(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Connects to 127.0.0.1:port; reads time out after {@code readTimeout}. */
    static KafkaWire connect(int port, Duration readTimeout) throws IOException {
        return connect(port, readTimeout, 0);
    }

    /** As {@link #connect(int, Duration)}, with a receive buffer of this size (0: the system's). */
    static KafkaWire connect(int port, Duration readTimeout, int receiveBufferBytes) throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            if (receiveBufferBytes > 0) {
                s.setReceiveBufferSize(receiveBufferBytes);
            }
            s.connect(new InetSocketAddress("127.0.0.1", port), (int) Math.min(readTimeout.toMillis(), 10_000));
            s.setSoTimeout((int) readTimeout.toMillis());
            return new KafkaWire(s);
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    /** Sends {@code request} at {@code version} and returns the decoded response. */
    <R extends AbstractResponse> R send(ApiMessage request, short version) throws IOException {
        int id = nextCorrelationId();
        write(frame(request, version, id));
        return read(ApiKeys.forId(request.apiKey()), version, id);
    }

    int nextCorrelationId() {
        return ++correlationId;
    }

    /** Writes bytes (frames) without waiting for anything. */
    void write(byte[] frames) throws IOException {
        out.write(frames);
        out.flush();
    }

    /** Reads the next response, which must answer the request {@code id} of {@code api} at {@code version}. */
    @SuppressWarnings("unchecked")
    <R extends AbstractResponse> R read(ApiKeys api, short version, int id) throws IOException {
        int size = in.readInt();
        if (size < 0 || size > 256 << 20) {
            throw new IOException("response size " + size);
        }
        byte[] body = new byte[size];
        in.readFully(body);
        ByteBuffer buf = ByteBuffer.wrap(body);
        ResponseHeader header = ResponseHeader.parse(buf, api.responseHeaderVersion(version));
        if (header.correlationId() != id) {
            throw new IOException("correlation id " + header.correlationId() + ", expected " + id);
        }
        return (R) AbstractResponse.parseResponse(api, new ByteBufferAccessor(buf), version);
    }

    /** Waits until the broker closes the connection; false if it sends something or the read times out. */
    boolean closedByPeer() {
        try {
            return in.read() < 0;
        } catch (EOFException e) {
            return true;
        } catch (IOException e) {
            return e.getMessage() != null && e.getMessage().contains("reset");
        }
    }

    /** A request frame: size prefix, request header, body. */
    static byte[] frame(ApiMessage request, short version, int correlationId) {
        ApiKeys api = ApiKeys.forId(request.apiKey());
        RequestHeader header = new RequestHeader(api, version, CLIENT_ID, correlationId);
        ByteBuffer body = RequestUtils.serialize(header.data(), header.headerVersion(), request, version);
        byte[] frame = new byte[4 + body.remaining()];
        ByteBuffer.wrap(frame).putInt(body.remaining()).put(body);
        return frame;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
