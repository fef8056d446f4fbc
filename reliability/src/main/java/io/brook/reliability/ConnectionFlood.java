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

    ConnectionFlood(int port) {
        this.port = port;
    }

    /**
     * Opens up to {@code n} idle connections; returns how many the broker accepted. With
     * {@code stopAtRefusal} it stops at the first refused one.
     */
    int openIdle(int n, boolean stopAtRefusal) {
        int accepted = 0;
        for (int i = 0; i < n; i++) {
            KafkaWire w = null;
            try {
                w = KafkaWire.connect(port, Duration.ofSeconds(10));
                w.send(new ApiVersionsRequestData().setClientSoftwareName("idle").setClientSoftwareVersion("1"),
                        API_VERSIONS_VERSION);
                idle.add(w);
                accepted++;
            } catch (IOException e) {
                closeQuietly(w);
                if (stopAtRefusal) {
                    break;
                }
            }
        }
        return accepted;
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
