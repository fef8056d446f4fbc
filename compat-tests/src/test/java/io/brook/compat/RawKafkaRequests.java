package io.brook.compat;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Requests written and answers read by kafka-clients' own request classes over a plain socket, for
 * the protocol fields no client API shows (leader hints, the features section at each version).
 * One connection per instance; blocking, with a read time-out.
 */
final class RawKafkaRequests implements AutoCloseable {

    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private int correlationId;

    /** Connects to the first address of {@code bootstrap}. */
    RawKafkaRequests(String bootstrap) throws IOException {
        this(bootstrap, null);
    }

    /** Connects from {@code from} (null: any local address) to the first address of {@code bootstrap}. */
    RawKafkaRequests(String bootstrap, InetAddress from) throws IOException {
        String first = bootstrap.split(",")[0];
        int colon = first.lastIndexOf(':');
        socket = new Socket();
        if (from != null) {
            socket.bind(new InetSocketAddress(from, 0));
        }
        socket.connect(new InetSocketAddress(first.substring(0, colon), Integer.parseInt(first.substring(colon + 1))),
                10_000);
        socket.setSoTimeout(10_000);
        out = new DataOutputStream(socket.getOutputStream());
        in = new DataInputStream(socket.getInputStream());
    }

    /** Sends {@code request} (built at its version) and returns kafka-clients' reading of the answer. */
    AbstractResponse call(AbstractRequest request) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "compat-raw", ++correlationId);
        ByteBuffer bytes = request.serializeWithHeader(header);
        out.writeInt(bytes.remaining());
        out.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
        out.flush();
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        return AbstractResponse.parseResponse(ByteBuffer.wrap(frame), header);
    }

    /**
     * Whether the broker closed the connection: the next read finds its end or a reset (a read
     * time-out, the connection still open, is thrown).
     */
    boolean closedByBroker() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
