package io.brook.server;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;

/** A blocking socket client speaking raw frames, for tests; reads time out instead of hanging. */
public final class RawClient implements AutoCloseable {

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    public RawClient(InetSocketAddress address) throws IOException {
        this(address, null);
    }

    /** Connects from {@code from} (null: any local address), e.g. 127.0.0.2 to be another client address. */
    public RawClient(InetSocketAddress address, InetAddress from) throws IOException {
        socket = new Socket();
        if (from != null) {
            socket.bind(new InetSocketAddress(from, 0));
        }
        socket.connect(address, 5_000);
        socket.setSoTimeout(10_000);
        socket.setTcpNoDelay(true);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    public void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Sends header + body as one frame with a correct size prefix. */
    public void sendFrame(ByteBuffer headerAndBody) throws IOException {
        ByteBuffer b = headerAndBody.duplicate();
        byte[] frame = new byte[4 + b.remaining()];
        ByteBuffer.wrap(frame).putInt(b.remaining()).put(b);
        sendRaw(frame);
    }

    /** The next response frame without its size prefix. */
    public ByteBuffer readFrame() throws IOException {
        int size = in.readInt();
        if (size < 0 || size > 64 * 1024 * 1024) {
            throw new IOException("bad response size " + size);
        }
        byte[] b = new byte[size];
        in.readFully(b);
        return ByteBuffer.wrap(b);
    }

    /** True when the broker closed the connection (EOF or reset) within the read time-out. */
    public boolean closedByBroker() throws IOException {
        try {
            while (true) {
                int size = in.readInt();
                in.skipNBytes(size);
            }
        } catch (EOFException e) {
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return isReset(e);
        }
    }

    /**
     * The next response frame, or null when the broker closed the connection (EOF or reset)
     * instead; fails the test when neither happens within the read time-out.
     */
    public ByteBuffer readFrameOrClose() throws IOException {
        try {
            return readFrame();
        } catch (EOFException e) {
            return null;
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the broker neither answered nor closed the connection", e);
        } catch (IOException e) {
            if (isReset(e)) {
                return null;
            }
            throw e;
        }
    }

    private static boolean isReset(IOException e) {
        return e.getMessage() != null && e.getMessage().contains("reset");
    }

    public void setReadTimeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
