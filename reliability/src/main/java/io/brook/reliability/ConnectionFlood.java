package io.brook.reliability;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsRequestData;

/**
 * Many raw connections held open: idle ones, each proven accepted by one ApiVersions round trip
 * (a connection the broker closes instead is refused), and ones that send fetch requests and
 * never read a byte of the answers. Used from one thread.
 */
final class ConnectionFlood implements AutoCloseable {
    private static final short API_VERSIONS_VERSION = 3;

    private final int port;
    private final List<KafkaWire> idle = new ArrayList<>();
    private final List<KafkaWire> nonReaders = new ArrayList<>();
    private int refused;
    private int unanswered;

    ConnectionFlood(int port) {
        this.port = port;
    }

    /**
     * Opens up to {@code n} idle connections, until {@code deadlineNanos}; returns how many the
     * broker accepted. A connection the broker closes is refused; one whose ApiVersions is not
     * answered within 5 s is counted as unanswered and closed. With {@code stopAtRefusal} it stops
     * at the first connection not accepted.
     */
    int openIdle(int n, boolean stopAtRefusal, long deadlineNanos) {
        int accepted = 0;
        for (int i = 0; i < n && System.nanoTime() < deadlineNanos; i++) {
            KafkaWire w = null;
            try {
                w = KafkaWire.connect(port, Duration.ofSeconds(5));
                w.send(new ApiVersionsRequestData().setClientSoftwareName("idle").setClientSoftwareVersion("1"),
                        API_VERSIONS_VERSION);
                idle.add(w);
                accepted++;
            } catch (java.net.SocketTimeoutException e) {
                unanswered++;
                closeQuietly(w);
                if (stopAtRefusal) {
                    break;
                }
            } catch (IOException e) {
                refused++;
                closeQuietly(w);
                if (stopAtRefusal) {
                    break;
                }
            }
        }
        return accepted;
    }

    /** Connections the broker closed at once (the limit), since this flood was made. */
    int refused() {
        return refused;
    }

    /** Connections whose ApiVersions the broker did not answer within 5 s. */
    int unanswered() {
        return unanswered;
    }

    /**
     * Opens {@code n} connections with a 4 KiB receive buffer that each send {@code fetches}
     * fetch requests (up to 1 MiB each, from offsets spread over [0, {@code maxOffset})) and
     * never read.
     */
    void openNonReaders(int n, int fetches, String topic, long maxOffset) throws IOException {
        for (int i = 0; i < n; i++) {
            KafkaWire w = KafkaWire.connect(port, Duration.ofSeconds(10), 4096);
            nonReaders.add(w);
            ByteArrayOutputStream frames = new ByteArrayOutputStream();
            for (int f = 0; f < fetches; f++) {
                long offset = maxOffset <= 0 ? 0 : ((long) i * fetches + f) * 7919 % maxOffset;
                frames.writeBytes(KafkaWire.frame(Requests.fetch(topic, 0, offset, 1 << 20, 0), Requests.FETCH_VERSION,
                        w.nextCorrelationId()));
            }
            w.write(frames.toByteArray());
        }
    }

    /** How many of the first {@code n} idle connections answer an ApiVersions within 5 s now. */
    int idleAnswering(int n) {
        int ok = 0;
        for (int i = 0; i < Math.min(n, idle.size()); i++) {
            try {
                idle.get(i).send(new ApiVersionsRequestData().setClientSoftwareName("idle").setClientSoftwareVersion("1"),
                        API_VERSIONS_VERSION);
                ok++;
            } catch (IOException e) {
                // closed or silent: not served
            }
        }
        return ok;
    }

    int idleCount() {
        return idle.size();
    }

    int nonReaderCount() {
        return nonReaders.size();
    }

    /** Closes {@code n} of the idle connections. */
    void closeIdle(int n) {
        for (int i = 0; i < n && !idle.isEmpty(); i++) {
            closeQuietly(idle.remove(idle.size() - 1));
        }
    }

    @Override
    public void close() {
        idle.forEach(ConnectionFlood::closeQuietly);
        nonReaders.forEach(ConnectionFlood::closeQuietly);
        idle.clear();
        nonReaders.clear();
    }

    private static void closeQuietly(KafkaWire w) {
        if (w != null) {
            try {
                w.close();
            } catch (IOException ignored) {
                // nothing left to release
            }
        }
    }
}
