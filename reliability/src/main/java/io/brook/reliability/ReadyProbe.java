package io.brook.reliability;

import io.brook.testkit.Await;
import java.io.IOException;
import java.time.Duration;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceResponse;

/**
 * Waits until a started broker is ready: it answers Metadata with a leader for partition 0 of
 * {@value #TOPIC} (created on first use) and acknowledges an acks=all produce to it. Connection
 * refusals and errors are retried, the wait parking a millisecond between attempts; the time is
 * measured from just before the process was started.
 */
final class ReadyProbe {
    static final String TOPIC = "ready-probe";

    private KafkaWire wire;
    private boolean leaderKnown;

    private ReadyProbe() {
    }

    /** Milliseconds from the process start to ready; fails if it exits or is not ready in time. */
    static double awaitReady(BrokerProcess broker, Duration timeout) {
        ReadyProbe probe = new ReadyProbe();
        try {
            Await.until("the broker on port " + broker.port() + " to be ready (metadata + acks=all produce)", timeout,
                    () -> {
                        if (!broker.alive()) {
                            throw new IllegalStateException("the broker exited with status " + broker.exitValue()
                                    + " before it was ready; its last lines:\n" + broker.logTail(30));
                        }
                        return probe.attempt(broker.port());
                    });
            return (System.nanoTime() - broker.startNanos()) / 1e6;
        } finally {
            probe.disconnect();
        }
    }

    private boolean attempt(int port) {
        try {
            if (wire == null) {
                wire = KafkaWire.connect(port, Duration.ofSeconds(15));
            }
            if (!leaderKnown) {
                MetadataResponse m = wire.send(Requests.metadata(TOPIC, true), Requests.METADATA_VERSION);
                leaderKnown = Requests.leaderError(m, TOPIC, 0) == Errors.NONE;
                if (!leaderKnown) {
                    return false;
                }
            }
            ProduceResponse p = wire.send(Requests.produce(TOPIC, 0, (short) -1, "ready"), Requests.PRODUCE_VERSION);
            return Requests.produceError(p) == Errors.NONE;
        } catch (IOException e) {
            disconnect();
            return false;
        }
    }

    private void disconnect() {
        if (wire != null) {
            try {
                wire.close();
            } catch (IOException ignored) {
                // closing a socket that failed: nothing left to release
            }
            wire = null;
        }
    }
}
