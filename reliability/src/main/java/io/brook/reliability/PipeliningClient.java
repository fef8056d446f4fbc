package io.brook.reliability;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A connection that writes {@code window} requests back to back (ApiVersions, Metadata and small
 * Fetches in turn), then reads their responses, which must come in request order; repeated on
 * its own thread until stopped. Counts answered requests and problems (an out-of-order or
 * missing answer, a closed connection); after a problem it reconnects.
 */
final class PipeliningClient implements Runnable {
    private static final long RECONNECT_BACKOFF_NANOS = 10_000_000L;
    private final int port;
    private final String topic;
    private final int window;
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong problems = new AtomicLong();
    private volatile String lastProblem = "";
    private volatile boolean running = true;
    /** While true the client sends nothing more once its current round is answered. */
    private boolean paused;

    PipeliningClient(int port, String topic, int window) {
        this.port = port;
        this.topic = topic;
        this.window = window;
    }

    @Override
    public void run() {
        while (running) {
            try (KafkaWire wire = KafkaWire.connect(port, Duration.ofSeconds(30))) {
                while (running) {
                    awaitUnpaused();
                    round(wire);
                }
            } catch (IOException | RuntimeException e) {
                if (running) {
                    problems.incrementAndGet();
                    lastProblem = e.toString();
                    LockSupport.parkNanos(RECONNECT_BACKOFF_NANOS); // a broker that is down is not hammered
                }
            }
        }
    }

    private void round(KafkaWire wire) throws IOException {
        ApiMessage[] requests = new ApiMessage[window];
        short[] versions = new short[window];
        int[] ids = new int[window];
        java.io.ByteArrayOutputStream frames = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < window; i++) {
            switch (i % 3) {
                case 0 -> {
                    requests[i] = new ApiVersionsRequestData().setClientSoftwareName("pipeline").setClientSoftwareVersion("1");
                    versions[i] = 3;
                }
                case 1 -> {
                    requests[i] = Requests.metadata(topic, false);
                    versions[i] = Requests.METADATA_VERSION;
                }
                default -> {
                    requests[i] = Requests.fetch(topic, 0, i, 4096, 0);
                    versions[i] = Requests.FETCH_VERSION;
                }
            }
            ids[i] = wire.nextCorrelationId();
            frames.writeBytes(KafkaWire.frame(requests[i], versions[i], ids[i]));
        }
        wire.write(frames.toByteArray());
        for (int i = 0; i < window; i++) {
            wire.read(ApiKeys.forId(requests[i].apiKey()), versions[i], ids[i]);
            answered.incrementAndGet();
        }
    }

    private synchronized void awaitUnpaused() {
        while (paused && running) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Sends nothing more after the round in progress, until {@link #resume}. */
    synchronized void pause() {
        paused = true;
    }

    synchronized void resume() {
        paused = false;
        notifyAll();
    }

    synchronized void stop() {
        running = false;
        notifyAll();
    }

    long answered() {
        return answered.get();
    }

    long problems() {
        return problems.get();
    }

    String lastProblem() {
        return lastProblem;
    }
}
