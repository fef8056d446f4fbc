package io.brook.coordinator.txn;

import io.brook.wire.protocol.Errors;

/** The answer to InitProducerId: an error, or the producer id and epoch to use. */
public record InitPidResult(Errors error, long producerId, short producerEpoch) {
    static InitPidResult failed(Errors e) {
        return new InitPidResult(e, -1L, (short) -1);
    }
}
