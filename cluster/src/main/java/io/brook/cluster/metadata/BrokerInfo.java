package io.brook.cluster.metadata;

import java.util.List;
import java.util.UUID;

/** A registered broker as the metadata image knows it; replaced, never changed, on each record. */
public record BrokerInfo(int id, UUID incarnationId, long epoch, List<Endpoint> listeners, String rack,
                         boolean fenced) {
    public BrokerInfo {
        listeners = List.copyOf(listeners);
    }

    BrokerInfo withFenced(boolean nowFenced) {
        return new BrokerInfo(id, incarnationId, epoch, listeners, rack, nowFenced);
    }
}
