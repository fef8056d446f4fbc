package io.brook.bench.cost;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Set;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;

/**
 * One blocking connection to a broker that sends prepared request frames and reads their answers
 * into one reused buffer: the load generator does almost no work per request, so the broker's
 * share of the machine is as large as it can be. Used by the metrics-cost run
 * ({@link MetricsCost}) and by {@link io.brook.bench.MetricsOverheadBenchmark}.
 */
public final class RawConnection implements AutoCloseable {

    private final Socket socket = new Socket();
    private final DataOutputStream out;
    private final DataInputStream in;
    private byte[] answer = new byte[1 << 16];
    private int answerSize;

    /** Connects to the first of {@code bootstrapServers} ({@code host:port,...}). */
    public RawConnection(String bootstrapServers) throws IOException {
        String[] hostPort = bootstrapServers.split(",")[0].split(":");
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), 10_000);
        out = new DataOutputStream(socket.getOutputStream());
        in = new DataInputStream(socket.getInputStream());
    }

    /**
     * A request frame, ready to send again and again: the size prefix, the request header
     * (correlation id 1, {@code clientId}) and {@code body} at {@code version}.
     */
    public static byte[] frame(String clientId, ApiKeys key, short version, ApiMessage body) {
        RequestHeader header = new RequestHeader(key, version, clientId, 1);
        ByteBuffer b = RequestUtils.serialize(header.data(), header.headerVersion(), body, version);
        byte[] frame = new byte[4 + b.remaining()];
        ByteBuffer.wrap(frame).putInt(b.remaining()).put(b);
        return frame;
    }

    /** Sends one request frame and reads its answer; returns the answer's length. */
    public int roundTrip(byte[] frame) throws IOException {
        out.write(frame);
        out.flush();
        int size = in.readInt();
        if (size > answer.length) {
            answer = new byte[size];
        }
        in.readFully(answer, 0, size);
        answerSize = size;
        return size;
    }

    /**
     * Fails unless the last answer, to a request of {@code key} and {@code version}, carries no
     * error; returns the record bytes a fetch answer carries (0 for other answers).
     */
    public long check(ApiKeys key, short version) {
        AbstractResponse r = AbstractResponse.parseResponse(ByteBuffer.wrap(answer, 0, answerSize),
                new RequestHeader(key, version, "metrics-cost", 1));
        if (!r.errorCounts().keySet().equals(Set.of(Errors.NONE))) {
            throw new IllegalStateException(key + " failed: " + r.errorCounts());
        }
        if (r instanceof org.apache.kafka.common.requests.FetchResponse f) {
            long bytes = 0;
            for (var t : f.data().responses()) {
                for (var p : t.partitions()) {
                    bytes += p.records() == null ? 0 : p.records().sizeInBytes();
                }
            }
            return bytes;
        }
        return 0;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
